package active

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestPromptProbes(t *testing.T) {
	P, F := rules.Pass, rules.Fail
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{}, Options{}, map[string]rules.Status{
			"prompts-list-current": P, "unknown-prompt-32602": P, "missing-prompt-args-32602": P, "validate-prompt-args": P}},
		{"missing argument rendered", &areaServer{noPromptValidation: true}, Options{}, map[string]rules.Status{
			"missing-prompt-args-32602": F, "validate-prompt-args": F}},
	})
}
