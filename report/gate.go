package report

import (
	"fmt"

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

// Verdict evaluates the gate over r.
func (g Gate) Verdict(r *Result) Verdict {
	switch {
	case r.CouldNotRun != nil:
		return VerdictCouldNotRun
	case r.Incomplete != nil:
		return VerdictIncomplete
	case len(g.Failures(r)) > 0:
		return VerdictFailed
	default:
		return VerdictPassed
	}
}

// Failures returns the rule results that fail the gate, in the result's order.
func (g Gate) Failures(r *Result) []RuleResult {
	var out []RuleResult
	for _, rr := range r.Rules {
		if rr.Status == rules.Fail && g.Counts(rr.Rule.Level) {
			out = append(out, rr)
		}
	}
	return out
}

// GateError is returned when a result fails its gate. Its exit code is 1 ("the target failed"),
// distinct from every error that means the scanner could not run (2).
type GateError struct {
	// Gate is the gate that failed.
	Gate Gate
	// Failures is how many rules failed it.
	Failures int
}

// Error says which gate failed and on how many rules, for the CLI's last line.
func (e *GateError) Error() string {
	return fmt.Sprintf("the target failed the %s gate: %d rule(s) failed", e.Gate, e.Failures)
}

// ExitCode makes GateError satisfy the exit-code contract: 1.
func (e *GateError) ExitCode() int { return 1 }

// Check evaluates the gate over r: nil when it passes, a *GateError when it fails.
func (g Gate) Check(r *Result) error {
	if n := len(g.Failures(r)); n > 0 {
		return &GateError{Gate: g, Failures: n}
	}
	return nil
}
