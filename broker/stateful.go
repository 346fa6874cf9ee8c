package broker

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

	"github.com/mcp-sentinel/sentinel/broker/handle"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// StoreTimeout bounds each store operation a tool call makes, so a stuck database turns into a
// clean error instead of a hung call.
const StoreTimeout = 10 * time.Second

// DefaultStateTTL is how long a sealed requestState stays valid: long enough for a person to
// answer an elicitation, short enough to bound replay.
const DefaultStateTTL = 10 * time.Minute

// Stateful is the broker's durable side: evaluations and their handles, tenant policies written
// by set_metric_policy, exactly-once effects and the audit log, all in one store.
type Stateful struct {
	// Store is required.
	Store store.Store
	// Handles mints and resolves handles over Store; nil means a service with default TTL.
	Handles *handle.Service
	// Keys seals requestState; required for set_metric_policy's elicitation round.
	Keys *seal.Keyring
	// Base is the configured policy source the stored policies overlay; nil means none.
	Base tools.Policies
	// StateTTL is a requestState's lifetime; 0 means DefaultStateTTL.
	StateTTL time.Duration
	// JudgeModel is pinned in evaluations no judge decided ("none" when empty).
	JudgeModel string
	// Logger; nil discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s *Stateful) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Stateful) log() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func (s *Stateful) handles() *handle.Service {
	if s.Handles == nil {
		s.Handles = &handle.Service{Store: s.Store, Now: s.Now}
	}
	return s.Handles
}

func (s *Stateful) stateTTL() time.Duration {
	if s.StateTTL <= 0 {
		return DefaultStateTTL
	}
	return s.StateTTL
}

// Recorder returns the tools.Recorder that stores evaluations and mints their handles.
func (s *Stateful) Recorder() tools.HandleRecorder { return storeRecorder{s} }

// Policies returns the policy source: Base overlaid with what set_metric_policy stored.
func (s *Stateful) Policies() tools.ContextPolicies { return storePolicies{s} }

type storeRecorder struct{ s *Stateful }

func (r storeRecorder) Record(ctx context.Context, rec tools.Record) error {
	_, err := r.RecordHandle(ctx, rec)
	return err
}

// RecordHandle prepares the evaluation — the texts only when the tenant archives payloads, their
// digest always — and a handle for its caller, and stages both in the call's audit record: the
// audit middleware commits them with the call's audit row, in one transaction, before the result
// (and so the handle) goes out.
func (r storeRecorder) RecordHandle(ctx context.Context, rec tools.Record) (string, error) {
	ca := callAuditFrom(ctx)
	if ca == nil {
		return "", errNotAudited
	}
	input, err := json.Marshal(rec.Input)
	if err != nil {
		return "", fmt.Errorf("encoding the evaluated input: %w", err)
	}
	policy, err := json.Marshal(rec.Policy)
	if err != nil {
		return "", fmt.Errorf("encoding the policy: %w", err)
	}
	stored := rec.Result
	if !rec.Policy.ArchivePayloads {
		stored = withoutTexts(stored)
	}
	result, err := json.Marshal(stored)
	if err != nil {
		return "", fmt.Errorf("encoding the result: %w", err)
	}
	sum := sha256.Sum256(input)
	ev := store.Evaluation{
		ID: rec.Result.RequestID, Tenant: rec.Tenant, Subject: rec.Subject, Tool: rec.Tool, CreatedAt: rec.At,
		JudgeModel: r.s.JudgeModel, InputDigest: hex.EncodeToString(sum[:]), Policy: policy, Result: result,
	}
	if ev.JudgeModel == "" {
		ev.JudgeModel = "none"
	}
	for _, v := range rec.Result.Verdicts {
		ev.MetricVersion = v.MetricVersion
		if v.Judge != "" {
			ev.JudgeModel = v.Judge
		}
	}
	if rec.Policy.ArchivePayloads {
		ev.Input = input
	}
	h, hrec := r.s.handles().Mint(rec.Tenant, rec.Subject, ev.ID)
	ca.stage(ev, hrec)
	return h, nil
}

type storePolicies struct{ s *Stateful }

// Policy is PolicyContext with its own deadline, for callers without a context. A store failure
// reads as "no policy", which refuses the call rather than scoring under a stale one.
func (p storePolicies) Policy(tenant string) (eval.TenantPolicy, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), StoreTimeout)
	defer cancel()
	tp, ok, err := p.PolicyContext(ctx, tenant)
	if err != nil {
		p.s.log().Error("reading stored policies", slog.String("tenant", tenant), slog.Any("error", err))
		return eval.TenantPolicy{}, false
	}
	return tp, ok
}

// PolicyContext overlays the stored metric policies on the configured tenant policy: a stored
// metric replaces the configured one of the same name. A tenant with neither has no policy.
func (p storePolicies) PolicyContext(ctx context.Context, tenant string) (eval.TenantPolicy, bool, error) {
	var (
		base  eval.TenantPolicy
		found bool
	)
	if p.s.Base != nil {
		base, found = p.s.Base.Policy(tenant)
	}
	ctx, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	rows, err := p.s.Store.Policies(ctx, tenant)
	if err != nil {
		return eval.TenantPolicy{}, false, err
	}
	if len(rows) == 0 {
		return base, found, nil
	}
	if !found {
		base = eval.TenantPolicy{TenantID: tenant, Aggregation: "strictest"}
	}
	metrics := append([]eval.MetricPolicy(nil), base.Metrics...)
	for _, r := range rows {
		replaced := false
		for i := range metrics {
			if metrics[i].Metric == r.Policy.Metric {
				metrics[i], replaced = r.Policy, true
			}
		}
		if !replaced {
			metrics = append(metrics, r.Policy)
		}
	}
	base.Metrics = metrics
	return base, true, nil
}

// newID returns prefix + 128 random bits in hex.
func newID(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return prefix + hex.EncodeToString(b)
}

// canonicalDigest is the hex SHA-256 of raw JSON re-encoded with sorted keys, so two encodings of
// the same arguments digest alike; invalid JSON digests as its bytes.
func canonicalDigest(raw []byte) string {
	var v any
	b := raw
	if err := json.Unmarshal(raw, &v); err == nil {
		if c, err := json.Marshal(v); err == nil {
			b = c
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

var errNoStore = errors.New("this broker runs without a store")

// withoutTexts returns r with every quoted fragment of the input removed from its evidence (the
// offsets stay), so a tenant that does not archive payloads has none of its texts at rest.
func withoutTexts(r eval.EvaluationResult) eval.EvaluationResult {
	vs := make([]eval.Verdict, len(r.Verdicts))
	for i, v := range r.Verdicts {
		ev := make([]eval.Span, len(v.Evidence))
		for j, sp := range v.Evidence {
			sp.Text, sp.Decoded, sp.Payload = "", "", ""
			ev[j] = sp
		}
		if v.Evidence == nil {
			ev = nil
		}
		v.Evidence = ev
		vs[i] = v
	}
	r.Verdicts = vs
	return r
}
