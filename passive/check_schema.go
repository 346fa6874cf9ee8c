package passive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-sentinel/sentinel/internal/jsonschema"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// checkCapabilityNegotiation enforces that prompt methods are served only by a server that
// declared prompts.
//
//	Servers and clients "SHOULD respect capability negotiation"; a server offering prompts MUST
//	declare the prompts capability, and an undeclared feature's methods answer -32601.
func checkCapabilityNegotiation(v *view, h *History) []rules.Outcome {
	m := v.method()
	if m != "prompts/list" && m != "prompts/get" {
		return nil
	}
	declared, known := h.capability("prompts")
	if !known || v.final == nil {
		return nil
	}
	_, isErr := v.errorCode()
	switch {
	case !declared && !isErr:
		return []rules.Outcome{fail("respect-capability-negotiation", "the server served %s although its DiscoverResult declares no prompts capability", m)}
	case declared && !isErr:
		return []rules.Outcome{pass("respect-capability-negotiation", m+" served with prompts declared")}
	}
	return nil
}

// tchar is RFC 9110's token character set.
func tchar(r rune) bool {
	return r < 0x7f && r > ' ' && !strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r)
}

// checkXMCPHeader enforces the x-mcp-header annotations of published tools.
//
//	An x-mcp-header value MUST be a non-empty RFC 9110 token without control characters, unique
//	case-insensitively within the schema, on an integer, string or boolean property (never
//	number) reached from the root only through properties.
func checkXMCPHeader(v *view, _ *History) []rules.Outcome {
	if v.method() != "tools/list" || !v.complete() {
		return nil
	}
	var out []rules.Outcome
	seenAny := false
	_, objs := v.tools()
	for _, t := range objs {
		if !mayHaveKey(t["inputSchema"], xMCPHeaderKey) {
			continue // no member of any object in it can be named x-mcp-header: nothing to walk
		}
		name, _ := stringOf(t["name"])
		var problems []string
		found := map[string]bool{}
		walkSchema(t["inputSchema"], true, 0, func(node map[string]json.RawMessage, propsPath bool) {
			hv, ok := node[xMCPHeaderKey]
			if !ok {
				return
			}
			seenAny = true
			s, isStr := stringOf(hv)
			ty, _ := stringOf(node["type"])
			switch {
			case !isStr || s == "":
				problems = append(problems, "an empty or non-string value")
			case strings.IndexFunc(s, func(r rune) bool { return !tchar(r) }) >= 0:
				problems = append(problems, fmt.Sprintf("%q is not an RFC 9110 token", clip(s)))
			case found[strings.ToLower(s)]:
				problems = append(problems, fmt.Sprintf("%q is repeated (case-insensitively)", clip(s)))
			case !propsPath:
				problems = append(problems, fmt.Sprintf("%q sits under a keyword other than properties", clip(s)))
			case ty != "string" && ty != "integer" && ty != "boolean":
				problems = append(problems, fmt.Sprintf("%q is on a property of type %q", clip(s), clip(ty)))
			}
			if isStr {
				found[strings.ToLower(s)] = true
			}
		})
		if len(problems) > 0 {
			out = append(out, fail("x-mcp-header-valid", "tool %q publishes x-mcp-header %s", clip(name), problems[0]))
		}
	}
	if seenAny && len(out) == 0 {
		out = append(out, pass("x-mcp-header-valid", "every x-mcp-header is a valid, unique token on a primitive property"))
	}
	return out
}

// xMCPHeaderKey is the schema keyword checkXMCPHeader looks for.
const xMCPHeaderKey = "x-mcp-header"

// mayHaveKey reports whether some object in raw could have a member named key (a plain ASCII
// name without quote or backslash): its bytes hold key literally, or hold an escape, through
// which any name can be spelt. False means no object in raw has it, so a walk looking for it
// finds nothing; a scan walked every tool's schema on each of its nine tools/list answers.
func mayHaveKey(raw json.RawMessage, key string) bool {
	return bytes.Contains(raw, []byte(key)) || bytes.IndexByte(raw, '\\') >= 0
}

// walkSchema visits every object in a JSON Schema, telling fn whether the path from the root
// went only through properties. Depth is bounded so a hostile schema cannot exhaust the stack.
func walkSchema(raw json.RawMessage, propsPath bool, depth int, fn func(map[string]json.RawMessage, bool)) {
	if depth > 32 {
		return
	}
	node := decodeObject(raw)
	if node == nil {
		return
	}
	fn(node, propsPath && depth > 0)
	keys := make([]string, 0, len(node))
	for k := range node {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := node[k]
		switch {
		case k == "properties":
			props := decodeObject(val)
			for _, pk := range sortedKeys(props) {
				walkSchema(props[pk], propsPath, depth+1, fn)
			}
		case bytes.HasPrefix(bytes.TrimSpace(val), []byte("{")):
			walkSchema(val, false, depth+1, fn)
		case bytes.HasPrefix(bytes.TrimSpace(val), []byte("[")):
			for _, e := range decodeArray(val) {
				walkSchema(e, false, depth+1, fn)
			}
		}
	}
}

// checkSchemaDialect enforces that published schemas are valid under their dialect by compiling
// each inputSchema and outputSchema against its meta-schema (2020-12 when $schema is absent).
// Remote references are never fetched.
//
//	"Schemas MUST be valid according to their declared or default dialect."
func checkSchemaDialect(v *view, _ *History) []rules.Outcome {
	if v.method() != "tools/list" || !v.complete() {
		return nil
	}
	n, skipped := 0, 0
	_, objs := v.tools()
	for _, t := range objs {
		name, _ := stringOf(t["name"])
		for _, field := range []string{"inputSchema", "outputSchema"} {
			s, ok := t[field]
			if !ok || decodeObject(s) == nil {
				continue
			}
			if n >= maxSchemas || wire.SchemaTooLarge(s) {
				skipped++
				continue
			}
			n++
			if err := compileSchema(s); err != nil {
				return []rules.Outcome{fail("schemas-valid-dialect", "the %s of tool %q is not a valid schema in its dialect: %s", field, clip(name), clip(firstLine(err.Error())))}
			}
		}
	}
	if n == 0 {
		return nil
	}
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf(" (%d more not compiled: past the bounds of %d schemas, %d bytes or depth %d)", skipped, maxSchemas, wire.MaxSchemaBytes, wire.MaxSchemaDepth)
	}
	return []rules.Outcome{pass("schemas-valid-dialect", fmt.Sprintf("%d schema(s) valid in their dialect%s", n, note))}
}

// maxSchemas bounds how many schemas one tools/list gets compiled: a passive check runs on live
// traffic. Each schema is also bounded in size and depth (wire.SchemaTooLarge).
const maxSchemas = 64

// schemaMemo remembers each schema's verdict by its bytes: a scan reads the same tools/list many
// times, and compiling is the costliest passive work there is.
var schemaMemo = newMemo[error](4096, 16<<20)

// compileSchema validates one schema against its meta-schema, with no network loader. The
// verdict depends on the bytes alone, so it is memoised.
func compileSchema(raw json.RawMessage) error {
	return schemaMemo.getBytes(raw, func(b []byte) error { return compileSchemaOnce(b) })
}

// compileSchemaOnce is compileSchema without the memo.
func compileSchemaOnce(raw json.RawMessage) error {
	if _, err := jsonschema.Compile(raw); err != nil {
		return fmt.Errorf("compiling the schema: %w", err)
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
