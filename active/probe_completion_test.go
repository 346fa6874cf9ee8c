package active

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestCompletionProbes(t *testing.T) {
	P, F := rules.Pass, rules.Fail
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{}, Options{}, map[string]rules.Status{"completion-max-100": P, "completion-error-codes": P}},
		{"150 values", &areaServer{tooManyCompletions: true}, Options{}, map[string]rules.Status{"completion-max-100": F}},
	})
}
