// Package eval is the broker's scoring core: text normalisation, the flag_injection and
// check_groundedness metrics, judge models, tenant policy and the roll-up of verdicts into one
// EvaluationResult. Deterministic checks decide the clear cases; only the ambiguous band goes to a
// judge, inside a per-metric latency budget.
//
// eval is a leaf: it imports nothing of Sentinel's and no MCP SDK, so the broker and the proxy can
// both use it without either depending on the other. net/http appears only in the HTTP judge
// (judge_http.go), which calls a model API; nothing here serves HTTP. The pipeline, the pattern
// families, the HEURISTIC trust score and the fail-open/fail-closed choice are described in
// docs/scoring.md.
//
// Nothing is built when the package is initialised: the learned model, the pattern families and
// their regular expressions, the word indexes and the phrase lists are each built on first use
// (sync.OnceValue), because every Sentinel command links eval and most never score a text.
package eval

import (
	"context"
	"time"
)

// Metric names.
const (
	MetricInjection    = "flag_injection"
	MetricGroundedness = "check_groundedness"
)

// OnTimeout is what a metric's verdict means for the action when its judge misses the budget.
// There is deliberately no system-wide default: a policy that does not choose is invalid.
type OnTimeout string

// The two choices.
const (
	FailOpen   OnTimeout = "fail_open"
	FailClosed OnTimeout = "fail_closed"
)

// Outcome of one metric.
type Outcome string

// The verdict outcomes; Block is the strictest.
const (
	OutcomePass    Outcome = "pass"
	OutcomeWarn    Outcome = "warn"
	OutcomeBlock   Outcome = "block"
	OutcomeTimeout Outcome = "timeout"
)

// DecidedBy records which tier produced a verdict; tests assert it to prove a judge was not called
// when it did not need to be.
type DecidedBy string

// The tiers.
const (
	DecidedByHeuristic DecidedBy = "heuristic"
	DecidedByJudge     DecidedBy = "judge"
	DecidedByCache     DecidedBy = "cache"
)

// DefaultMaxJudgeLatency is the per-metric judge budget when a policy leaves it at zero.
const DefaultMaxJudgeLatency = 250 * time.Millisecond

// MetricPolicy configures one metric for one tenant. The same values arrive from the broker's
// config file and from its set_metric_policy tool, and both are checked by Validate alone.
type MetricPolicy struct {
	Metric            string    `json:"metric"`
	Enabled           bool      `json:"enabled"`
	Threshold         float64   `json:"threshold"`
	OnTimeout         OnTimeout `json:"onTimeout"`
	MaxJudgeLatencyMs int       `json:"maxJudgeLatencyMs,omitempty"`
	// Weight is this metric's share in the "weighted" trust-score aggregation; 0 means 1.
	Weight float64 `json:"weight,omitempty"`
	// Judge names the judge that decides this metric's ambiguous band, one of the Evaluator's
	// Judges (configured by name in the broker's config file); empty means the default judge.
	Judge string `json:"judge,omitempty"`
}

// TenantPolicy is one tenant's configuration. Aggregation is "strictest" or "weighted";
// ArchivePayloads (default false) keeps the scored texts at rest, which rederiving needs.
type TenantPolicy struct {
	TenantID        string         `json:"tenantId"`
	Metrics         []MetricPolicy `json:"metrics"`
	Aggregation     string         `json:"aggregation"`
	ArchivePayloads bool           `json:"archivePayloads"`
}

// ContextItem is one piece of source material a response may cite, in the shape of the broker's
// documented ScoringRequest: an ID the response cites it by, where it came from (a document name,
// a URL, a tool), and its content.
type ContextItem struct {
	ID      string `json:"id"`
	Source  string `json:"source,omitempty"`
	Content string `json:"content"`
}

// Span locates evidence in the normalised or original text (byte offsets).
type Span struct {
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Text    string `json:"text"`
	Family  string `json:"family,omitempty"`
	Decoded string `json:"decoded,omitempty"` // how the payload was decoded (base64, rot13, ...) if it was
	// Pattern names the phrasing that matched, so a false positive can be traced to one pattern.
	Pattern string `json:"pattern,omitempty"`
	// Payload is the decoded text that matched when Decoded is set (Text is then the encoded run).
	Payload string `json:"payload,omitempty"`
	// Weight is this match's contribution in [0,1] after damping (see docs/scoring.md).
	Weight float64 `json:"weight,omitempty"`
	// ContextID names the context item the span is in, when it is not in the scored text itself
	// (flag_injection screens the items a text travels with); Start and End are then offsets in
	// that item's content.
	ContextID string `json:"contextId,omitempty"`
}

// Verdict is one metric's conclusion.
type Verdict struct {
	Metric          string    `json:"metric"`
	Outcome         Outcome   `json:"outcome"`
	Score           float64   `json:"score"`
	Threshold       float64   `json:"threshold"`
	Reason          string    `json:"reason"`
	Evidence        []Span    `json:"evidence,omitempty"`
	CitedContextIDs []string  `json:"citedContextIds,omitempty"`
	DecidedBy       DecidedBy `json:"decidedBy"`
	Judge           string    `json:"judge,omitempty"`
	MetricVersion   string    `json:"metricVersion"`
	LatencyMs       int64     `json:"latencyMs"`
}

// Action is the roll-up decision; the strictest verdict wins. Its values are the verdict
// outcomes a caller acts on, so "pass" means the same thing in a verdict and in the action.
type Action string

// Actions.
const (
	ActionPass  Action = "pass"
	ActionWarn  Action = "warn"
	ActionBlock Action = "block"
)

// PolicyOverride is what one scoring request may change of its tenant's metric policy: only
// towards strictness, never past what the tenant allows (see MetricPolicy.Override). Nil fields
// keep the tenant's value.
type PolicyOverride struct {
	// Threshold may lower the tenant's threshold (block sooner), never raise it.
	Threshold *float64 `json:"threshold,omitempty"`
	// MaxJudgeLatencyMs may shorten the tenant's judge budget, never lengthen it.
	MaxJudgeLatencyMs *int `json:"maxJudgeLatencyMs,omitempty"`
	// OnTimeout may turn fail_open into fail_closed; fail_open is accepted only where the tenant
	// already fails open.
	OnTimeout OnTimeout `json:"onTimeout,omitempty"`
}

// EvaluationResult is what the broker's tools return.
type EvaluationResult struct {
	// RequestID is unique per request (minted when the request is evaluated): two identical calls
	// get two ids, and the audit log and the stored evaluation carry the same one.
	RequestID string `json:"requestId"`
	// RequestDigest is a digest of tenant, tool and canonical arguments: identical calls share it.
	RequestDigest string `json:"requestDigest,omitempty"`
	// CorrelationID echoes the caller's correlationId, when it sent one.
	CorrelationID  string    `json:"correlationId,omitempty"`
	Verdicts       []Verdict `json:"verdicts"`
	Action         Action    `json:"action"`
	TrustScore     int       `json:"trustScore"`
	TotalLatencyMs int64     `json:"totalLatencyMs"`
	// PolicyErrors lists why a verdict's action could not be taken from the policy (a timeout for a
	// metric with no onTimeout); such a verdict blocks, and this says so instead of hiding it.
	PolicyErrors []string `json:"policyErrors,omitempty"`
}

// Judge is a model that decides the ambiguous middle. Implementations must honour ctx's deadline.
type Judge interface {
	// Judge returns a score in [0,1] (1 = the metric's concern is present) and a short reason.
	Judge(ctx context.Context, req JudgeRequest) (JudgeVerdict, error)
	// Model names the model, pinned in every verdict it decides.
	Model() string
}

// JudgeRequest is what a judge is asked.
type JudgeRequest struct {
	Metric   string        `json:"metric"`
	Response string        `json:"response"`
	Context  []ContextItem `json:"context,omitempty"`
	// Task is the caller's taskDescription: what the response was produced for.
	Task string `json:"task,omitempty"`
	// Hint is the deterministic tier's summary of why the case is ambiguous.
	Hint string `json:"hint,omitempty"`
}

// JudgeVerdict is a judge's answer.
type JudgeVerdict struct {
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
}
