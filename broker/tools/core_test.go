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
	big := strings.Repeat("a", MaxResponseChars+1)
	many := make([]eval.ContextItem, MaxContextItems+1)
	for i := range many {
		many[i] = eval.ContextItem{Content: "x"}
	}
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		call func(*Core) error
		want string
	}{
		{"an empty response", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: ""})
			return err
		}, `invalid argument "response": must not be empty`},
		{"a blank response", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "  "})
			return err
		}, `invalid argument "response": must not be only whitespace`},
		{"an oversized response", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: big})
			return err
		}, `invalid argument "response": is 262145 characters; the limit is 262144`},
		{"a non-ASCII response one character over the limit", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: strings.Repeat("é", MaxResponseChars+1)})
			return err
		}, `invalid argument "response": is 262145 characters; the limit is 262144`},
		{"an unknown format", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "x", ResponseFormat: "verbose"})
			return err
		}, `invalid argument "response_format": must be "concise" or "detailed" (got a string of 7 characters)`},
		{"invalid UTF-8", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "a\xffb"})
			return err
		}, `invalid argument "response": is not valid UTF-8`},
		{"groundedness without context", func(c *Core) error {
			_, err := c.CheckGroundedness(t.Context(), alice, ScoringRequest{Response: "x"})
			return err
		}, `invalid argument "context": needs at least one item`},
		{"too many context items", func(c *Core) error {
			_, err := c.CheckGroundedness(t.Context(), alice, ScoringRequest{Response: "x", Context: many})
			return err
		}, `invalid argument "context": has 65 items; the limit is 64`},
		{"an empty context item", func(c *Core) error {
			_, err := c.CheckGroundedness(t.Context(), alice, ScoringRequest{Response: "x", Context: []eval.ContextItem{{Content: "a"}, {Content: ""}}})
			return err
		}, `invalid argument "context[1].content": must not be empty`},
		{"a duplicate context id, including a defaulted one", func(c *Core) error {
			_, err := c.CheckGroundedness(t.Context(), alice, ScoringRequest{Response: "x", Context: []eval.ContextItem{{ID: "ctx-2", Content: "a"}, {Content: "b"}}})
			return err
		}, `invalid argument "context[1].id": is used twice`},
		{"a correlation id with spaces", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "x", CorrelationID: "a b"})
			return err
		}, `invalid argument "correlationId": must be 1 to 128 printable ASCII characters without spaces`},
		{"an override that loosens the threshold", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "x", PolicyOverride: &eval.PolicyOverride{Threshold: f(0.9)}})
			return err
		}, `invalid argument "policyOverride.threshold": threshold 0.9 is above the tenant's 0.5`},
		{"an override that fails open", func(c *Core) error {
			_, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "x", PolicyOverride: &eval.PolicyOverride{OnTimeout: eval.FailOpen}})
			return err
		}, `invalid argument "policyOverride.onTimeout": fail_open would loosen the tenant's fail_closed`},
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

func TestLimitsCountCharactersNotBytes(t *testing.T) {
	c, _, _ := newTestCore()
	// 262,144 two-byte characters are 524,288 bytes: within the schema's maxLength, so accepted.
	if _, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: strings.Repeat("é", MaxResponseChars)}); err != nil {
		t.Fatalf("a response of exactly %d non-ASCII characters: %v", MaxResponseChars, err)
	}
	if _, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "x", Context: []eval.ContextItem{{ID: strings.Repeat("ü", MaxContextIDChars), Content: strings.Repeat("日", MaxContentChars)}}}); err != nil {
		t.Fatalf("a context item at its character limits: %v", err)
	}
}

func TestOverrideTightensTheVerdictAndIsPinned(t *testing.T) {
	c, _, rec := newTestCore()
	f := func(v float64) *float64 { return &v }
	out, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "x", PolicyOverride: &eval.PolicyOverride{Threshold: f(0.3)}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdicts[0].Threshold != 0.3 {
		t.Errorf("verdict threshold = %v, want the override's 0.3", out.Verdicts[0].Threshold)
	}
	if m, _ := rec.Records()[0].Policy.Metric(eval.MetricInjection); m.Threshold != 0.3 {
		t.Errorf("the pinned policy has threshold %v, want 0.3: rederiving must use what the request ran under", m.Threshold)
	}
}

func TestPolicyProblemsNameWhatToConfigure(t *testing.T) {
	c, _, _ := newTestCore()
	_, err := c.FlagInjection(t.Context(), auth.Principal{Tenant: "globex", Subject: "bob"}, ScoringRequest{Response: "hi"})
	var pe *PolicyError
	if !errors.As(err, &pe) || !pe.Missing {
		t.Fatalf("error = %v, want a missing-policy PolicyError", err)
	}
	for _, want := range []string{`"tenantId": "globex"`, `"tenants"`, "--config"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	_, err = c.CheckGroundedness(t.Context(), alice, ScoringRequest{Response: "hi", Context: []eval.ContextItem{{Content: "x"}}})
	if !errors.As(err, &pe) || pe.Missing || !strings.Contains(err.Error(), `metric "check_groundedness" is not enabled for tenant "acme"`) {
		t.Fatalf("error = %v, want a disabled-metric PolicyError", err)
	}
	if _, err := c.FlagInjection(t.Context(), auth.Principal{}, ScoringRequest{Response: "hi"}); !errors.Is(err, ErrNoPrincipal) {
		t.Errorf("a call without principal: error = %v, want ErrNoPrincipal", err)
	}
}

func TestConciseKeepsEveryAuditableField(t *testing.T) {
	c, _, rec := newTestCore()
	concise, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	detailed, err := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "hi", ResponseFormat: FormatDetailed})
	if err != nil {
		t.Fatal(err)
	}
	cb, _ := json.Marshal(concise)
	db, _ := json.Marshal(detailed)
	for _, field := range []string{"requestId", "requestDigest", "action", "trustScore", "totalLatencyMs", "metric", "outcome", "score",
		"threshold", "reason", "citedContextIds", "decidedBy", "judge", "metricVersion", "latencyMs"} {
		for name, b := range map[string][]byte{"concise": cb, "detailed": db} {
			if !strings.Contains(string(b), `"`+field+`"`) {
				t.Errorf("%s output lacks %q: %s", name, field, b)
			}
		}
	}
	if strings.Contains(string(cb), `"evidence"`) || !strings.Contains(string(db), `"evidence"`) {
		t.Errorf("evidence: concise %s, detailed %s; want it only in detailed", cb, db)
	}
	if n := len(rec.Records()); n != 2 {
		t.Errorf("recorded %d evaluations, want 2", n)
	}
}

func TestConciseShortensLongReasons(t *testing.T) {
	long := eval.EvaluationResult{Verdicts: []eval.Verdict{{Metric: eval.MetricInjection, Reason: strings.Repeat("é", 500)}}}
	got := Shape(long, FormatConcise).Verdicts[0].Reason
	if n := len([]rune(got)); n != ConciseReasonChars || !strings.HasSuffix(got, "…") {
		t.Errorf("concise reason is %d characters (%q...), want %d ending in …", n, got[:10], ConciseReasonChars)
	}
	if got := Shape(long, FormatDetailed).Verdicts[0].Reason; len([]rune(got)) != 500 {
		t.Errorf("detailed reason was shortened to %d characters", len([]rune(got)))
	}
}

// Regression: requestId was a digest of the arguments, so identical calls shared one. Each
// request now gets its own id; the digest is a separate field.
func TestRequestIDIsUniqueAndTheDigestIsShared(t *testing.T) {
	c, _, _ := newTestCore()
	a, _ := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "same"})
	b, _ := c.FlagInjection(t.Context(), auth.Principal{Tenant: "acme", Subject: "carol"}, ScoringRequest{Response: "same"})
	if a.RequestID == b.RequestID || !strings.HasPrefix(a.RequestID, "ev_") {
		t.Errorf("request ids %q and %q: want distinct, prefixed ev_", a.RequestID, b.RequestID)
	}
	if a.RequestDigest != b.RequestDigest || len(a.RequestDigest) != 64 {
		t.Errorf("request digests %q and %q: want equal SHA-256 hex", a.RequestDigest, b.RequestDigest)
	}
	other, _ := c.FlagInjection(t.Context(), alice, ScoringRequest{Response: "different"})
	if other.RequestDigest == a.RequestDigest {
		t.Error("different arguments share a request digest")
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
