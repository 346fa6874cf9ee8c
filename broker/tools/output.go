package tools

import "github.com/mcp-sentinel/sentinel/eval"

// Output is a tool's structured result: the EvaluationResult in concise or detailed form. Fields
// marked "detailed" are omitted from the concise form.
type Output struct {
	RequestID  string        `json:"requestId"`
	Action     eval.Action   `json:"action"`
	TrustScore int           `json:"trustScore"`
	Verdicts   []VerdictView `json:"verdicts"`
	// PolicyErrors says why the policy could not decide an action (both forms: it changes what
	// the action means).
	PolicyErrors []string `json:"policyErrors,omitempty"`
	// TotalLatencyMs is detailed only.
	TotalLatencyMs *int64 `json:"totalLatencyMs,omitempty"`
	// Handle names the stored evaluation for get_evaluation; empty when the broker runs without
	// a store.
	Handle string `json:"handle,omitempty"`
}

// VerdictView is one verdict as a tool returns it.
type VerdictView struct {
	Metric  string       `json:"metric"`
	Outcome eval.Outcome `json:"outcome"`
	Score   float64      `json:"score"`
	Reason  string       `json:"reason"`
	// The rest is detailed only.
	Threshold       *float64       `json:"threshold,omitempty"`
	Evidence        []eval.Span    `json:"evidence,omitempty"`
	CitedContextIDs []string       `json:"citedContextIds,omitempty"`
	DecidedBy       eval.DecidedBy `json:"decidedBy,omitempty"`
	Judge           string         `json:"judge,omitempty"`
	MetricVersion   string         `json:"metricVersion,omitempty"`
	LatencyMs       *int64         `json:"latencyMs,omitempty"`
}

// Shape renders r in the given format (FormatConcise or FormatDetailed).
func Shape(r eval.EvaluationResult, format string) Output {
	out := Output{
		RequestID:    r.RequestID,
		Action:       r.Action,
		TrustScore:   r.TrustScore,
		Verdicts:     make([]VerdictView, 0, len(r.Verdicts)),
		PolicyErrors: r.PolicyErrors,
	}
	detailed := format == FormatDetailed
	if detailed {
		out.TotalLatencyMs = new(r.TotalLatencyMs)
	}
	for _, v := range r.Verdicts {
		vv := VerdictView{Metric: v.Metric, Outcome: v.Outcome, Score: v.Score, Reason: v.Reason}
		if detailed {
			vv.Threshold = new(v.Threshold)
			vv.Evidence = v.Evidence
			vv.CitedContextIDs = v.CitedContextIDs
			vv.DecidedBy = v.DecidedBy
			vv.Judge = v.Judge
			vv.MetricVersion = v.MetricVersion
			vv.LatencyMs = new(v.LatencyMs)
		}
		out.Verdicts = append(out.Verdicts, vv)
	}
	return out
}
