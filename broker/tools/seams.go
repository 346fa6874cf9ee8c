package tools

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/eval"
)

// Input is what one metric scores: the agent's response and the source material it may rely on.
type Input struct {
	// Tenant is whose request this is; it scopes the judge cache and is never scored.
	Tenant   string `json:"-"`
	Response string
	Context  []eval.ContextItem
	// TaskDescription is what the response was produced for (the request's taskDescription).
	TaskDescription string `json:",omitempty"`
}

// Scorer computes verdicts and rolls them up. It is the one place the handler core touches the
// scoring engine; EvalScorer adapts eval.Evaluator to it.
type Scorer interface {
	// FlagInjection scores in.Response for prompt injection under policy p.
	FlagInjection(ctx context.Context, in Input, p eval.MetricPolicy) (eval.Verdict, error)
	// CheckGroundedness scores how well in.Response is supported by in.Context under policy p.
	CheckGroundedness(ctx context.Context, in Input, p eval.MetricPolicy) (eval.Verdict, error)
	// Build rolls verdicts up into the result a tool returns.
	Build(requestID string, verdicts []eval.Verdict, policy eval.TenantPolicy) eval.EvaluationResult
}

// Policies looks up a tenant's policy; false means the tenant has none configured.
type Policies interface {
	Policy(tenant string) (eval.TenantPolicy, bool)
}

// Record is one completed evaluation, as handed to the Recorder.
type Record struct {
	Tenant  string
	Subject string
	Tool    string
	At      time.Time
	Result  eval.EvaluationResult
	// Input is what was scored; a durable recorder keeps it only when Policy.ArchivePayloads is
	// true, and its digest always.
	Input Input
	// Policy is the tenant policy the evaluation ran under, pinned so it can be re-derived.
	Policy eval.TenantPolicy
}

// Recorder persists evaluations. The handler core calls it after every successful evaluation; a
// Recorder error fails the call (an evaluation that cannot be audited is not returned).
// Durable stores (SQLite, PostgreSQL) are a later issue; MemoryRecorder is the default.
type Recorder interface {
	Record(ctx context.Context, r Record) error
}

// MemoryRecorder keeps the last Limit records in memory. The zero value keeps DefaultMemoryLimit.
type MemoryRecorder struct {
	// Limit is how many records are kept; 0 means DefaultMemoryLimit.
	Limit int

	mu      sync.Mutex
	records []Record
}

// DefaultMemoryLimit is MemoryRecorder's capacity when Limit is 0.
const DefaultMemoryLimit = 1024

// Record appends r, dropping the oldest record when full.
func (m *MemoryRecorder) Record(ctx context.Context, r Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	limit := m.Limit
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.records) >= limit {
		m.records = slices.Delete(m.records, 0, len(m.records)-limit+1)
	}
	m.records = append(m.records, r)
	return nil
}

// Records returns a copy of what is kept, oldest first.
func (m *MemoryRecorder) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.records)
}

var _ Recorder = (*MemoryRecorder)(nil)
