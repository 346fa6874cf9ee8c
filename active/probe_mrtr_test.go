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
			"no-capability-inference": P, "no-connection-derived-context": P,
			"form-no-clickable-urls": P, "elicitation-response-validated": P, "elicitation-url-https": rules.NotApplicable}},
		{"form with a link, unchecked form data", &areaServer{formLink: true, noElicitValidation: true}, Options{}, map[string]rules.Status{
			"form-no-clickable-urls": F, "elicitation-response-validated": F}},
		{"url elicitation over http", &areaServer{elicitURL: "http://login.example/x"}, Options{}, map[string]rules.Status{
			"elicitation-url-https": F, "form-no-clickable-urls": rules.NotApplicable}},
		{"capabilities kept per connection", &areaServer{connectionCaps: true}, Options{}, map[string]rules.Status{
			"no-connection-derived-context": F, "no-capability-inference": F}},
		{"capabilities ignored", &areaServer{ignoreCaps: true}, Options{}, map[string]rules.Status{
			"no-connection-derived-context": rules.Indeterminate, "no-capability-inference": F}},
		{"url elicitation over https", &areaServer{elicitURL: "https://login.example/x"}, Options{}, map[string]rules.Status{
			"elicitation-url-https": P}},
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
