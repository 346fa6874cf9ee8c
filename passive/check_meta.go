package passive

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-sentinel/sentinel/internal/lazyre"
	"github.com/mcp-sentinel/sentinel/rules"
)

// checkServerInfo enforces serverInfo in every result's _meta.
//
//	Servers "SHOULD include io.modelcontextprotocol/serverInfo in the _meta of every result"
//	unless configured not to.
func checkServerInfo(v *view, _ *History) []rules.Outcome {
	r := v.result()
	if r == nil || v.removedMethod() {
		return nil
	}
	rule := "server-info-in-result-meta"
	if !serverInfoValid(r) {
		return []rules.Outcome{fail(rule, "the result to %s has no _meta[%q] with name and version", v.methodLabel(), metaServerInfo)}
	}
	return []rules.Outcome{pass(rule, "serverInfo present in the result's _meta")}
}

// serverInfoValid reports whether a result's _meta carries an Implementation with name and version.
func serverInfoValid(r map[string]json.RawMessage) bool {
	si := decodeObject(decodeObject(r["_meta"])[metaServerInfo])
	_, n := stringOf(si["name"])
	_, ver := stringOf(si["version"])
	return n && ver
}

// checkDiscover enforces the DiscoverResult shape and records the declared capabilities in
// History for the checks that depend on them.
//
//	DiscoverResult: resultType, supportedVersions (string[]), capabilities, ttlMs and cacheScope
//	are required; its _meta SHOULD carry io.modelcontextprotocol/serverInfo.
func checkDiscover(v *view, h *History) []rules.Outcome {
	if v.method() != "server/discover" || !v.complete() {
		return nil
	}
	r := v.result()
	var missing []string
	if vs := decodeArray(r["supportedVersions"]); len(vs) == 0 {
		missing = append(missing, "supportedVersions (a non-empty string array)")
	}
	caps := decodeObject(r["capabilities"])
	if caps == nil {
		missing = append(missing, "capabilities (an object)")
	} else if h != nil {
		h.Capabilities = append(json.RawMessage(nil), r["capabilities"]...)
	}
	if _, ok := intOf(r["ttlMs"]); !ok {
		missing = append(missing, "ttlMs (an integer)")
	}
	if _, ok := stringOf(r["cacheScope"]); !ok {
		missing = append(missing, "cacheScope")
	}
	var out []rules.Outcome
	if len(missing) > 0 {
		out = append(out, fail("discover-result-shape", "the DiscoverResult lacks %s", strings.Join(missing, ", ")))
	} else {
		out = append(out, pass("discover-result-shape", "resultType, supportedVersions, capabilities, ttlMs and cacheScope present"))
	}
	if serverInfoValid(r) {
		out = append(out, pass("discover-server-info", "serverInfo in the DiscoverResult's _meta"))
	} else {
		out = append(out, fail("discover-server-info", "the DiscoverResult's _meta has no %s with name and version", metaServerInfo))
	}
	return out
}

var (
	metaLabel = lazyre.New(`^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?$`)
	metaName  = lazyre.New(`^([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)
	// W3C Trace Context traceparent: version-traceid-parentid-flags, lower-case hex.
	traceparentRE = lazyre.New(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$`)
	// W3C tracestate list member: key=value, with the key grammar of the spec.
	tracestateKey = lazyre.New(`^([a-z0-9][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$`)
	// W3C Baggage key: an RFC 7230 token.
	baggageKey = lazyre.New("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// metaKeyProblem says why key breaks the _meta key grammar, or "".
func metaKeyProblem(key string) string {
	if key == "traceparent" || key == "tracestate" || key == "baggage" {
		return ""
	}
	prefix, name := "", key
	if i := strings.LastIndex(key, "/"); i >= 0 {
		prefix, name = key[:i], key[i+1:]
		if prefix == "" {
			return "an empty prefix before '/'"
		}
		for _, l := range strings.Split(prefix, ".") {
			if !metaLabel().MatchString(l) {
				return fmt.Sprintf("prefix label %q does not start with a letter and end with a letter or digit", l)
			}
		}
	}
	if !metaName().MatchString(name) {
		return fmt.Sprintf("name %q does not begin and end with an alphanumeric", name)
	}
	return ""
}

// checkMetaKeys enforces the _meta key grammar and the W3C formats of trace keys on every
// _meta object the server sent (result and notification params).
//
//	Prefix labels "MUST start with a letter and end with a letter or digit"; a name, unless
//	empty, "MUST begin and end with an alphanumeric character". traceparent, tracestate and
//	baggage values "MUST follow W3C Trace Context and W3C Baggage formats".
func checkMetaKeys(v *view, _ *History) []rules.Outcome {
	var out []rules.Outcome
	for _, m := range v.msgs {
		// wire split params or result when it decoded the message; read _meta from that split.
		members := m.ResultMembers()
		if m.Method != "" {
			members = m.ParamsMembers()
		}
		meta := decodeObject(members["_meta"])
		if meta == nil {
			continue
		}
		keys := make([]string, 0, len(meta))
		for k := range meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		bad := ""
		for _, k := range keys {
			if p := metaKeyProblem(k); p != "" && bad == "" {
				bad = fmt.Sprintf("_meta key %q: %s", clip(k), p)
			}
		}
		if bad != "" {
			out = append(out, fail("meta-key-grammar", "the server sent %s", bad))
		} else {
			out = append(out, pass("meta-key-grammar", fmt.Sprintf("%d _meta key(s), all well-formed", len(keys))))
		}
		for _, k := range []string{"traceparent", "tracestate", "baggage"} {
			raw, ok := meta[k]
			if !ok {
				continue
			}
			s, isStr := stringOf(raw)
			if p := traceProblem(k, s, isStr); p != "" {
				out = append(out, fail("otel-meta-format", "_meta %s %s: %s", k, clipBytes(raw), p))
			} else {
				out = append(out, pass("otel-meta-format", fmt.Sprintf("_meta %s is well-formed", k)))
			}
		}
	}
	return out
}

// traceProblem says why a trace-context value breaks its W3C format, or "".
func traceProblem(key, s string, isString bool) string {
	if !isString {
		return "not a string"
	}
	switch key {
	case "traceparent":
		g := traceparentRE().FindStringSubmatch(s)
		switch {
		case g == nil:
			return "not version-traceid-parentid-flags in lower-case hex"
		case g[1] == "ff":
			return "version ff is invalid"
		case g[1] == "00" && g[5] != "":
			return "version 00 has exactly four fields"
		case g[2] == strings.Repeat("0", 32):
			return "an all-zero trace-id"
		case g[3] == strings.Repeat("0", 16):
			return "an all-zero parent-id"
		}
	case "tracestate":
		members := strings.Split(s, ",")
		if len(members) > 32 {
			return "more than 32 list members"
		}
		for _, m := range members {
			m = strings.Trim(m, " \t")
			if m == "" {
				continue
			}
			k, val, ok := strings.Cut(m, "=")
			if !ok || !tracestateKey().MatchString(k) || val == "" || len(val) > 256 {
				return fmt.Sprintf("list member %q is not key=value", clip(m))
			}
		}
	case "baggage":
		for _, m := range strings.Split(s, ",") {
			kv, _, _ := strings.Cut(m, ";")
			k, _, ok := strings.Cut(strings.Trim(kv, " \t"), "=")
			if !ok || !baggageKey().MatchString(strings.Trim(k, " \t")) {
				return fmt.Sprintf("member %q is not key=value", clip(m))
			}
		}
	}
	return ""
}
