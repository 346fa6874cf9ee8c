package eval

import (
	"fmt"
	"math"
)

// Trust-score constants. HEURISTIC: the trust score is a hand-set summary for dashboards, not a
// calibrated probability; decisions are made by Action, never by the trust score.
const (
	timeoutTrust  = 50 // a verdict with no judge answer is neither trusted nor distrusted
	blockTrustCap = 25 // a blocked result never shows more than this
	warnTrustCap  = 74 // a warned result never shows more than this
)

// actionRank orders actions; the strictest wins.
var actionRank = map[Action]int{ActionPass: 0, ActionWarn: 1, ActionBlock: 2}

// BuildEvaluationResult rolls verdicts up into one result. The action is the strictest of the
// verdicts' actions (ActionFor); a timeout for a metric the policy has no onTimeout for blocks
// and is listed in PolicyErrors rather than silently given a default.
//
// TrustScore (0-100) is a HEURISTIC:
//
//	t_i   = 100 × (1 − score_i) for a decided verdict; 50 for a timeout
//	trust = min_i t_i                    (aggregation "strictest" or "")
//	trust = Σ w_i t_i / Σ w_i            (aggregation "weighted"; w_i = MetricPolicy.Weight, 0 → 1)
//	then capped at 25 if the action is block and at 74 if it is warn; 0 when there are no verdicts
//	(nothing was measured, so no trust was earned).
//
// TotalLatencyMs is the sum of the verdicts' latencies (an upper bound if they ran in parallel).
func BuildEvaluationResult(requestID string, verdicts []Verdict, policy TenantPolicy) EvaluationResult {
	r := EvaluationResult{RequestID: requestID, Verdicts: append([]Verdict(nil), verdicts...), Action: ActionPass}
	if len(verdicts) == 0 {
		return r
	}
	minTrust, sum, wsum := math.Inf(1), 0.0, 0.0
	for _, v := range verdicts {
		a, ok := ActionFor(v, policy)
		if !ok {
			r.PolicyErrors = append(r.PolicyErrors, fmt.Sprintf(
				"metric %q timed out but tenant %q sets no onTimeout for it: blocking; set onTimeout to fail_open or fail_closed",
				v.Metric, policy.TenantID))
		}
		if actionRank[a] > actionRank[r.Action] {
			r.Action = a
		}
		r.TotalLatencyMs += v.LatencyMs
		t := 100 * (1 - clampScore(v.Score))
		if v.Outcome == OutcomeTimeout {
			t = timeoutTrust
		}
		w := 1.0
		if m, found := policy.Metric(v.Metric); found && m.Weight > 0 {
			w = m.Weight
		}
		minTrust = math.Min(minTrust, t)
		sum += w * t
		wsum += w
	}
	trust := minTrust
	if policy.Aggregation == AggregationWeighted {
		trust = sum / wsum
	}
	switch r.Action {
	case ActionBlock:
		trust = math.Min(trust, blockTrustCap)
	case ActionWarn:
		trust = math.Min(trust, warnTrustCap)
	case ActionPass:
	}
	r.TrustScore = int(math.Round(math.Max(0, math.Min(100, trust))))
	return r
}

func clampScore(s float64) float64 {
	if math.IsNaN(s) {
		return 1
	}
	return math.Max(0, math.Min(1, s))
}
