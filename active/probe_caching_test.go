package active

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestCachingProbes(t *testing.T) {
	P, F := rules.Pass, rules.Fail
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{}, Options{}, map[string]rules.Status{
			"cache-hints-present": P, "ttl-nonnegative-integer": P, "cache-scope-enum": P,
			"cache-scope-same-all-pages": P, "stable-cursors": P, "invalid-cursor-32602": P,
			"discover-result-shape": P, "discover-server-info": P}},
		{"no caching hints", &areaServer{noCacheHints: true}, Options{}, map[string]rules.Status{"cache-hints-present": F, "discover-result-shape": F}},
		{"scope changes across pages", &areaServer{scopeFlip: true}, Options{}, map[string]rules.Status{"cache-scope-same-all-pages": F}},
		{"invalid cursor served", &areaServer{badCursorServed: true}, Options{}, map[string]rules.Status{"invalid-cursor-32602": F}},
	})
}
