package active

import (
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
	})
}
