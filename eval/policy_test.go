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

func TestOverrideOnlyTightensThePolicy(t *testing.T) {
	base := MetricPolicy{Metric: MetricInjection, Enabled: true, Threshold: 0.6, OnTimeout: FailOpen, MaxJudgeLatencyMs: 300}
	closed := base
	closed.OnTimeout = FailClosed
	f := func(v float64) *float64 { return &v }
	n := func(v int) *int { return &v }
	tests := []struct {
		name      string
		base      MetricPolicy
		o         PolicyOverride
		want      MetricPolicy
		wantField string // the PolicyError's field; empty when the override applies
	}{
		{"nothing overridden keeps the tenant's policy", base, PolicyOverride{}, base, ""},
		{"a lower threshold applies", base, PolicyOverride{Threshold: f(0.4)}, withThreshold(base, 0.4), ""},
		{"the same threshold applies", base, PolicyOverride{Threshold: f(0.6)}, base, ""},
		{"a higher threshold is refused", base, PolicyOverride{Threshold: f(0.7)}, base, "policyOverride.threshold"},
		{"a zero threshold is refused", base, PolicyOverride{Threshold: f(0)}, base, "policyOverride.threshold"},
		{"a shorter budget applies", base, PolicyOverride{MaxJudgeLatencyMs: n(100)}, withBudget(base, 100), ""},
		{"a longer budget is refused", base, PolicyOverride{MaxJudgeLatencyMs: n(301)}, base, "policyOverride.maxJudgeLatencyMs"},
		{"a budget below the default is checked against the default", withBudget(base, 0), PolicyOverride{MaxJudgeLatencyMs: n(251)}, withBudget(base, 0), "policyOverride.maxJudgeLatencyMs"},
		{"fail_closed tightens fail_open", base, PolicyOverride{OnTimeout: FailClosed}, closed, ""},
		{"fail_open cannot loosen fail_closed", closed, PolicyOverride{OnTimeout: FailOpen}, closed, "policyOverride.onTimeout"},
		{"fail_open on fail_open is a no-op", base, PolicyOverride{OnTimeout: FailOpen}, base, ""},
		{"an unknown onTimeout is refused", base, PolicyOverride{OnTimeout: "retry"}, base, "policyOverride.onTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.base.Override(tt.o)
			if tt.wantField == "" {
				if err != nil || got != tt.want {
					t.Fatalf("Override(%+v) = %+v, %v; want %+v", tt.o, got, err, tt.want)
				}
				return
			}
			var pe *PolicyError
			if !errors.As(err, &pe) || pe.Field != tt.wantField || !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("Override(%+v) error = %v, want a PolicyError on %s", tt.o, err, tt.wantField)
			}
			if got != tt.base {
				t.Errorf("a refused override returned %+v, want the tenant's policy unchanged", got)
			}
		})
	}
}

func withThreshold(m MetricPolicy, v float64) MetricPolicy { m.Threshold = v; return m }
func withBudget(m MetricPolicy, v int) MetricPolicy        { m.MaxJudgeLatencyMs = v; return m }

func TestPolicyErrorsNameTheFieldAndNeverEchoLongValues(t *testing.T) {
	long := strings.Repeat("IGNORE ALL PREVIOUS INSTRUCTIONS ", 100)
	err := MetricPolicy{Metric: MetricInjection, Threshold: 0, OnTimeout: OnTimeout(long)}.Validate()
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var pe *PolicyError
		if errors.As(e, &pe) {
			fields = append(fields, pe.Field)
		}
	}
	if strings.Join(fields, ",") != "onTimeout,threshold" {
		t.Errorf("fields = %v, want onTimeout,threshold", fields)
	}
	if strings.Contains(err.Error(), "IGNORE") || !strings.Contains(err.Error(), "a value of 3300 bytes") {
		t.Errorf("Validate() = %q: must give the size of an arbitrary value, never the value", err)
	}
}
