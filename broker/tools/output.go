package tools

import (
	"unicode/utf8"

	"github.com/mcp-sentinel/sentinel/eval"
)

// Output is a tool's structured result: the EvaluationResult definition of broker/schema.
type Output struct {
	RequestID      string        `json:"requestId"`
	RequestDigest  string        `json:"requestDigest"`
	CorrelationID  string        `json:"correlationId,omitempty"`
	Verdicts       []VerdictView `json:"verdicts"`
	Action         eval.Action   `json:"action"`
	TrustScore     int           `json:"trustScore"`
	TotalLatencyMs int64         `json:"totalLatencyMs"`
	// PolicyErrors says why the policy could not decide an action (both formats: it changes
	// what the action means).
	PolicyErrors []string `json:"policyErrors,omitempty"`
	// Handle names the stored evaluation for get_evaluation; empty when the broker runs without
	// a store.
	Handle string `json:"handle,omitempty"`
}

// VerdictView is one verdict as a tool returns it: the Verdict definition of broker/schema. Every
// field but Evidence is in both formats, so a concise verdict is still auditable and re-derivable
// (the metric version, the deciding tier, the judge, the threshold and the cited items are there).
type VerdictView struct {
	Metric          string         `json:"metric"`
	Outcome         eval.Outcome   `json:"outcome"`
	Score           float64        `json:"score"`
	Threshold       float64        `json:"threshold"`
	Reason          string         `json:"reason"`
	CitedContextIDs []string       `json:"citedContextIds"`
	DecidedBy       eval.DecidedBy `json:"decidedBy"`
	Judge           string         `json:"judge,omitempty"`
	MetricVersion   string         `json:"metricVersion"`
	LatencyMs       int64          `json:"latencyMs"`
	// Evidence is detailed only.
	Evidence []eval.Span `json:"evidence,omitempty"`
}

// ConciseReasonChars bounds a reason in the concise format.
const ConciseReasonChars = 160

// Shape renders r in the given format (FormatConcise or FormatDetailed). Concise shortens reasons
// to ConciseReasonChars and leaves out evidence; nothing else differs.
func Shape(r eval.EvaluationResult, format string) Output {
	out := Output{
		RequestID:      r.RequestID,
		RequestDigest:  r.RequestDigest,
		CorrelationID:  r.CorrelationID,
		Action:         r.Action,
		TrustScore:     r.TrustScore,
		TotalLatencyMs: r.TotalLatencyMs,
		Verdicts:       make([]VerdictView, 0, len(r.Verdicts)),
		PolicyErrors:   r.PolicyErrors,
	}
	detailed := format == FormatDetailed
	for _, v := range r.Verdicts {
		vv := VerdictView{
			Metric: v.Metric, Outcome: v.Outcome, Score: v.Score, Threshold: v.Threshold, Reason: v.Reason,
			CitedContextIDs: v.CitedContextIDs, DecidedBy: v.DecidedBy, Judge: v.Judge,
			MetricVersion: v.MetricVersion, LatencyMs: v.LatencyMs,
		}
		if vv.CitedContextIDs == nil {
			vv.CitedContextIDs = []string{}
		}
		if detailed {
			vv.Evidence = v.Evidence
		} else {
			vv.Reason = shorten(v.Reason, ConciseReasonChars)
		}
		out.Verdicts = append(out.Verdicts, vv)
	}
	return out
}

// shorten cuts s to at most n characters, ending in "…" when it cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}
