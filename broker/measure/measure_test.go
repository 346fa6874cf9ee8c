package measure

import (
	"context"
	"errors"
	"testing"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/config"
	"github.com/mcp-sentinel/sentinel/eval"
)

func TestTokensUsesARealBPE(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
	}
	for _, tt := range tests {
		got, err := Tokens(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Tokens(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestManifestReportsOneDigest(t *testing.T) {
	rep, err := Manifest(t.Context(), broker.EvalScorer{Evaluator: &eval.Evaluator{}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Calls != 5 || rep.DistinctDigests != 1 || len(rep.Digest) != 64 || rep.ManifestTokens <= 0 || rep.ResultBytes <= 0 {
		t.Errorf("Manifest() = %+v", rep)
	}
	if _, err := Manifest(context.Background(), broker.EvalScorer{Evaluator: &eval.Evaluator{}}, 0); err == nil {
		t.Error("Manifest(calls=0) succeeded")
	}
}

func TestConciseCostsFewerTokens(t *testing.T) {
	rep, err := Formats(t.Context(), broker.EvalScorer{Evaluator: &eval.Evaluator{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Samples == 0 || rep.ConciseTokens <= 0 || rep.ConciseTokens >= rep.DetailedTokens || rep.SavingPercent <= 0 {
		t.Errorf("Formats() = %+v, want concise < detailed", rep)
	}
}

// A dev tenant whose policy names a judge is scored with that judge: the scorer the command
// builds from the config file knows it, and one that does not is refused by name rather than
// measured under another policy.
func TestFormatsUseTheConfiguredPolicyAndItsNamedJudge(t *testing.T) {
	pol := broker.DevPolicy()
	for i := range pol.Metrics {
		pol.Metrics[i].Judge = "recorded"
	}
	cfg := &config.Config{Tenants: []eval.TenantPolicy{pol}}
	if _, err := Formats(t.Context(), broker.EvalScorer{Evaluator: &eval.Evaluator{}}, cfg); !errors.Is(err, eval.ErrUnknownJudge) {
		t.Fatalf("Formats without the named judge: %v, want ErrUnknownJudge", err)
	}
	judge := eval.FixedJudge(0.1, "recorded")
	rep, err := Formats(t.Context(), broker.EvalScorer{Evaluator: &eval.Evaluator{Judges: map[string]eval.Judge{"recorded": judge}}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Samples == 0 || rep.ConciseTokens >= rep.DetailedTokens {
		t.Errorf("Formats() = %+v", rep)
	}
}
