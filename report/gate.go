package report

import (
	"fmt"
	"slices"

	"github.com/mcp-sentinel/sentinel/rules"
)

// Gate chooses which failures fail a scan. Indeterminate and n/a outcomes never count either way.
type Gate string

// The gates `--gate` accepts.
const (
	// GateMust fails the scan on any MUST or MUST NOT failure (the default).
	GateMust Gate = "must"
	// GateShould fails it on any failure at all, SHOULD-level included.
	GateShould Gate = "should"
	// GateNone never fails it: the report is informational.
	GateNone Gate = "none"
)

// ParseGate validates a `--gate` value.
func ParseGate(s string) (Gate, error) {
	switch g := Gate(s); g {
	case GateMust, GateShould, GateNone:
		return g, nil
	}
	return "", fmt.Errorf("unknown gate %q: use must, should or none", s)
}

// Counts reports whether a failure of a rule at level l fails this gate.
func (g Gate) Counts(l rules.Level) bool {
	switch g {
	case GateMust:
		return l.Mandatory()
	case GateShould:
		return true
	default:
		return false
	}
}

// Verdict is what a result means for its gate: the one word every format leads with. Only
// cmd/internal/cli turns a verdict into an exit code.
type Verdict string

// The four verdicts. An incomplete scan and one that could not run are never a pass, whatever
// their partial rules say.
const (
	// VerdictPassed: the scan finished and no failure counts for the gate.
	VerdictPassed Verdict = "passed"
	// VerdictFailed: the scan finished and at least one failure counts for the gate.
	VerdictFailed Verdict = "failed"
	// VerdictIncomplete: some probes did not finish. The failures found in what did finish are
	// still reported, but the verdict is INCOMPLETE (exit 2, "did not finish"), never PASSED, and
	// not FAILED either: the contract keeps "the target failed" for scans that saw everything.
	VerdictIncomplete Verdict = "incomplete"
	// VerdictCouldNotRun: the target could not be graded at all.
	VerdictCouldNotRun Verdict = "could-not-run"
)

// Passed, Failed and Finished let cmd/internal/cli map a verdict to the exit-code contract
// without importing report: 0 passed, 1 failed, 2 did not finish.

// Finished reports whether the scan ran to the end (passed or failed).
func (v Verdict) Finished() bool { return v == VerdictPassed || v == VerdictFailed }

// Failed reports whether the target failed the gate.
func (v Verdict) Failed() bool { return v == VerdictFailed }

// Label is the verdict as reports lead with it: PASSED, FAILED, INCOMPLETE or COULD NOT RUN.
func (v Verdict) Label() string {
	switch v {
	case VerdictPassed:
		return "PASSED"
	case VerdictFailed:
		return "FAILED"
	case VerdictIncomplete:
		return "INCOMPLETE"
	default:
		return "COULD NOT RUN"
	}
}

// Verdict evaluates the gate over r.
func (g Gate) Verdict(r *Result) Verdict { return g.verdict(r, nil) }

// verdict is Verdict with the findings already computed (nil: compute them).
func (g Gate) verdict(r *Result, fs []Finding) Verdict {
	switch {
	case r.CouldNotRun != nil:
		return VerdictCouldNotRun
	case r.Incomplete != nil:
		return VerdictIncomplete
	}
	if fs == nil {
		fs = r.Findings()
	}
	if len(g.failing(r, fs)) > 0 {
		return VerdictFailed
	}
	return VerdictPassed
}

// FailingFindings returns the findings that fail the gate: one of their rules counts for it,
// and they are new (not known to r.Comparison). In Findings order.
func (g Gate) FailingFindings(r *Result) []Finding { return g.failing(r, r.Findings()) }

func (g Gate) failing(r *Result, fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Gated(g) && !r.Known(f) {
			out = append(out, f)
		}
	}
	return out
}

// Failures returns the rule results that fail the gate, in rule-ID order: the failing rules of
// the findings that fail it, counted once each.
func (g Gate) Failures(r *Result) []RuleResult { return g.failures(g.FailingFindings(r)) }

func (g Gate) failures(failing []Finding) []RuleResult {
	var out []RuleResult
	for _, f := range failing {
		for _, rr := range f.Rules {
			if g.Counts(rr.Rule.Level) {
				out = append(out, rr)
			}
		}
	}
	slices.SortFunc(out, byRuleID)
	return out
}

// GateError describes a result that failed its gate, for the CLI's last line. It carries no
// exit code: cmd/internal/cli decides that from the verdict.
type GateError struct {
	// Gate is the gate that failed.
	Gate Gate
	// Findings and Rules count what failed it: distinct behaviours, and the rules they break.
	Findings, Rules int
}

// Error says which gate failed, on how many findings and rules.
func (e *GateError) Error() string {
	return fmt.Sprintf("the target failed the %s gate: %s", e.Gate, countPhrase(e.Findings, e.Rules))
}

// Check evaluates the gate over r: nil when it passes, a *GateError when it fails. Incomplete
// and could-not-run results are judged by Verdict, not here.
func (g Gate) Check(r *Result) error {
	fs := g.FailingFindings(r)
	if len(fs) == 0 {
		return nil
	}
	return &GateError{Gate: g, Findings: len(fs), Rules: len(g.Failures(r))}
}

// countPhrase is "1 finding (2 rules)" with the plurals right.
func countPhrase(findings, rulesN int) string {
	return fmt.Sprintf("%s (%s)", plural(findings, "finding", "findings"), plural(rulesN, "rule", "rules"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
