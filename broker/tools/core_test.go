package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/eval"
)

type policies map[string]eval.TenantPolicy

func (p policies) Policy(t string) (eval.TenantPolicy, bool) { v, ok := p[t]; return v, ok }

// fixedScorer returns one canned verdict per metric and records what it was asked.
type fixedScorer struct{ calls int }

func (s *fixedScorer) FlagInjection(_ context.Context, in Input, p eval.MetricPolicy) (eval.Verdict, error) {
	s.calls++
	return eval.Verdict{Metric: eval.MetricInjection, Outcome: eval.OutcomeWarn, Score: 0.6, Threshold: p.Threshold, Reason: "r",
		Evidence: []eval.Span{{Start: 1, End: 2, Text: "x"}}, DecidedBy: eval.DecidedByJudge, Judge: "stub", MetricVersion: "v1", LatencyMs: 7}, nil
}

func (s *fixedScorer) CheckGroundedness(_ context.Context, in Input, p eval.MetricPolicy) (eval.Verdict, error) {
	s.calls++
	ids := make([]string, 0, len(in.Context))
	for _, c := range in.Context {
		ids = append(ids, c.ID)
	}
	return eval.Verdict{Metric: eval.MetricGroundedness, Outcome: eval.OutcomePass, Score: 0.1, CitedContextIDs: ids, DecidedBy: eval.DecidedByHeuristic, MetricVersion: "v1"}, nil
}

func (s *fixedScorer) Build(id string, vs []eval.Verdict, _ eval.TenantPolicy) eval.EvaluationResult {
	return eval.EvaluationResult{RequestID: id, Verdicts: vs, Action: eval.ActionWarn, TrustScore: 60, TotalLatencyMs: 9}
}

func newTestCore() (*Core, *fixedScorer, *MemoryRecorder) {
	s := &fixedScorer{}
	rec := &MemoryRecorder{}
	return &Core{Scorer: s, Recorder: rec, Policies: policies{
		"acme": {TenantID: "acme", Metrics: []eval.MetricPolicy{
			{Metric: eval.MetricInjection, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailClosed},
			{Metric: eval.MetricGroundedness, Enabled: false},
		}},
	}}, s, rec
}

var alice = auth.Principal{Tenant: "acme", Subject: "alice"}

func TestArgumentsAreValidatedBeforeScoring(t *testing.T) {
	big := strings.Repeat("a", MaxResponseBytes+1)
	many := make([]ContextArg, MaxContextItems+1)
	for i := range many {
		many[i] = ContextArg{Text: "x"}
	}
	tests := []struct {
		name string
		call func(*Core) error
		want string
	}{
		{"an empty response", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, FlagInjectionArgs{Response: "  "})
			return err
		}, `invalid argument "response": must not be empty`},
		{"an oversized response", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, FlagInjectionArgs{Response: big})
			return err
		}, `invalid argument "response": is 262145 bytes; the limit is 262144`},
		{"an unknown format", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, FlagInjectionArgs{Response: "x", ResponseFormat: "verbose"})
			return err
		}, `invalid argument "response_format": "verbose" is not one of "concise", "detailed"`},
		{"invalid UTF-8", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, FlagInjectionArgs{Response: "a\xffb"})
			return err
		}, `invalid argument "response": is not valid UTF-8`},
		{"groundedness without context", func(c *Core) error {
			_, err := c.CheckGroundedness(t.Context(), alice, CheckGroundednessArgs{Response: "x"})
			return err
		}, `invalid argument "context": needs at least one item`},
		{"too many context items", func(c *Core) error {
			_, err := c.CheckGroundedness(t.Context(), alice, CheckGroundednessArgs{Response: "x", Context: many})
			return err
		}, `invalid argument "context": has 65 items; the limit is 64`},
		{"an empty context item", func(c *Core) error {
			_, err := c.CheckGroundedness(t.Context(), alice, CheckGroundednessArgs{Response: "x", Context: []ContextArg{{Text: "a"}, {Text: ""}}})
			return err
		}, `invalid argument "context[1].text": must not be empty`},
		{"a duplicate context id, including a defaulted one", func(c *Core) error {
			_, err := c.CheckGroundedness(t.Context(), alice, CheckGroundednessArgs{Response: "x", Context: []ContextArg{{ID: "ctx-2", Text: "a"}, {Text: "b"}}})
			return err
		}, `invalid argument "context[1].id": "ctx-2" is used twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s, _ := newTestCore()
			err := tt.call(c)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want prefix %q", err, tt.want)
			}
			if !IsToolError(err) {
				t.Errorf("IsToolError(%v) = false, want true", err)
			}
			if s.calls != 0 {
				t.Errorf("scorer called %d times for an invalid call", s.calls)
			}
		})
	}
}

func TestPolicyProblemsNameWhatToConfigure(t *testing.T) {
	c, _, _ := newTestCore()
	_, err := c.FlagInjection(t.Context(), auth.Principal{Tenant: "globex", Subject: "bob"}, FlagInjectionArgs{Response: "hi"})
	var pe *PolicyError
	if !errors.As(err, &pe) || !pe.Missing {
		t.Fatalf("error = %v, want a missing-policy PolicyError", err)
	}
	for _, want := range []string{`"tenantId": "globex"`, `"tenants"`, "--config"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	_, err = c.CheckGroundedness(t.Context(), alice, CheckGroundednessArgs{Response: "hi", Context: []ContextArg{{Text: "x"}}})
	if !errors.As(err, &pe) || pe.Missing || !strings.Contains(err.Error(), `metric "check_groundedness" is not enabled for tenant "acme"`) {
		t.Fatalf("error = %v, want a disabled-metric PolicyError", err)
	}
	if _, err := c.FlagInjection(t.Context(), auth.Principal{}, FlagInjectionArgs{Response: "hi"}); !errors.Is(err, ErrNoPrincipal) {
		t.Errorf("a call without principal: error = %v, want ErrNoPrincipal", err)
	}
}

func TestConciseDropsWhatDetailedKeeps(t *testing.T) {
	c, _, rec := newTestCore()
	concise, err := c.FlagInjection(t.Context(), alice, FlagInjectionArgs{Response: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	detailed, err := c.FlagInjection(t.Context(), alice, FlagInjectionArgs{Response: "hi", ResponseFormat: FormatDetailed})
	if err != nil {
		t.Fatal(err)
	}
	cb, _ := json.Marshal(concise)
	db, _ := json.Marshal(detailed)
	for _, absent := range []string{"evidence", "threshold", "decidedBy", "judge", "metricVersion", "latencyMs", "totalLatencyMs"} {
		if strings.Contains(string(cb), `"`+absent+`"`) {
			t.Errorf("concise output has %q: %s", absent, cb)
		}
		if !strings.Contains(string(db), `"`+absent+`"`) {
			t.Errorf("detailed output lacks %q: %s", absent, db)
		}
	}
	if len(cb) >= len(db) {
		t.Errorf("concise (%d bytes) is not smaller than detailed (%d bytes)", len(cb), len(db))
	}
	if concise.RequestID == detailed.RequestID {
		t.Error("different arguments produced the same request id")
	}
	if n := len(rec.Records()); n != 2 {
		t.Errorf("recorded %d evaluations, want 2", n)
	}
}

func TestRequestIDIsADigestOfTheCall(t *testing.T) {
	c, _, _ := newTestCore()
	a, _ := c.FlagInjection(t.Context(), alice, FlagInjectionArgs{Response: "same"})
	b, _ := c.FlagInjection(t.Context(), auth.Principal{Tenant: "acme", Subject: "carol"}, FlagInjectionArgs{Response: "same"})
	if a.RequestID != b.RequestID || !strings.HasPrefix(a.RequestID, "ev_") {
		t.Errorf("request ids %q and %q: want equal, prefixed ev_", a.RequestID, b.RequestID)
	}
}

func TestMemoryRecorderKeepsTheNewest(t *testing.T) {
	m := &MemoryRecorder{Limit: 2}
	for _, tool := range []string{"a", "b", "c"} {
		if err := m.Record(t.Context(), Record{Tool: tool}); err != nil {
			t.Fatal(err)
		}
	}
	got := m.Records()
	if len(got) != 2 || got[0].Tool != "b" || got[1].Tool != "c" {
		t.Errorf("Records() = %+v, want b, c", got)
	}
}
