package passive

import (
	"fmt"

	"github.com/mcp-sentinel/sentinel/rules"
)

// cacheableMethods are the methods whose complete results extend CacheableResult.
var cacheableMethods = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
}

// listMethods are the paginated cacheable methods.
var listMethods = map[string]bool{"tools/list": true, "prompts/list": true, "resources/list": true, "resources/templates/list": true}

// checkCacheHints enforces the caching hints on cacheable results.
//
//	Servers "MUST include ttlMs and cacheScope" on complete results of discover, the four lists
//	and resources/read. ttlMs is an integer "MUST be >= 0"; cacheScope is "public" or
//	"private". InputRequiredResults carry no hints. "The server MUST use the same cacheScope for
//	every page" of one list.
func checkCacheHints(v *view, h *History) []rules.Outcome {
	method := v.method()
	r := v.result()
	if r == nil {
		return nil
	}
	rt, _ := v.resultType()
	_, hasTTL := r["ttlMs"]
	_, hasScope := r["cacheScope"]
	// "Interim results with resultType input_required ... are not cacheable and carry no caching
	// hints", whichever method they answer (tools/call and prompts/get included).
	if rt != "input_required" && !cacheableMethods[method] {
		return nil
	}
	if rt == "input_required" {
		if hasTTL || hasScope {
			return []rules.Outcome{fail("no-hints-on-input-required", "the InputRequiredResult to %s carries caching hints", method)}
		}
		return []rules.Outcome{pass("no-hints-on-input-required", "no caching hints on the InputRequiredResult")}
	}
	if !v.complete() {
		return nil
	}
	var out []rules.Outcome
	switch {
	case hasTTL && hasScope:
		out = append(out, pass("cache-hints-present", "ttlMs and cacheScope present"))
	case !hasTTL && !hasScope:
		out = append(out, fail("cache-hints-present", "the %s result has neither ttlMs nor cacheScope", method))
	case !hasTTL:
		out = append(out, fail("cache-hints-present", "the %s result has no ttlMs", method))
	default:
		out = append(out, fail("cache-hints-present", "the %s result has no cacheScope", method))
	}
	if hasTTL {
		if n, ok := intOf(r["ttlMs"]); ok && n >= 0 {
			out = append(out, pass("ttl-nonnegative-integer", fmt.Sprintf("ttlMs %d", n)))
		} else {
			out = append(out, fail("ttl-nonnegative-integer", "the %s result has ttlMs %s, not an integer >= 0", method, clipBytes(r["ttlMs"])))
		}
	}
	scope, isStr := stringOf(r["cacheScope"])
	if hasScope {
		if isStr && (scope == "public" || scope == "private") {
			out = append(out, pass("cache-scope-enum", "cacheScope "+scope))
		} else {
			out = append(out, fail("cache-scope-enum", "the %s result has cacheScope %s, neither \"public\" nor \"private\"", method, clipBytes(r["cacheScope"])))
		}
	}
	if listMethods[method] && isStr && h != nil {
		h.init()
		// A page is compared with the page whose nextCursor the client followed: keyed by the
		// cursor, the lineage holds even when many clients (with private and public lists) share
		// one History.
		if cursor, paged := v.reqParamString("cursor"); paged {
			if prev, ok := h.CacheScopes[method+"\x00"+cursor]; ok {
				if prev == scope {
					out = append(out, pass("cache-scope-same-all-pages", "a later page kept cacheScope "+scope))
				} else {
					out = append(out, fail("cache-scope-same-all-pages", "the page of %s that issued cursor %q had cacheScope %q; the page it leads to has %q", method, clip(cursor), prev, clip(scope)))
				}
			}
		}
		if next, ok := stringOf(r["nextCursor"]); ok && next != "" && len(h.CacheScopes) < maxHistoryEntries {
			h.CacheScopes[method+"\x00"+next] = scope
		}
	}
	return out
}
