package tools

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/eval"
)

// Tool names, as published in tools/list.
const (
	NameFlagInjection     = eval.MetricInjection
	NameCheckGroundedness = eval.MetricGroundedness
)

// PolicyError is a tool error about configuration: the tenant has no policy, or the policy does
// not enable the metric. Its message names what to configure.
type PolicyError struct {
	Tenant string
	Metric string
	// Missing is true when the tenant has no policy at all.
	Missing bool
}

// Error says what to add to the config file.
func (e *PolicyError) Error() string {
	if e.Missing {
		return fmt.Sprintf("tenant %q has no evaluation policy: add an entry with \"tenantId\": %q to \"tenants\" in the broker config file (--config), listing the metrics it may use", e.Tenant, e.Tenant)
	}
	return fmt.Sprintf("metric %q is not enabled for tenant %q: add {\"metric\": %q, \"enabled\": true, \"threshold\": ..., \"onTimeout\": \"fail_open\"|\"fail_closed\"} to that tenant's \"metrics\" in the broker config file", e.Metric, e.Tenant, e.Metric)
}

// ConfigError is a scorer's refusal caused by the tenant's configuration (an invalid or disabled
// metric policy); like PolicyError it is reported as a tool error that says what to change.
type ConfigError struct{ Err error }

// Error wraps the scorer's reason with where to fix it.
func (e *ConfigError) Error() string {
	return "the tenant's evaluation policy cannot be used: " + e.Err.Error() + " (fix it in the broker config file)"
}

// Unwrap exposes the scorer's error (eval.ErrInvalidPolicy, ...) to errors.Is.
func (e *ConfigError) Unwrap() error { return e.Err }

// Core holds the dependencies of the tool handlers. All fields but Logger and Now are required.
type Core struct {
	Scorer   Scorer
	Policies Policies
	Recorder Recorder
	// Logger gets one line per call; nil discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// FlagInjection is the flag_injection tool: it validates r, screens the response (and every
// context item that travels with it) for prompt injection under the tenant's policy, tightened by
// r's policyOverride, and returns the shaped result. Argument and policy problems are
// *InvalidArgumentError / *PolicyError (tool errors); anything else is an internal failure.
func (c *Core) FlagInjection(ctx context.Context, p auth.Principal, r ScoringRequest) (Output, error) {
	format, err := r.Validate(false)
	if err != nil {
		return Output{}, err
	}
	return c.evaluate(ctx, p, NameFlagInjection, r, format, c.Scorer.FlagInjection)
}

// CheckGroundedness is the check_groundedness tool: it validates r (at least one context item)
// and scores how well the response is supported by the context under the tenant's policy.
func (c *Core) CheckGroundedness(ctx context.Context, p auth.Principal, r ScoringRequest) (Output, error) {
	format, err := r.Validate(true)
	if err != nil {
		return Output{}, err
	}
	return c.evaluate(ctx, p, NameCheckGroundedness, r, format, c.Scorer.CheckGroundedness)
}

type metricFunc func(context.Context, Input, eval.MetricPolicy) (eval.Verdict, error)

func (c *Core) evaluate(ctx context.Context, p auth.Principal, metric string, r ScoringRequest, format string, score metricFunc) (Output, error) {
	if p.Tenant == "" {
		return Output{}, ErrNoPrincipal
	}
	policy, ok, err := c.policy(ctx, p.Tenant)
	if err != nil {
		return Output{}, err
	}
	if !ok {
		return Output{}, &PolicyError{Tenant: p.Tenant, Metric: metric, Missing: true}
	}
	mp, ok := metricPolicy(policy, metric)
	if !ok {
		return Output{}, &PolicyError{Tenant: p.Tenant, Metric: metric}
	}
	if r.PolicyOverride != nil {
		if mp, err = mp.Override(*r.PolicyOverride); err != nil {
			return Output{}, overrideError(err)
		}
		policy = withMetric(policy, mp)
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	start := now()
	in := r.input()
	in.Tenant = p.Tenant
	v, err := score(ctx, in, mp)
	if err != nil {
		if IsToolError(err) {
			return Output{}, err
		}
		return Output{}, fmt.Errorf("scoring %s: %w", metric, err)
	}
	digest, err := requestDigest(p.Tenant, metric, r)
	if err != nil {
		return Output{}, err
	}
	res := c.Scorer.Build(NewRequestID(), []eval.Verdict{v}, policy)
	res.RequestDigest, res.CorrelationID = digest, r.CorrelationID
	if res.TotalLatencyMs == 0 {
		res.TotalLatencyMs = now().Sub(start).Milliseconds()
	}
	note := audit.NoteFrom(ctx)
	note.SetDecidedBy(string(v.DecidedBy))
	note.SetRequestID(res.RequestID)
	rec := Record{Tenant: p.Tenant, Subject: p.Subject, Tool: metric, At: start, Result: res, Input: in, Policy: policy}
	var handle string
	if hr, ok := c.Recorder.(HandleRecorder); ok {
		handle, err = hr.RecordHandle(ctx, rec)
	} else {
		err = c.Recorder.Record(ctx, rec)
	}
	if err != nil {
		return Output{}, fmt.Errorf("recording %s evaluation: %w", metric, err)
	}
	c.logger().InfoContext(ctx, "tool call",
		slog.String("tool", metric), slog.Any("principal", p), slog.String("request_id", res.RequestID),
		slog.String("action", string(res.Action)), slog.String("outcome", string(v.Outcome)),
		slog.Int64("duration_ms", res.TotalLatencyMs))
	out := Shape(res, format)
	out.Handle = handle
	return out, nil
}

func (c *Core) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

func metricPolicy(p eval.TenantPolicy, metric string) (eval.MetricPolicy, bool) {
	for _, m := range p.Metrics {
		if m.Metric == metric && m.Enabled {
			return m, true
		}
	}
	return eval.MetricPolicy{}, false
}

// withMetric returns p with the policy of mp.Metric replaced by mp (a copy; p is not changed).
func withMetric(p eval.TenantPolicy, mp eval.MetricPolicy) eval.TenantPolicy {
	ms := make([]eval.MetricPolicy, len(p.Metrics))
	for i, m := range p.Metrics {
		if m.Metric == mp.Metric {
			m = mp
		}
		ms[i] = m
	}
	p.Metrics = ms
	return p
}

// overrideError turns eval's refusal of a policyOverride into a tool error on its field.
func overrideError(err error) error {
	var pe *eval.PolicyError
	if errors.As(err, &pe) {
		return &InvalidArgumentError{Argument: pe.Field, Problem: pe.Problem + ": " + pe.Fix}
	}
	return &InvalidArgumentError{Argument: "policyOverride", Problem: err.Error()}
}

// NewRequestID mints a request id: "ev_" and 128 random bits in hex. Every request gets its own,
// and it names the stored evaluation and its audit row too.
func NewRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return "ev_" + hex.EncodeToString(b)
}

// requestDigest is the hex SHA-256 of who asked what: identical calls by the same tenant share it
// on every transport, which makes them comparable and retries recognisable.
func requestDigest(tenant, metric string, r ScoringRequest) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("deriving the request digest: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(tenant))
	h.Write([]byte{0})
	h.Write([]byte(metric))
	h.Write([]byte{0})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// IsToolError reports whether err is the caller's to fix (a bad argument or a missing policy) and
// so belongs in a tool result with isError, rather than a protocol error.
func IsToolError(err error) bool {
	var ia *InvalidArgumentError
	var pe *PolicyError
	var ce *ConfigError
	return errors.As(err, &ia) || errors.As(err, &pe) || errors.As(err, &ce) || errors.Is(err, ErrNoPrincipal)
}
