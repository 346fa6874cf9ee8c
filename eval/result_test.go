package eval

import (
	"strings"
	"testing"
)

func TestBuildEvaluationResult(t *testing.T) {
	pol := TenantPolicy{TenantID: "acme", Aggregation: AggregationStrictest, Metrics: []MetricPolicy{
		{Metric: MetricInjection, Enabled: true, Threshold: 0.5, OnTimeout: FailClosed, Weight: 3},
		{Metric: MetricGroundedness, Enabled: true, Threshold: 0.5, OnTimeout: FailOpen, Weight: 1},
	}}
	weighted := pol
	weighted.Aggregation = AggregationWeighted
	inj := func(o Outcome, s float64) Verdict {
		return Verdict{Metric: MetricInjection, Outcome: o, Score: s, LatencyMs: 3}
	}
	gnd := func(o Outcome, s float64) Verdict {
		return Verdict{Metric: MetricGroundedness, Outcome: o, Score: s, LatencyMs: 4}
	}
	tests := []struct {
		name       string
		verdicts   []Verdict
		policy     TenantPolicy
		wantAction Action
		wantTrust  int
	}{
		{"all passing verdicts allow with trust from the worst score", []Verdict{inj(OutcomePass, 0.1), gnd(OutcomePass, 0.3)}, pol, ActionPass, 70},
		{"one block wins over a pass", []Verdict{inj(OutcomeBlock, 0.9), gnd(OutcomePass, 0)}, pol, ActionBlock, 10},
		{"a warn wins over a pass and caps trust", []Verdict{inj(OutcomePass, 0), gnd(OutcomeWarn, 0.1)}, pol, ActionWarn, 74},
		{"a fail_closed timeout blocks", []Verdict{inj(OutcomeTimeout, 0.5), gnd(OutcomePass, 0)}, pol, ActionBlock, 25},
		{"a fail_open timeout allows", []Verdict{inj(OutcomePass, 0), gnd(OutcomeTimeout, 0.5)}, pol, ActionPass, 50},
		{"weighted aggregation averages trust by weight", []Verdict{inj(OutcomePass, 0.2), gnd(OutcomePass, 0.4)}, weighted, ActionPass, 75},
		{"weighted aggregation never averages a block away", []Verdict{inj(OutcomePass, 0), gnd(OutcomeBlock, 0.6)}, weighted, ActionBlock, 25},
		{"no verdicts earn no trust", nil, pol, ActionPass, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := BuildEvaluationResult("req-9", tt.verdicts, tt.policy)
			if r.Action != tt.wantAction || r.TrustScore != tt.wantTrust {
				t.Errorf("action %s trust %d, want %s and %d", r.Action, r.TrustScore, tt.wantAction, tt.wantTrust)
			}
			if r.RequestID != "req-9" || len(r.Verdicts) != len(tt.verdicts) || len(r.PolicyErrors) != 0 {
				t.Errorf("result = %+v, want the request ID, every verdict and no policy errors", r)
			}
		})
	}
}

func TestBuildEvaluationResultReportsATimeoutThePolicyDoesNotCover(t *testing.T) {
	pol := TenantPolicy{TenantID: "acme", Metrics: []MetricPolicy{{Metric: MetricInjection, Threshold: 0.5, OnTimeout: FailOpen}}}
	r := BuildEvaluationResult("r", []Verdict{{Metric: MetricGroundedness, Outcome: OutcomeTimeout, Score: 0.5}}, pol)
	if r.Action != ActionBlock || len(r.PolicyErrors) != 1 || !strings.Contains(r.PolicyErrors[0], "check_groundedness") {
		t.Errorf("result = %+v, want block with a policy error naming check_groundedness", r)
	}
}

func TestTotalLatencyIsTheSumOfVerdictLatencies(t *testing.T) {
	r := BuildEvaluationResult("r", []Verdict{{Metric: MetricInjection, Outcome: OutcomePass, LatencyMs: 7}, {Metric: MetricGroundedness, Outcome: OutcomePass, LatencyMs: 5}}, TenantPolicy{})
	if r.TotalLatencyMs != 12 {
		t.Errorf("TotalLatencyMs = %d, want 12", r.TotalLatencyMs)
	}
}
