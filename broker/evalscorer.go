package broker

import (
	"context"
	"errors"

	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// EvalScorer adapts the scoring core (eval.Evaluator) to the handler core's Scorer. Refusals the
// caller can fix (no context, a disabled metric, an invalid policy) become tool errors; the rest
// stay internal failures.
type EvalScorer struct {
	Evaluator *eval.Evaluator
}

var _ tools.Scorer = EvalScorer{}

// FlagInjection screens the response and hands the metric the context items that travel with it.
func (s EvalScorer) FlagInjection(ctx context.Context, in tools.Input, p eval.MetricPolicy) (eval.Verdict, error) {
	v, err := s.Evaluator.FlagInjection(ctx, eval.InjectionInput{Tenant: in.Tenant, Text: in.Response, Context: in.Context, TaskDescription: in.TaskDescription}, p)
	return v, refusal(err)
}

// CheckGroundedness scores the response against its context items.
func (s EvalScorer) CheckGroundedness(ctx context.Context, in tools.Input, p eval.MetricPolicy) (eval.Verdict, error) {
	v, err := s.Evaluator.CheckGroundedness(ctx, eval.GroundednessInput{Tenant: in.Tenant, Response: in.Response, Context: in.Context, TaskDescription: in.TaskDescription}, p)
	return v, refusal(err)
}

// Build is eval.BuildEvaluationResult.
func (EvalScorer) Build(requestID string, verdicts []eval.Verdict, policy eval.TenantPolicy) eval.EvaluationResult {
	return eval.BuildEvaluationResult(requestID, verdicts, policy)
}

func refusal(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, eval.ErrNoContext):
		return &tools.InvalidArgumentError{Argument: "context", Problem: err.Error()}
	case errors.Is(err, eval.ErrMetricDisabled), errors.Is(err, eval.ErrInvalidPolicy):
		return &tools.ConfigError{Err: err}
	}
	return err
}
