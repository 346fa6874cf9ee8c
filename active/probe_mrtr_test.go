package active

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestMRTRProbes(t *testing.T) {
	P, F := rules.Pass, rules.Fail
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{}, Options{}, map[string]rules.Status{
			"request-state-integrity": P, "request-state-untrusted": P, "request-state-anti-replay": P,
			"mrtr-rerequest-missing": P, "mrtr-validate-input-responses": P, "mrtr-ignore-extra-responses": P,
			"elicitation-decline-handled": P, "missing-capability-error": P, "missing-capability-http-400": P,
			"no-capability-inference": P}},
		{"requestState trusted", &areaServer{trustState: true}, Options{}, map[string]rules.Status{
			"request-state-integrity": F, "request-state-untrusted": F, "request-state-anti-replay": F}},
		{"-32021 with 200 and no data", &areaServer{missingCapStatus: true}, Options{}, map[string]rules.Status{
			"missing-capability-error": F, "missing-capability-http-400": F}},
	})
}

func TestTampered(t *testing.T) {
	for _, s := range []string{"", "abc", "xyzA"} {
		if got := tampered(s); got == s || got == "" {
			t.Errorf("tampered(%q) = %q", s, got)
		}
	}
}
