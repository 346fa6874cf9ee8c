package passive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/mcp-sentinel/sentinel/internal/lazyre"
	"github.com/mcp-sentinel/sentinel/rules"
)

var toolNameRE = lazyre.New(`^[A-Za-z0-9_.-]{1,128}$`)

// checkToolsList enforces the published tool definitions of one tools/list page, and compares
// them with what History saw before.
//
//	Tool names "SHOULD be between 1 and 128 characters" from [A-Za-z0-9_.-] and "SHOULD be
//	unique within a server". inputSchema "MUST be a valid JSON Schema object (not null)" with
//	root type "object". Servers "SHOULD return tools in a deterministic order". The list "MUST
//	NOT vary per-connection or as a side effect of other requests": a tool whose description or
//	schema changes under the same name is reported as a signal, not a proof.
func checkToolsList(v *view, h *History) []rules.Outcome {
	if v.method() != "tools/list" || !v.complete() {
		return nil
	}
	page := toolsPageMemo.getBytes(v.result()["tools"], readToolsPage)
	if !page.array {
		return nil
	}
	var out []rules.Outcome
	names, defs := page.names, page.defs
	badName, dupName, badSchema := page.badName, page.dupName, page.badSchema
	if badName != "" {
		out = append(out, fail("tool-name-syntax", "tool name %q is not 1-128 characters from [A-Za-z0-9_.-]", clip(badName)))
	} else {
		out = append(out, pass("tool-name-syntax", fmt.Sprintf("%d tool name(s), all well-formed", len(names))))
	}
	if dupName != "" {
		out = append(out, fail("tool-name-unique", "tool name %q appears more than once", clip(dupName)))
	} else {
		out = append(out, pass("tool-name-unique", "tool names are unique"))
	}
	if badSchema != "" {
		out = append(out, fail("input-schema-object", "%s, not a JSON Schema object with type \"object\"", badSchema))
	} else if len(names) > 0 {
		out = append(out, pass("input-schema-object", "every inputSchema is an object schema"))
	}
	if h == nil {
		return out
	}
	h.init()
	cursor, _ := v.reqParamString("cursor")
	if prev, ok := h.ToolOrders[cursor]; ok && sameSet(prev, names) {
		if slices.Equal(prev, names) {
			out = append(out, pass("tools-deterministic-order", "the same tools in the same order as before"))
		} else {
			out = append(out, fail("tools-deterministic-order", "the same set of tools came back in a different order: %v then %v", clipList(prev), clipList(names)))
		}
	}
	if len(h.ToolOrders) < maxHistoryEntries {
		h.ToolOrders[cursor] = names
	}
	for _, name := range sortedNames(defs) {
		prev, ok := h.Tools[name]
		if ok && prev != defs[name] {
			out = append(out, undecided("lists-not-connection-scoped",
				fmt.Sprintf("tool %q changed its description or inputSchema between two tools/list results", clip(name)),
				"a definition that changes under the same name is a signal (a rug pull, or a per-connection list), not proof: the set may change over time"))
		}
		if ok || len(h.Tools) < maxHistoryEntries {
			h.Tools[name] = defs[name]
		}
	}
	return out
}

// toolsPage is what checkToolsList reads from one tools array: a pure function of its bytes,
// memoised (toolsPageMemo), because a scan grades the same tools/list result a dozen times and
// fingerprinting every definition (a SHA-256 of its compacted schema) was most of the check.
// Shared between callers: never modified.
type toolsPage struct {
	// array is false when the value is not a JSON array (the check then says nothing).
	array bool
	// names are the tools' names in order ("" for an element without one).
	names []string
	// badName, dupName and badSchema are the first offender of each rule, "" when none.
	badName, dupName, badSchema string
	// defs maps each name to the digest of its description and inputSchema.
	defs map[string]string
}

// toolsPageMemo remembers toolsPage by the tools array's bytes.
var toolsPageMemo = newMemo[*toolsPage](1024, 32<<20)

// readToolsPage computes the toolsPage of one tools array.
func readToolsPage(raw []byte) *toolsPage {
	tools := decodeArray(raw)
	if tools == nil {
		return &toolsPage{}
	}
	p := &toolsPage{array: true, names: make([]string, 0, len(tools)), defs: map[string]string{}}
	seen := map[string]bool{}
	for _, el := range tools {
		t := decodeObject(el)
		name, _ := stringOf(t["name"])
		p.names = append(p.names, name)
		if !toolNameRE().MatchString(name) && p.badName == "" {
			p.badName = name
		}
		if seen[name] && p.dupName == "" {
			p.dupName = name
		}
		seen[name] = true
		schema := decodeObject(t["inputSchema"])
		if ty, _ := stringOf(schema["type"]); (schema == nil || ty != "object") && p.badSchema == "" {
			p.badSchema = fmt.Sprintf("tool %q has inputSchema %s", clip(name), clipBytes(t["inputSchema"]))
		}
		p.defs[name] = digest(t["description"], t["inputSchema"])
	}
	return p
}

// digest fingerprints the parts of a tool definition whose change matters to a client.
func digest(parts ...json.RawMessage) string {
	s := sha256.New()
	for _, p := range parts {
		var c bytes.Buffer
		if json.Compact(&c, p) != nil {
			c.Write(p)
		}
		s.Write(c.Bytes())
		s.Write([]byte{0})
	}
	return hex.EncodeToString(s.Sum(nil))
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	sort.Strings(x)
	sort.Strings(y)
	return slices.Equal(x, y)
}

func sortedNames(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func clipList(xs []string) string {
	if len(xs) > 8 {
		return clip(fmt.Sprint(xs[:8])) + "…"
	}
	return clip(fmt.Sprint(xs))
}
