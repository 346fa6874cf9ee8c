package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/internal/termtext"
	"github.com/mcp-sentinel/sentinel/rules"
)

func init() {
	register(Format{Name: FormatText, Ext: ".txt", Help: "for people, the default", order: 0,
		new: func(o Options) Renderer {
			return &textRenderer{color: o.Color, width: o.Width, show: o.Show, quiet: o.Quiet}
		}})
}

var _ Renderer = (*textRenderer)(nil)

// textRenderer writes the human report, summary first: the verdict line, the counts, the top
// failures ranked by consequence, then each failure in full, the comparison with a baseline,
// the deprecation inventory, and the indeterminate rules (a count per area, or every rule with
// --show all). Lines are wrapped to width; it streams, and errWriter keeps the first write
// error.
type textRenderer struct {
	color bool
	width int
	show  Show
	quiet bool
}

// ANSI styles; used only when the caller asked for colour.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiGreen  = "\x1b[1;32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// topFailures is how many findings the summary at the top lists.
const topFailures = 10

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
	if r.InventoryOnly() {
		t.inventory(ew, r, false)
		return t.done(ew)
	}
	t.verdict(ew, r)
	if t.quiet {
		return t.done(ew)
	}
	findings := r.Findings()
	t.header(ew, r)
	t.top(ew, r, findings)
	t.failures(ew, r, findings)
	t.comparison(ew, r)
	if r.Deprecations != nil {
		t.inventory(ew, r, true)
	}
	t.indeterminate(ew, r)
	if t.show == ShowAll {
		t.settled(ew, r)
	}
	return t.done(ew)
}

func (t *textRenderer) done(ew *errWriter) error {
	if ew.err != nil {
		return fmt.Errorf("writing the text report: %w", ew.err)
	}
	return nil
}

func (t *textRenderer) verdict(ew *errWriter, r *Result) {
	style := map[Verdict]string{VerdictPassed: ansiGreen, VerdictFailed: ansiRed}[r.EffectiveGate().Verdict(r)]
	if style == "" {
		style = ansiYellow
	}
	for i, l := range wrap(clean(r.VerdictLine()), t.width) {
		if i > 0 {
			ew.printf("  %s\n", l)
			continue
		}
		for _, label := range []string{"PASSED", "FAILED", "INCOMPLETE", "COULD NOT RUN"} {
			if strings.HasPrefix(l, label) {
				l = t.paint(style, label) + l[len(label):]
				break
			}
		}
		ew.printf("%s\n", l)
	}
}

func (t *textRenderer) header(ew *errWriter, r *Result) {
	const labelW = 10
	ew.printf("\n")
	field := func(name, value string) {
		if value != "" {
			t.field(ew, 2, name+":", labelW, clean(value))
		}
	}
	field("target", r.Target)
	field("era", r.Era)
	field("tool", r.Tool)
	if !r.Started.IsZero() {
		field("started", r.Started.UTC().Format(time.RFC3339)+", took "+r.Duration.Round(time.Millisecond).String())
	}
	g := r.EffectiveGate()
	field("gate", string(g)+": "+gateMeaning(g))
	for _, n := range r.Notes {
		field("note", n)
	}
	tl := r.Tally()
	ew.printf("\n")
	line := func(name string, c Counts) {
		ew.printf("  %s: %d pass, %d fail, %d indeterminate, %d n/a\n", name, c.Pass, c.Fail, c.Indeterminate, c.NotApplicable)
	}
	line("MUST", tl.Must)
	line("SHOULD", tl.Should)
	t.para(ew, 2, fmt.Sprintf("evaluated: %d of %d rules (pass or fail); %s %s",
		tl.Must.Evaluated()+tl.Should.Evaluated(), tl.Total, plural(tl.Findings, "finding breaks", "findings break"),
		plural(tl.FailedRules, "rule", "rules")))
}

// top lists the most urgent findings, one line each: number, level, rule names, headline.
func (t *textRenderer) top(ew *errWriter, r *Result, findings []Finding) {
	var fresh []Finding
	for _, f := range findings {
		if !r.Known(f) {
			fresh = append(fresh, f)
		}
	}
	if len(fresh) == 0 {
		return
	}
	title := "Top failures"
	if r.Comparison != nil {
		title = "Top new failures"
	}
	ew.printf("\n")
	t.heading(ew, title+" (root causes, then security, then MUST, then SHOULD)")
	for i, f := range fresh {
		if i == topFailures {
			ew.printf("  … %d more below\n", len(fresh)-topFailures)
			break
		}
		names := f.Primary().Rule.Name
		if n := len(f.Rules) - 1; n > 0 {
			names += fmt.Sprintf(" (+%d)", n)
		}
		lead := fmt.Sprintf("%3d  %-9s %s: ", i+1, string(f.Level()), names)
		ew.printf("%s%s\n", t.paintLevel(f.Level(), lead), truncate(clean(oneLine(f.Headline())), t.width-len([]rune(lead))))
	}
}

func (t *textRenderer) paintLevel(l rules.Level, s string) string {
	if !t.color {
		return s
	}
	// Colour only the level word, keeping the layout.
	word := string(l)
	style := ansiYellow
	if l.Mandatory() {
		style = ansiRed
	}
	return strings.Replace(s, word, t.paint(style, word), 1)
}

// labelWidth is the column width of the "requirement:" style labels in the failure blocks.
const labelWidth = 14

func (t *textRenderer) failures(ew *errWriter, r *Result, findings []Finding) {
	var known []Finding
	n := 0
	for _, f := range findings {
		if r.Known(f) {
			known = append(known, f)
			continue
		}
		if n == 0 {
			ew.printf("\n")
			t.heading(ew, fmt.Sprintf("Failures: %s", countPhrase(len(findings)-countKnown(r, findings), rulesIn(r, findings, false))))
		}
		n++
		t.finding(ew, n, f)
	}
	if len(findings) == 0 {
		ew.printf("\n%s\n  none\n", t.paint(ansiBold, "Failures: none"))
	}
	if len(known) > 0 {
		ew.printf("\n")
		t.heading(ew, fmt.Sprintf("Known failures (%s), accepted by %s", countPhrase(len(known), rulesIn(r, findings, true)), clean(r.Comparison.Against)))
		for _, f := range known {
			t.field(ew, 2, "["+string(f.Level())+"]", 12, strings.Join(f.RuleNames(), ", "))
		}
	}
}

func countKnown(r *Result, fs []Finding) int {
	n := 0
	for _, f := range fs {
		if r.Known(f) {
			n++
		}
	}
	return n
}

// rulesIn counts the distinct rules of the known (or the new) findings.
func rulesIn(r *Result, fs []Finding, known bool) int {
	seen := map[string]bool{}
	for _, f := range fs {
		if r.Known(f) == known {
			for _, id := range f.RuleIDs() {
				seen[id] = true
			}
		}
	}
	return len(seen)
}

func (t *textRenderer) finding(ew *errWriter, n int, f Finding) {
	p := f.Primary()
	style := ansiYellow
	if p.Rule.Level.Mandatory() {
		style = ansiRed
	}
	// The ID line is never wrapped, so the ID can be searched for.
	ew.printf("\n%2d. %s %s %s\n", n, t.paint(style, "FAIL"), levelLabel(p.Rule.Level), p.Rule.ID)
	t.field(ew, 4, "requirement:", labelWidth, p.Rule.Requirement)
	t.field(ew, 4, "observed:", labelWidth, orDash(p.Observed()))
	if more := len(p.ObservationKeys()) - 1; more > 0 {
		t.field(ew, 4, "", labelWidth, fmt.Sprintf("(and %s)", plural(more, "other observation", "other observations")))
	}
	if t.show == ShowAll {
		for _, o := range p.Evidence[1:] {
			if o.Status == rules.Fail && o.Observed != "" {
				t.field(ew, 4, "also seen:", labelWidth, o.Observed)
			}
		}
	}
	t.field(ew, 4, "remediation:", labelWidth, p.Rule.Remediation)
	t.field(ew, 4, "spec:", labelWidth, p.Rule.SpecURL)
	for _, rr := range f.Rules[1:] {
		t.field(ew, 4, "also breaks:", labelWidth, levelLabel(rr.Rule.Level)+" "+rr.Rule.ID)
		t.field(ew, 4, "", labelWidth, rr.Rule.Requirement)
		if obs := rr.Observed(); obs != p.Observed() && obs != "" {
			t.field(ew, 4, "", labelWidth, "observed: "+obs)
		}
	}
}

func (t *textRenderer) comparison(ew *errWriter, r *Result) {
	um := r.Unmatched()
	if r.Comparison == nil || len(um) == 0 {
		return
	}
	ew.printf("\n")
	t.heading(ew, "Compared with "+clean(r.Comparison.Against))
	seenFixed := map[string]bool{}
	for _, u := range um {
		if u.Fixed {
			if !seenFixed[u.Rule] {
				seenFixed[u.Rule] = true
				t.field(ew, 2, "fixed:", 9, u.Rule)
			}
			continue
		}
		t.field(ew, 2, "stale:", 9, fmt.Sprintf("%s (%s): %s", u.Rule, u.Observation, u.Why))
	}
	if len(um) > len(seenFixed) {
		t.para(ew, 2, "Stale entries match nothing in this scan: refresh the file with `sentinel baseline write`.")
	}
}

// indeterminate lists the rules the scan could not settle: by default a count per primary area
// and a pointer to --show all; with --show all, every rule grouped by its reason.
func (t *textRenderer) indeterminate(ew *errWriter, r *Result) {
	var undecided []RuleResult
	for _, rr := range sortedRules(r) {
		if rr.Status == rules.Indeterminate {
			undecided = append(undecided, rr)
		}
	}
	ew.printf("\n%s\n", t.paint(ansiBold, fmt.Sprintf("Indeterminate: %s not settled by this scan, never counted as a pass",
		plural(len(undecided), "rule", "rules"))))
	if len(undecided) == 0 {
		ew.printf("  none\n")
		return
	}
	if t.show != ShowAll {
		for _, a := range byArea(undecided) {
			ew.printf("  %-14s %3d  (%s)\n", a.area, len(a.rules), levelSplit(a.rules))
		}
		t.para(ew, 2, "(--show all lists each with why and what would settle it)")
		return
	}
	t.para(ew, 2, "Grouped by reason; each rule by level and name (sentinel rules explain NAME):")
	for _, g := range byReason(undecided) {
		ew.printf("\n")
		t.field(ew, 2, "why:", labelWidth, g.why)
		t.field(ew, 2, "would settle:", labelWidth, g.settle)
		for _, rr := range g.rules {
			ew.printf("    %s %s\n", t.paint(ansiCyan, levelLabel(rr.Rule.Level)), rr.Rule.Name)
		}
	}
}

// settled lists the n/a and passing rules, one line each (--show all).
func (t *textRenderer) settled(ew *errWriter, r *Result) {
	for _, s := range []rules.Status{rules.NotApplicable, rules.Pass} {
		var rs []RuleResult
		for _, rr := range sortedRules(r) {
			if rr.Status == s {
				rs = append(rs, rr)
			}
		}
		title := map[rules.Status]string{rules.NotApplicable: "Not applicable", rules.Pass: "Passed"}[s]
		ew.printf("\n")
		t.heading(ew, fmt.Sprintf("%s: %s", title, plural(len(rs), "rule", "rules")))
		for _, rr := range rs {
			line := levelLabel(rr.Rule.Level) + " " + rr.Rule.Name
			if s == rules.NotApplicable {
				line += ": " + rr.Why()
			}
			t.field(ew, 2, "", 0, line)
		}
	}
}

// inventory writes the deprecation inventory: a total first, then one block per feature,
// nearest removal first.
func (t *textRenderer) inventory(ew *errWriter, r *Result, section bool) {
	inv := r.Deprecations
	if section {
		ew.printf("\n")
	}
	target := clean(r.Target)
	if target == "" {
		target = "(unknown target)"
	}
	t.heading(ew, fmt.Sprintf("Deprecation inventory for %s as of %s: %s (%d exchanges examined)",
		target, inv.Today.Format(time.DateOnly), plural(len(inv.Items), "feature in use", "features in use"), inv.Exchanges))
	if inv.LegacyOnly {
		t.para(ew, 2, "The server speaks only the initialize-era protocol: every removal it relies on is listed.")
	}
	if len(inv.Items) == 0 {
		t.para(ew, 2, "No deprecated or removed feature was seen in use.")
		return
	}
	if section && t.show != ShowAll {
		for _, it := range inv.Items {
			t.field(ew, 2, "["+it.Status+"]", 13, it.Name+": "+it.Due)
		}
		t.para(ew, 2, "(--show all lists the evidence and the migration of each)")
		return
	}
	side := ""
	for _, it := range inv.Items {
		if it.Side != side {
			side = it.Side
			ew.printf("\n  %s debt:\n", strings.ToUpper(side[:1])+side[1:])
		}
		ew.printf("\n")
		t.field(ew, 4, "["+it.Status+"]", len(it.Status)+3, it.Name)
		t.para(ew, 6, it.Due)
		if !it.DeprecatedIn.IsZero() {
			t.para(ew, 6, "deprecated since "+it.DeprecatedIn.Format(time.DateOnly)+" by "+it.Source)
		} else {
			t.para(ew, 6, "removed by "+it.Source)
		}
		t.field(ew, 6, "migrate:", 9, it.Replacement)
		t.field(ew, 6, "spec:", 9, it.SpecURL)
		for _, e := range it.Evidence {
			what := clean(e.What)
			if e.Exchange != "" {
				what = "(" + e.Exchange + ") " + what
			}
			t.field(ew, 6, "seen:", 9, what)
		}
		if it.Note != "" {
			t.field(ew, 6, "note:", 9, it.Note)
		}
	}
}

// heading writes a bold title wrapped to the width.
func (t *textRenderer) heading(ew *errWriter, title string) {
	for _, l := range wrap(clean(title), t.width) {
		ew.printf("%s\n", t.paint(ansiBold, l))
	}
}

// levelLabel is the severity as text, so nothing depends on colour.
func levelLabel(l rules.Level) string { return "[" + string(l) + "]" }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clean makes a string safe to print on a terminal (internal/termtext): controls and bidirectional
// overrides become visible \u escapes, tabs one space; newlines are kept, callers indent them.
func clean(s string) string { return termtext.Clean(s, termtext.Options{}) }
