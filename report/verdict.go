package report

import (
	"fmt"
	"strings"
)

// VerdictLine is the one line every format leads with and the CLI prints last: the verdict
// label, the gate and the counts that decided it, from Tally. For example
//
//	FAILED the must gate: 38 findings (45 rules) fail it
//	PASSED the must gate: no finding fails it; 2 findings (2 rules) below the gate
//	INCOMPLETE: 3 of 41 probes did not finish before --timeout 2s; raise --timeout
//	COULD NOT RUN: not an MCP endpoint: POST / → 501 text/html
func (r *Result) VerdictLine() string {
	t := r.Tally()
	var b strings.Builder
	switch t.Verdict {
	case VerdictCouldNotRun:
		fmt.Fprintf(&b, "COULD NOT RUN: %s", r.CouldNotRun.Reason)
		return b.String()
	case VerdictIncomplete:
		fmt.Fprintf(&b, "INCOMPLETE: %s", orDash(r.Incomplete.Reason))
		if t.Findings > 0 {
			fmt.Fprintf(&b, "; %s found in what finished", countPhrase(t.Findings, t.FailedRules))
		}
		return b.String()
	case VerdictFailed:
		fmt.Fprintf(&b, "FAILED the %s gate: %s fail it", t.Gate, countPhrase(t.GateFindings, t.GateRules))
		if r.Comparison != nil {
			b.WriteString(" (new)")
		}
	default:
		fmt.Fprintf(&b, "PASSED the %s gate: no %sfinding fails it", t.Gate, map[bool]string{true: "new "}[r.Comparison != nil])
		if below := t.Findings - t.Known - t.GateFindings; below > 0 {
			fmt.Fprintf(&b, "; %s below the gate", plural(below, "finding", "findings"))
		}
	}
	if r.Comparison != nil {
		fmt.Fprintf(&b, "; %d known to %s, %d fixed", t.Known, r.Comparison.Against, t.Fixed)
		if t.Stale > 0 {
			fmt.Fprintf(&b, ", %s", plural(t.Stale, "stale entry", "stale entries"))
		}
	}
	return b.String()
}

// gateMeaning says in words what a gate counts.
func gateMeaning(g Gate) string {
	switch g {
	case GateMust:
		return "MUST and MUST NOT failures fail the scan"
	case GateShould:
		return "every failure fails the scan"
	default:
		return "informational: nothing fails the scan"
	}
}
