package active

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// cachingProbes cover the caching hints on every cacheable result, their consistency across the
// pages of one list, cursor stability and invalid cursors.
func cachingProbes() []Probe {
	return []Probe{
		{Name: "cache-hints", Run: probeCacheHints, RuleIDs: ids("cache-hints-present", "ttl-nonnegative-integer", "cache-scope-enum",
			"discover-result-shape", "discover-server-info")},
		{Name: "cache-pages", Run: probeCachePages, RuleIDs: ids("cache-scope-same-all-pages", "stable-cursors")},
		{Name: "invalid-cursor", Run: probeInvalidCursor, RuleIDs: ids("invalid-cursor-32602")},
	}
}

// cacheableCalls lists the cacheable requests the target's capabilities allow, with a label.
func cacheableCalls(t *Target) []struct {
	method string
	params map[string]any
} {
	type call = struct {
		method string
		params map[string]any
	}
	calls := []call{{"server/discover", nil}}
	if t.HasCapability("tools") {
		calls = append(calls, call{"tools/list", nil})
	}
	if t.HasCapability("prompts") {
		calls = append(calls, call{"prompts/list", nil})
	}
	if t.HasCapability("resources") {
		calls = append(calls, call{"resources/list", nil}, call{"resources/templates/list", nil})
		if len(t.Resources) > 0 {
			calls = append(calls, call{"resources/read", map[string]any{"uri": t.Resources[0]}})
		}
	}
	return calls
}

// probeCacheHints: complete results of discover, the four lists and resources/read MUST carry
// ttlMs (an integer >= 0) and cacheScope ("public" or "private"). The DiscoverResult, itself a
// CacheableResult, is also graded for its required members and serverInfo.
func probeCacheHints(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	var out []rules.Outcome
	for _, c := range cacheableCalls(t) {
		var ex *wire.Exchange
		switch {
		case c.method == "server/discover":
			ex = t.sharedDiscover(ctx, c.method)
		case c.params == nil:
			ex = t.firstPage(ctx, c.method, c.method)
		default: // resources/read of the first listed resource
			uri, _ := c.params["uri"].(string)
			ex = t.readResource(ctx, uri, c.method)
		}
		if cut(ex) {
			out = append(out, undecidedCut(rules.IDOf("cache-hints-present"), c.method, ex))
			continue
		}
		out = append(out, passiveFor(ex, nil, "cache-hints-present", "ttl-nonnegative-integer", "cache-scope-enum",
			"discover-result-shape", "discover-server-info")...)
	}
	return out, nil
}

// listWithPages finds a declared list whose first page carries nextCursor.
func listWithPages(ctx context.Context, t *Target) (method string, first *wire.Exchange, cursor string) {
	for _, c := range []struct{ capability, method string }{
		{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"},
	} {
		if !t.HasCapability(c.capability) {
			continue
		}
		ex := t.firstPage(ctx, c.method, c.method+", first page")
		if r := resultOf(ex); r != nil {
			var next string
			if wire.Decode(r["nextCursor"], &next) == nil && next != "" {
				return c.method, ex, next
			}
		}
	}
	return "", nil, ""
}

// probeCachePages: every page of one list MUST carry the same cacheScope; cursors SHOULD be
// stable (the same cursor twice gives the same page).
func probeCachePages(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	same, stable := rules.IDOf("cache-scope-same-all-pages"), rules.IDOf("stable-cursors")
	method, first, cursor := listWithPages(ctx, t)
	if first == nil {
		why := "no declared list returned a nextCursor, so the server does not paginate what it lists"
		return []rules.Outcome{rules.Absent(same, why), rules.Absent(stable, why)}, nil
	}
	h := passive.NewHistory()
	passive.RunFor(first, h, "cache-scope-same-all-pages")
	label := fmt.Sprintf("%s with the cursor of the first page", method)
	second := t.Call(ctx, method, map[string]any{"cursor": cursor}, wire.WithLabel(label))
	out := passiveFor(second, h, "cache-scope-same-all-pages")
	again := t.Call(ctx, method, map[string]any{"cursor": cursor}, wire.WithLabel(label+", again"))
	a, b := resultOf(second), resultOf(again)
	switch {
	case a == nil || b == nil:
		out = append(out, stamp(rules.Failed(stable, observed(label, again)+"; a cursor the server issued was not honoured both times"), again))
	case pageKey(a) == pageKey(b):
		out = append(out, stamp(rules.Passed(stable, observed(label, again)+"; the same cursor gave the same page"), again))
	default:
		out = append(out, stamp(rules.Failed(stable, observed(label, again)+"; the same cursor gave a different page"), again))
	}
	return out, nil
}

// pageKey is a page's items and next cursor, for comparing two fetches of one page.
func pageKey(r map[string]json.RawMessage) string {
	var k string
	for _, m := range []string{"tools", "prompts", "resources", "resourceTemplates", "nextCursor"} {
		k += string(r[m]) + "\x00"
	}
	return k
}

// probeInvalidCursor: an invalid cursor SHOULD get -32602.
func probeInvalidCursor(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("invalid-cursor-32602")
	for _, c := range []struct{ capability, method string }{
		{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"},
	} {
		if !t.HasCapability(c.capability) {
			continue
		}
		label := c.method + ` with cursor "sentinel-invalid-cursor-%%"`
		ex := t.Call(ctx, c.method, map[string]any{"cursor": "sentinel-invalid-cursor-%%"}, wire.WithLabel(label))
		return []rules.Outcome{reject(id, label, ex, 0, wire.CodeInvalidParams)}, nil
	}
	return []rules.Outcome{rules.Absent(id, "the server declares no tools, prompts or resources, so it has no list to page")}, nil
}
