package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"
)

// Errors a caller can act on. Each is returned before any metric work is done.
var (
	// ErrNoContext: check_groundedness was called without context items. There is nothing to be
	// grounded in, so the call is a caller error, not an ungrounded verdict.
	ErrNoContext = errors.New("check_groundedness needs at least one context item: pass the source material the response must be grounded in")
	// ErrMetricDisabled: the policy turns this metric off; skip it rather than record a verdict.
	ErrMetricDisabled = errors.New("metric is disabled by the tenant policy")
	// ErrWrongMetric: the MetricPolicy passed is for another metric.
	ErrWrongMetric = errors.New("the metric policy is for a different metric")
	// ErrUnknownJudge: the metric policy names a judge the Evaluator does not have. It wraps
	// ErrInvalidPolicy: the fix is in the configuration.
	ErrUnknownJudge = fmt.Errorf("%w: the policy names a judge that is not configured", ErrInvalidPolicy)
)

// Log attribute keys, fixed here so every line is queryable the same way.
const (
	logKeyMetric    = "metric"
	logKeyOutcome   = "outcome"
	logKeyDecidedBy = "decided_by"
	logKeyScore     = "score"
	logKeyLatencyMs = "latency_ms"
	logKeyJudge     = "judge"
)

// InjectionInput is the text flag_injection scores: a tool result, a tool description, or an
// agent's output.
type InjectionInput struct {
	// Tenant is whose request this is; it scopes the judge cache (an answer is never reused
	// across tenants) and is never sent to the judge. Empty disables the cache.
	Tenant string `json:"-"`
	Text   string `json:"text"`
	// TaskDescription is what the text was produced for, passed to the judge as the task.
	TaskDescription string `json:"taskDescription,omitempty"`
	// Context is the material the text was produced from or travels with (the same items a
	// groundedness request carries); an instruction hidden there is screened too.
	Context []ContextItem `json:"context,omitempty"`
}

// GroundednessInput is a response and the context it must be grounded in. Citations, when set,
// replace the ones ExtractCitations would find in Response.
type GroundednessInput struct {
	// Tenant scopes the judge cache, as in InjectionInput.
	Tenant string `json:"-"`
	// TaskDescription is what the response was produced for, passed to the judge as the task.
	TaskDescription string        `json:"taskDescription,omitempty"`
	Response        string        `json:"response"`
	Context         []ContextItem `json:"context"`
	Citations       []Citation    `json:"citations,omitempty"`
}

// Evaluator runs metrics under a policy: the deterministic tier first, the Judge only for the
// ambiguous band, inside the metric's own latency budget. The zero value works (no judge, no
// cache, discard logs, wall clock).
type Evaluator struct {
	// Judge decides the ambiguous band of metrics whose policy names no judge; nil means such
	// ambiguous cases get outcome warn, decided by the heuristic tier.
	Judge Judge
	// Judges are the named judges a metric policy may choose (MetricPolicy.Judge), so each tenant
	// and metric can have its own; nil means only the default Judge.
	Judges map[string]Judge
	// Cache, when set, answers repeated ambiguous cases without calling the judge (DecidedBy cache).
	Cache JudgeCache
	// Logger receives one line per verdict; nil discards.
	Logger *slog.Logger
	// Now is the clock for latency; nil means time.Now.
	Now func() time.Time
}

func (e *Evaluator) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Evaluator) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// checkPolicy validates the policy for the named metric.
func checkPolicy(metric string, pol MetricPolicy) error {
	if pol.Metric != metric {
		return fmt.Errorf("running %s with a policy for %q: %w", metric, pol.Metric, ErrWrongMetric)
	}
	if err := pol.Validate(); err != nil {
		return fmt.Errorf("running %s: %w", metric, err)
	}
	if !pol.Enabled {
		return fmt.Errorf("running %s: %w", metric, ErrMetricDisabled)
	}
	return nil
}

// judgeFor is the judge the metric policy chooses: a named one, or the default.
func (e *Evaluator) judgeFor(pol MetricPolicy) (Judge, error) {
	if pol.Judge == "" {
		return e.Judge, nil
	}
	if j, ok := e.Judges[pol.Judge]; ok && j != nil {
		return j, nil
	}
	return nil, fmt.Errorf("running %s: judge %q: %w; configure it under \"judges\" or remove \"judge\" from the policy", pol.Metric, pol.Judge, ErrUnknownJudge)
}

// judgeName is what a verdict pins for a judge: its model and, for a versioned judge, the prompt
// and reply-parser versions it used.
func judgeName(j Judge, metric string) string {
	if vj, ok := j.(VersionedJudge); ok {
		return j.Model() + " (" + vj.Versions(metric) + ")"
	}
	return j.Model()
}

// FlagInjection scores in.Text, and every context item it travels with, for prompt injection.
// Clear cases are decided by the deterministic tier (ScreenInjection); scores within
// AmbiguousMargin of the threshold go to the judge the policy chooses.
func (e *Evaluator) FlagInjection(ctx context.Context, in InjectionInput, pol MetricPolicy) (Verdict, error) {
	if err := checkPolicy(MetricInjection, pol); err != nil {
		return Verdict{}, err
	}
	if _, err := e.judgeFor(pol); err != nil {
		return Verdict{}, err
	}
	start := e.now()
	scan := ScreenInjection(in)
	v := Verdict{Metric: MetricInjection, Score: scan.Score, Threshold: pol.Threshold, Evidence: scan.Evidence,
		DecidedBy: DecidedByHeuristic, MetricVersion: InjectionMetricVersion}
	hint := fmt.Sprintf("deterministic score %.3f; families %v", scan.Score, scan.Families)
	if len(scan.Families) == 0 {
		hint = fmt.Sprintf("deterministic score %.3f; no pattern family matched", scan.Score)
	}
	err := e.decide(ctx, in.Tenant, &v, pol, JudgeRequest{Metric: MetricInjection, Response: in.Text, Context: in.Context, Task: in.TaskDescription, Hint: hint}, hint)
	v.LatencyMs = e.now().Sub(start).Milliseconds()
	e.log(ctx, v)
	return v, err
}

// CheckGroundedness scores how far a response strays from its context (1 = ungrounded). Zero
// context items is ErrNoContext, returned before anything else. Scores within GroundednessMargin
// of the threshold go to the judge the policy chooses.
func (e *Evaluator) CheckGroundedness(ctx context.Context, in GroundednessInput, pol MetricPolicy) (Verdict, error) {
	if len(in.Context) == 0 {
		return Verdict{}, ErrNoContext
	}
	if err := checkPolicy(MetricGroundedness, pol); err != nil {
		return Verdict{}, err
	}
	if _, err := e.judgeFor(pol); err != nil {
		return Verdict{}, err
	}
	start := e.now()
	g := ScoreGroundedness(in)
	v := Verdict{Metric: MetricGroundedness, Score: g.Score, Threshold: pol.Threshold, Evidence: g.Evidence,
		CitedContextIDs: g.CitedContextIDs, DecidedBy: DecidedByHeuristic, MetricVersion: GroundednessMetricVersion}
	err := e.decide(ctx, in.Tenant, &v, pol, JudgeRequest{Metric: MetricGroundedness, Response: in.Response, Context: in.Context, Task: in.TaskDescription, Hint: g.Summary}, g.Summary)
	v.LatencyMs = e.now().Sub(start).Milliseconds()
	e.log(ctx, v)
	return v, err
}

// decide sets the outcome: from the heuristic score when it is clear, else from the cache or the
// judge. The cache is consulted only under tenant's own keys. The only error is the caller's own
// cancellation.
func (e *Evaluator) decide(ctx context.Context, tenant string, v *Verdict, pol MetricPolicy, req JudgeRequest, summary string) error {
	switch BandFor(v.Metric, v.Score, pol.Threshold) {
	case 1:
		v.Outcome, v.Reason = OutcomeBlock, "clear: "+summary
		return nil
	case -1:
		v.Outcome, v.Reason = OutcomePass, "clear: "+summary
		return nil
	}
	judge, _ := e.judgeFor(pol) // checked before the metric ran
	if judge == nil {
		v.Outcome, v.Reason = OutcomeWarn, "ambiguous and no judge is configured: "+summary
		return nil
	}
	v.Judge = judgeName(judge, v.Metric)
	key, cacheable := CacheKey(tenant, v.Judge, v.MetricVersion, req)
	cacheable = cacheable && e.Cache != nil
	if cacheable {
		if jv, ok := e.Cache.Get(key); ok {
			v.DecidedBy, v.Score = DecidedByCache, round3(jv.Score)
			v.Outcome, v.Reason = outcomeFor(jv.Score, pol.Threshold), "judge (cached): "+jv.Reason
			return nil
		}
	}
	jv, err := e.callJudge(ctx, judge, pol.JudgeBudget(), req)
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return fmt.Errorf("running %s: waiting for judge %s: %w", v.Metric, v.Judge, err)
		}
		v.Outcome = OutcomeTimeout
		v.Reason = fmt.Sprintf("judge gave no verdict within %d ms (%v); onTimeout=%s; heuristic: %s",
			pol.JudgeBudget().Milliseconds(), err, pol.OnTimeout, summary)
		return nil
	}
	if cacheable {
		e.Cache.Put(key, jv)
	}
	v.DecidedBy, v.Score = DecidedByJudge, round3(jv.Score)
	v.Outcome, v.Reason = outcomeFor(jv.Score, pol.Threshold), "judge: "+jv.Reason
	return nil
}

func outcomeFor(score, threshold float64) Outcome {
	if score >= threshold {
		return OutcomeBlock
	}
	return OutcomePass
}

// errBadJudgeScore: the judge answered with a score outside [0,1].
var errBadJudgeScore = errors.New("judge score is not a number in [0,1]")

// callJudge enforces the metric's budget on our side: the judge runs under a context deadline and
// we stop waiting at the deadline even if the judge ignores it.
func (e *Evaluator) callJudge(ctx context.Context, judge Judge, budget time.Duration, req JudgeRequest) (JudgeVerdict, error) {
	jctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	type result struct {
		v   JudgeVerdict
		err error
	}
	ch := make(chan result, 1) // buffered: a late judge never blocks on send
	go func() {
		v, err := judge.Judge(jctx, req)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return JudgeVerdict{}, fmt.Errorf("asking judge: %w", r.err)
		}
		if math.IsNaN(r.v.Score) || r.v.Score < 0 || r.v.Score > 1 {
			return JudgeVerdict{}, fmt.Errorf("asking judge: score %v: %w", r.v.Score, errBadJudgeScore)
		}
		return r.v, nil
	case <-jctx.Done():
		return JudgeVerdict{}, fmt.Errorf("asking judge: %w", jctx.Err())
	}
}

// ActionFor is the action one verdict asks for under a policy. A timeout takes the metric's
// onTimeout: fail_open passes, fail_closed blocks. ok is false when the policy makes no choice
// for that metric; the caller must then report it (BuildEvaluationResult blocks and says why).
func ActionFor(v Verdict, policy TenantPolicy) (a Action, ok bool) {
	switch v.Outcome {
	case OutcomePass:
		return ActionPass, true
	case OutcomeWarn:
		return ActionWarn, true
	case OutcomeBlock:
		return ActionBlock, true
	case OutcomeTimeout:
		m, found := policy.Metric(v.Metric)
		switch {
		case found && m.OnTimeout == FailOpen:
			return ActionPass, true
		case found && m.OnTimeout == FailClosed:
			return ActionBlock, true
		}
	}
	return ActionBlock, false
}

func (e *Evaluator) log(ctx context.Context, v Verdict) {
	e.logger().LogAttrs(ctx, slog.LevelInfo, "eval verdict",
		slog.String(logKeyMetric, v.Metric), slog.String(logKeyOutcome, string(v.Outcome)),
		slog.String(logKeyDecidedBy, string(v.DecidedBy)), slog.Float64(logKeyScore, v.Score),
		slog.Int64(logKeyLatencyMs, v.LatencyMs), slog.String(logKeyJudge, v.Judge))
}
