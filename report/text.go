package report

import (
	"fmt"
	"github.com/mcp-sentinel/sentinel/internal/termtext"
	"io"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// textRenderer writes the human report: header, failures, indeterminate rules, summary. It
// streams line by line; errWriter keeps the first write error.
type textRenderer struct {
	color bool
}

// ANSI styles; used only when the caller asked for colour.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

func (t *textRenderer) paint(style, s string) string {
	if !t.color {
		return s
	}
	return style + s + ansiReset
}

// Render writes r as text. Every string that came from the target is sanitised first, so a
// hostile server cannot move the cursor or recolour the terminal through the report.
func (t *textRenderer) Render(w io.Writer, r *Result) error {
	if r == nil {
		return errNilResult
	}
	ew := &errWriter{w: w}
	all := sortedRules(r)
	t.header(ew, r)

	var failed, undecided []RuleResult
	for _, rr := range all {
		switch rr.Status {
		case rules.Fail:
			failed = append(failed, rr)
		case rules.Indeterminate:
			undecided = append(undecided, rr)
		case rules.Pass, rules.NotApplicable:
		}
	}
	t.failures(ew, failed)
	t.indeterminate(ew, undecided)
	t.summary(ew, r, len(all))
	if ew.err != nil {
		return fmt.Errorf("writing the text report: %w", ew.err)
	}
	return nil
}

func (t *textRenderer) header(ew *errWriter, r *Result) {
	ew.printf("%s %s\n", t.paint(ansiBold, "Sentinel report for"), clean(r.Target))
	field := func(name, value string) {
		if value != "" {
			ew.printf("  %-9s %s\n", name+":", value)
		}
	}
	field("tool", clean(r.Tool))
	field("era", clean(r.Era))
	if !r.Started.IsZero() {
		field("started", r.Started.UTC().Format(time.RFC3339))
	}
	field("duration", r.Duration.String())
	if r.CouldNotRun != nil {
		field("verdict", "COULD NOT RUN: "+clean(r.CouldNotRun.Reason))
	}
	if r.Incomplete != nil {
		field("verdict", "INCOMPLETE: "+clean(r.Incomplete.Reason))
	}
	for _, n := range r.Notes {
		field("note", clean(n))
	}
}

// levelLabel is the severity as text, so nothing depends on colour.
func levelLabel(l rules.Level) string { return "[" + string(l) + "]" }

func (t *textRenderer) failures(ew *errWriter, failed []RuleResult) {
	ew.printf("\n%s\n", t.paint(ansiBold, fmt.Sprintf("FAILED (%d)", len(failed))))
	if len(failed) == 0 {
		ew.printf("  none\n")
		return
	}
	for _, rr := range failed {
		style := ansiYellow
		if rr.Rule.Level.Mandatory() {
			style = ansiRed
		}
		ew.printf("\n%s %s %s\n", t.paint(style, "FAIL"), levelLabel(rr.Rule.Level), rr.Rule.ID)
		t.detail(ew, "requirement", rr.Rule.Requirement)
		t.detail(ew, "observed", orDash(rr.Observed()))
		t.detail(ew, "remediation", rr.Rule.Remediation)
		t.detail(ew, "spec", rr.Rule.SpecURL)
	}
}

func (t *textRenderer) indeterminate(ew *errWriter, undecided []RuleResult) {
	ew.printf("\n%s\n", t.paint(ansiBold, fmt.Sprintf("INDETERMINATE (%d): not settled by this scan, never counted as a pass", len(undecided))))
	if len(undecided) == 0 {
		ew.printf("  none\n")
		return
	}
	for _, rr := range undecided {
		ew.printf("\n%s %s %s\n", t.paint(ansiCyan, "INDETERMINATE"), levelLabel(rr.Rule.Level), rr.Rule.ID)
		t.detail(ew, "why", rr.Why())
		t.detail(ew, "would settle", rr.WouldSettle())
	}
}

// detail writes one indented "name: value" line; continuation lines of a multi-line value are
// indented under the value.
func (t *textRenderer) detail(ew *errWriter, name, value string) {
	const width = 13
	pad := strings.Repeat(" ", 2+width+1)
	lines := strings.Split(clean(value), "\n")
	ew.printf("  %-*s %s\n", width, name+":", lines[0])
	for _, l := range lines[1:] {
		ew.printf("%s%s\n", pad, l)
	}
}

func (t *textRenderer) summary(ew *errWriter, r *Result, total int) {
	must, should := r.Summary()
	ew.printf("\n")
	line := func(name string, c Counts) {
		ew.printf("%s: %d pass, %d fail, %d indeterminate, %d n/a\n",
			name, c.Pass, c.Fail, c.Indeterminate, c.NotApplicable)
	}
	line("MUST", must)
	line("SHOULD", should)
	ew.printf("evaluated: %d of %d rules (pass or fail)\n", must.Evaluated()+should.Evaluated(), total)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clean makes a string safe to print on a terminal (internal/termtext): controls and bidirectional
// overrides become visible \u escapes, tabs one space; newlines are kept, callers indent them.
func clean(s string) string { return termtext.Clean(s, termtext.Options{}) }
