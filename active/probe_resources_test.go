package active

import (
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestResourceProbes(t *testing.T) {
	P, F := rules.Pass, rules.Fail
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{}, Options{}, map[string]rules.Status{
			"resources-list-current": P, "resource-not-found-32602": P, "no-empty-contents-missing": P, "validate-resource-uris": P}},
		{"missing resource gets empty contents", &areaServer{notFoundEmpty: true}, Options{}, map[string]rules.Status{
			"resource-not-found-32602": F, "no-empty-contents-missing": F, "validate-resource-uris": F}},
		{"file resources that refuse traversal", &areaServer{fileRoot: true}, Options{}, map[string]rules.Status{"no-path-traversal": P}},
		{"file resources that serve ../", &areaServer{fileRoot: true, traversal: true}, Options{}, map[string]rules.Status{"no-path-traversal": F}},
		{"no file resources", &areaServer{}, Options{}, map[string]rules.Status{"no-path-traversal": rules.NotApplicable}},
	})
}

func TestTraversalURI(t *testing.T) {
	got := traversalURI("file:///srv/data/readme.txt")
	if !strings.HasPrefix(got, "file:///srv/data/../") || !strings.HasSuffix(got, "etc/passwd") {
		t.Errorf("traversalURI = %q", got)
	}
}
