package eval

import (
	"testing"
)

// Regression: the judge cache was keyed by model, metric version and request only, so tenant
// beta got decidedBy "cache" for a text only acme had sent (acme's judge answer, and the fact
// that acme sent the text, leaked across tenants).
func TestJudgeCacheIsNeverSharedAcrossTenants(t *testing.T) {
	judge := FixedJudge(0.8, "manipulative")
	e := &Evaluator{Judge: judge, Cache: NewMemoryCache(8)}
	ctxItems := []ContextItem{{ID: "a", Source: "doc", Content: "The report covers the third quarter. Revenue was 4 million dollars in that quarter."}}
	// A claim the context neither states nor contradicts: unsupported, but not clearly so.
	const response = "Revenue grew strongly."
	// Thresholds at the deterministic score put both samples in the ambiguous band whatever the
	// metrics' algorithms score them, so the judge (and its cache) decide.
	inj := policyFor(MetricInjection, FailClosed)
	inj.Threshold = atScore(DetectInjection(ambiguousText).Score)
	gnd := policyFor(MetricGroundedness, FailClosed)
	// Just above the score: a threshold at it would make a high score clear (Band).
	gnd.Threshold = atScore(ScoreGroundedness(GroundednessInput{Response: response, Context: ctxItems}).Score + 0.1)
	tests := []struct {
		name string
		run  func(tenant string) (Verdict, error)
	}{
		{"flag_injection", func(tenant string) (Verdict, error) {
			return e.FlagInjection(t.Context(), InjectionInput{Tenant: tenant, Text: ambiguousText}, inj)
		}},
		{"check_groundedness", func(tenant string) (Verdict, error) {
			return e.CheckGroundedness(t.Context(), GroundednessInput{Tenant: tenant, Response: response, Context: ctxItems}, gnd)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acme, err := tt.run("acme")
			if err != nil {
				t.Fatal(err)
			}
			if acme.DecidedBy != DecidedByJudge {
				t.Fatalf("the sample was decided by %s, want the judge", acme.DecidedBy)
			}
			beta, err := tt.run("beta")
			if err != nil {
				t.Fatal(err)
			}
			if beta.DecidedBy == DecidedByCache {
				t.Fatalf("tenant beta got decidedBy cache for a text only acme had sent")
			}
			again, _ := tt.run("acme")
			if again.DecidedBy != DecidedByCache {
				t.Errorf("acme's own repeat decided by %s, want cache", again.DecidedBy)
			}
			nobody, _ := tt.run("")
			if nobody.DecidedBy == DecidedByCache {
				t.Errorf("a request without a tenant was answered from the cache")
			}
		})
	}
}

func TestCacheKeySeparatesEveryField(t *testing.T) {
	base := JudgeRequest{Metric: MetricGroundedness, Response: "r", Task: "t", Hint: "h",
		Context: []ContextItem{{ID: "a", Source: "s", Content: "c"}}}
	key := func(tenant, model, version string, req JudgeRequest) string {
		k, ok := CacheKey(tenant, model, version, req)
		if !ok {
			t.Fatalf("CacheKey(%q, ...) not ok", tenant)
		}
		return k
	}
	want := key("acme", "m", "v1", base)
	variants := map[string]string{
		"tenant":         key("beta", "m", "v1", base),
		"model":          key("acme", "m2", "v1", base),
		"metric version": key("acme", "m", "v2", base),
	}
	mut := func(f func(*JudgeRequest)) JudgeRequest {
		r := base
		r.Context = append([]ContextItem(nil), base.Context...)
		f(&r)
		return r
	}
	for name, r := range map[string]JudgeRequest{
		"metric":         mut(func(r *JudgeRequest) { r.Metric = MetricInjection }),
		"response":       mut(func(r *JudgeRequest) { r.Response = "r2" }),
		"task":           mut(func(r *JudgeRequest) { r.Task = "" }),
		"hint":           mut(func(r *JudgeRequest) { r.Hint = "h2" }),
		"context id":     mut(func(r *JudgeRequest) { r.Context[0].ID = "b" }),
		"context source": mut(func(r *JudgeRequest) { r.Context[0].Source = "s2" }),
		"context text":   mut(func(r *JudgeRequest) { r.Context[0].Content = "c2" }),
		"moved text":     mut(func(r *JudgeRequest) { r.Response, r.Task = "rt", "" }),
	} {
		variants[name] = key("acme", "m", "v1", r)
	}
	for name, k := range variants {
		if k == want {
			t.Errorf("changing the %s kept the cache key", name)
		}
	}
	if _, ok := CacheKey("", "m", "v1", base); ok {
		t.Error("CacheKey without a tenant is ok; an answer belonging to nobody must not be cached")
	}
}

// atScore is a threshold equal to a positive deterministic score (a score of 0 always passes).
func atScore(s float64) float64 {
	return min(1, max(s, 0.05))
}
