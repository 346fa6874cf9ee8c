package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every invalid policy under testdata/policy has an exact expected message next to it (.err), so a
// change in wording is a reviewed change.
func TestParseTenantPolicyRejectsInvalidPolicies(t *testing.T) {
	files, err := filepath.Glob("testdata/policy/invalid-*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid policies found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, perr := ParseTenantPolicy(data)
			if perr == nil {
				t.Fatalf("ParseTenantPolicy(%s) = nil error, want one", f)
			}
			golden(t, strings.TrimSuffix(f, ".json")+".err", []byte(perr.Error()+"\n"))
		})
	}
}

func TestParseTenantPolicyAcceptsTheValidExample(t *testing.T) {
	data, err := os.ReadFile("testdata/policy/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseTenantPolicy(data)
	if err != nil {
		t.Fatalf("ParseTenantPolicy(valid.json) = %v", err)
	}
	m, ok := p.Metric(MetricGroundedness)
	if !ok || m.OnTimeout != FailOpen || m.JudgeBudget() != DefaultMaxJudgeLatency || p.ArchivePayloads {
		t.Errorf("parsed policy = %+v, want groundedness fail_open with the default budget and no archiving", p)
	}
}

func TestValidateNamesTheMetricAndTheChoiceWhenOnTimeoutIsMissing(t *testing.T) {
	p := TenantPolicy{TenantID: "acme", Metrics: []MetricPolicy{
		{Metric: MetricInjection, Enabled: true, Threshold: 0.5, OnTimeout: FailClosed},
		{Metric: MetricGroundedness, Enabled: false, Threshold: 0.5},
	}}
	err := p.Validate()
	if !errors.Is(err, ErrInvalidPolicy) {
		t.Fatalf("Validate() = %v, want ErrInvalidPolicy", err)
	}
	for _, want := range []string{`metric "check_groundedness"`, "onTimeout", "fail_open", "fail_closed", "no default"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %q, want it to mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `metric "flag_injection"`) {
		t.Errorf("Validate() = %q blames flag_injection, which chose", err)
	}
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Metric != MetricGroundedness {
		t.Errorf("errors.As(PolicyError) = %+v, want metric %s", pe, MetricGroundedness)
	}
}
