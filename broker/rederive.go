package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcp-sentinel/sentinel/broker/handle"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// ErrNotArchived is returned by Rederive for an evaluation whose tenant did not archive payloads:
// only the input's digest was stored, so there is nothing to recompute from.
var ErrNotArchived = errors.New("the evaluation's texts were not archived (the tenant's archivePayloads is false); only their digest is stored")

// RederiveReport compares a stored evaluation with a fresh computation on the same input and
// policy.
type RederiveReport struct {
	EvaluationID string
	Tool         string
	// Pinned metric version and judge model, as stored.
	MetricVersion string
	JudgeModel    string
	// Match is true when action, trust score and every verdict's outcome, score, deciding tier
	// and metric version agree.
	Match bool
	// Differences says what disagreed, one line each.
	Differences []string
}

// Write prints the report for an operator.
func (r RederiveReport) Write(w io.Writer) {
	_, _ = fmt.Fprintf(w, "evaluation %s (%s), pinned metric %s, judge %s\n", r.EvaluationID, r.Tool, r.MetricVersion, r.JudgeModel)
	if r.Match {
		_, _ = fmt.Fprintln(w, "rederived: MATCH")
		return
	}
	_, _ = fmt.Fprintln(w, "rederived: MISMATCH")
	for _, d := range r.Differences {
		_, _ = fmt.Fprintln(w, "  - "+d)
	}
}

// Rederive resolves h for tenant and subject (through the one resolver: an operator names the
// principal the handle was issued to), recomputes the evaluation with scorer under the stored
// policy, and reports whether it matches what was returned at the time.
func Rederive(ctx context.Context, st store.Store, scorer tools.Scorer, tenant, subject, h string) (RederiveReport, error) {
	ev, err := (&handle.Service{Store: st}).Resolve(ctx, tenant, subject, h)
	if err != nil {
		return RederiveReport{}, fmt.Errorf("rederiving: %w", err)
	}
	rep := RederiveReport{EvaluationID: ev.ID, Tool: ev.Tool, MetricVersion: ev.MetricVersion, JudgeModel: ev.JudgeModel}
	if ev.Input == nil {
		return rep, fmt.Errorf("rederiving %s: %w (digest %s)", ev.ID, ErrNotArchived, ev.InputDigest)
	}
	if sum := sha256.Sum256(ev.Input); hex.EncodeToString(sum[:]) != ev.InputDigest {
		rep.Differences = append(rep.Differences, "the archived input does not match its stored digest")
	}
	var (
		in     tools.Input
		policy eval.TenantPolicy
		stored eval.EvaluationResult
	)
	for _, dec := range []struct {
		raw []byte
		v   any
	}{{ev.Input, &in}, {ev.Policy, &policy}, {ev.Result, &stored}} {
		if err := json.Unmarshal(dec.raw, dec.v); err != nil {
			return rep, fmt.Errorf("rederiving %s: decoding the stored evaluation: %w", ev.ID, err)
		}
	}
	var mp eval.MetricPolicy
	for _, m := range policy.Metrics {
		if m.Metric == ev.Tool {
			mp = m
		}
	}
	var v eval.Verdict
	switch ev.Tool {
	case tools.NameFlagInjection:
		v, err = scorer.FlagInjection(ctx, in, mp)
	case tools.NameCheckGroundedness:
		v, err = scorer.CheckGroundedness(ctx, in, mp)
	default:
		return rep, fmt.Errorf("rederiving %s: unknown tool %q", ev.ID, ev.Tool)
	}
	if err != nil {
		return rep, fmt.Errorf("rederiving %s: scoring: %w", ev.ID, err)
	}
	fresh := scorer.Build(stored.RequestID, []eval.Verdict{v}, policy)
	rep.Differences = append(rep.Differences, compareResults(stored, fresh)...)
	rep.Match = len(rep.Differences) == 0
	return rep, nil
}

func compareResults(stored, fresh eval.EvaluationResult) []string {
	var d []string
	if stored.Action != fresh.Action {
		d = append(d, fmt.Sprintf("action: stored %s, now %s", stored.Action, fresh.Action))
	}
	if stored.TrustScore != fresh.TrustScore {
		d = append(d, fmt.Sprintf("trust score: stored %d, now %d", stored.TrustScore, fresh.TrustScore))
	}
	if len(stored.Verdicts) != len(fresh.Verdicts) {
		return append(d, fmt.Sprintf("verdicts: stored %d, now %d", len(stored.Verdicts), len(fresh.Verdicts)))
	}
	for i, s := range stored.Verdicts {
		f := fresh.Verdicts[i]
		if s.MetricVersion != f.MetricVersion {
			d = append(d, fmt.Sprintf("%s metric version: pinned %s, now %s (the metric changed since)", s.Metric, s.MetricVersion, f.MetricVersion))
		}
		if s.Judge != f.Judge {
			d = append(d, fmt.Sprintf("%s judge model: pinned %q, now %q", s.Metric, s.Judge, f.Judge))
		}
		if s.Outcome != f.Outcome {
			d = append(d, fmt.Sprintf("%s outcome: stored %s, now %s", s.Metric, s.Outcome, f.Outcome))
		}
		if s.Score != f.Score {
			d = append(d, fmt.Sprintf("%s score: stored %v, now %v", s.Metric, s.Score, f.Score))
		}
		if s.DecidedBy != f.DecidedBy {
			d = append(d, fmt.Sprintf("%s decided by: stored %s, now %s", s.Metric, s.DecidedBy, f.DecidedBy))
		}
	}
	return d
}
