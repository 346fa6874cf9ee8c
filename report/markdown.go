package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

func init() {
	register(Format{Name: FormatMarkdown, Ext: ".md", Help: "GitHub-flavoured, for $GITHUB_STEP_SUMMARY", order: 4,
		new: func(o Options) Renderer { return &markdownRenderer{show: o.Show} }})
}

var _ Renderer = (*markdownRenderer)(nil)

// markdownRenderer writes GitHub-flavoured Markdown fit for a CI step summary: the verdict as a
// heading, the counts as a table, the top failures as a table, every failure in full inside a
// collapsed <details>, the comparison with a baseline, the deprecation inventory, and the
// indeterminate rules per area (every rule with --show all, collapsed). Text from the target is
// escaped, so a hostile server cannot inject links, images or HTML into the summary.
type markdownRenderer struct {
	show Show
}

// Render writes r as Markdown.
func (m *markdownRenderer) Render(w io.Writer, r *Result) error {
	if r == nil {
		return errNilResult
	}
	var b strings.Builder
	if r.InventoryOnly() {
		mdInventory(&b, r, "##")
	} else {
		m.body(&b, r)
	}
	return writeAll(w, "Markdown", []byte(b.String()))
}

func (m *markdownRenderer) body(b *strings.Builder, r *Result) {
	tl := r.Tally()
	icon := map[Verdict]string{VerdictPassed: "✅", VerdictFailed: "❌", VerdictIncomplete: "⚠️", VerdictCouldNotRun: "⛔"}[tl.Verdict]
	fmt.Fprintf(b, "## %s %s\n\n", icon, md(r.VerdictLine()))
	var facts []string
	for _, f := range [][2]string{{"target", r.Target}, {"era", r.Era}, {"tool", r.Tool}, {"gate", string(tl.Gate) + " (" + gateMeaning(tl.Gate) + ")"}} {
		if f[1] != "" {
			facts = append(facts, "**"+f[0]+"** "+md(f[1]))
		}
	}
	if !r.Started.IsZero() {
		facts = append(facts, "**started** "+r.Started.UTC().Format(time.RFC3339)+", took "+r.Duration.Round(time.Millisecond).String())
	}
	fmt.Fprintf(b, "%s\n\n", strings.Join(facts, " · "))
	for _, n := range r.Notes {
		fmt.Fprintf(b, "> %s\n>\n", md(n))
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("| level | pass | fail | indeterminate | n/a |\n|---|---:|---:|---:|---:|\n")
	for _, row := range []struct {
		name string
		c    Counts
	}{{"MUST", tl.Must}, {"SHOULD", tl.Should}} {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d |\n", row.name, row.c.Pass, row.c.Fail, row.c.Indeterminate, row.c.NotApplicable)
	}
	fmt.Fprintf(b, "\nevaluated: %d of %d rules (pass or fail); %s %s.\n",
		tl.Must.Evaluated()+tl.Should.Evaluated(), tl.Total, plural(tl.Findings, "finding breaks", "findings break"), plural(tl.FailedRules, "rule", "rules"))

	findings := r.Findings()
	m.failures(b, r, findings)
	mdComparison(b, r)
	if r.Deprecations != nil {
		b.WriteString("\n")
		mdInventory(b, r, "###")
	}
	m.indeterminate(b, r)
}

func (m *markdownRenderer) failures(b *strings.Builder, r *Result, findings []Finding) {
	if len(findings) == 0 {
		return
	}
	b.WriteString("\n### Failures, most urgent first\n\n| # | level | rules | what | gate |\n|---:|---|---|---|---|\n")
	for i, f := range findings {
		state := "fails it"
		switch {
		case r.Known(f):
			state = "known"
		case !f.Gated(r.EffectiveGate()):
			state = "below it"
		}
		names := make([]string, len(f.Rules))
		for j, n := range f.RuleNames() {
			names[j] = "`" + n + "`"
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s |\n", i+1, f.Level(), strings.Join(names, ", "), mdRule(f.Headline()), state)
	}
	fmt.Fprintf(b, "\n<details><summary>Every failure in full (%s)</summary>\n\n", countPhrase(len(findings), r.Tally().FailedRules))
	for i, f := range findings {
		p := f.Primary()
		fmt.Fprintf(b, "#### %d. [%s] `%s`\n\n", i+1, p.Rule.Level, p.Rule.ID)
		fmt.Fprintf(b, "- **requirement:** %s\n- **observed:** %s\n- **remediation:** %s\n- **spec:** %s\n",
			mdRule(p.Rule.Requirement), md(orDash(p.Observed())), mdRule(p.Rule.Remediation), mdURL(p.Rule.SpecURL))
		for _, rr := range f.Rules[1:] {
			fmt.Fprintf(b, "- **also breaks:** [%s] `%s`: %s\n", rr.Rule.Level, rr.Rule.ID, mdRule(rr.Rule.Requirement))
		}
		b.WriteString("\n")
	}
	b.WriteString("</details>\n")
}

func mdComparison(b *strings.Builder, r *Result) {
	um := r.Unmatched()
	if r.Comparison == nil || len(um) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### Compared with %s\n\n", md(r.Comparison.Against))
	seen := map[string]bool{}
	for _, u := range um {
		switch {
		case u.Fixed && !seen[u.Rule]:
			seen[u.Rule] = true
			fmt.Fprintf(b, "- ✅ fixed: `%s`\n", u.Rule)
		case !u.Fixed:
			fmt.Fprintf(b, "- ⚠️ stale entry `%s` (%s): %s\n", u.Rule, u.Observation, md(u.Why))
		}
	}
}

func (m *markdownRenderer) indeterminate(b *strings.Builder, r *Result) {
	var undecided []RuleResult
	for _, rr := range sortedRules(r) {
		if rr.Status == rules.Indeterminate {
			undecided = append(undecided, rr)
		}
	}
	if len(undecided) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### Indeterminate: %s, never counted as a pass\n\n| area | rules | levels |\n|---|---:|---|\n", plural(len(undecided), "rule", "rules"))
	for _, a := range byArea(undecided) {
		fmt.Fprintf(b, "| %s | %d | %s |\n", a.area, len(a.rules), levelSplit(a.rules))
	}
	if m.show != ShowAll {
		b.WriteString("\n`--show all` lists each rule with why and what would settle it.\n")
		return
	}
	b.WriteString("\n<details><summary>Every indeterminate rule, by reason</summary>\n\n")
	for _, g := range byReason(undecided) {
		fmt.Fprintf(b, "- **why:** %s **Would settle it:** %s\n", md(sentence(g.why)), md(g.settle))
		for _, rr := range g.rules {
			fmt.Fprintf(b, "  - [%s] `%s`\n", rr.Rule.Level, rr.Rule.Name)
		}
	}
	b.WriteString("\n</details>\n")
}

func mdInventory(b *strings.Builder, r *Result, heading string) {
	inv := r.Deprecations
	fmt.Fprintf(b, "%s Deprecation inventory: %s as of %s\n\n", heading, plural(len(inv.Items), "feature in use", "features in use"), inv.Today.Format(time.DateOnly))
	if len(inv.Items) == 0 {
		b.WriteString("No deprecated or removed feature was seen in use.\n")
		return
	}
	b.WriteString("| feature | status | side | removable on or after | migrate to |\n|---|---|---|---|---|\n")
	for _, it := range inv.Items {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", md(it.Name), it.Status, it.Side, md(it.Due), md(it.Replacement))
	}
}

// mdEscaper escapes what Markdown or HTML would read in text that came from a target.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;",
	"&", "&amp;", "|", `\|`, "#", `\#`, "!", `\!`, "\n", " ", "\r", " ",
)

// mdRuleEscaper escapes registry text, which is written with Markdown code spans: only what
// would break a table cell or become HTML.
var mdRuleEscaper = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ", "\r", " ")

// mdRule makes registry text (requirements, remediations, headlines) safe inline, keeping its
// code spans.
func mdRule(s string) string { return mdRuleEscaper.Replace(clean(s)) }

// md makes s safe as inline Markdown text: one line, terminal escapes made visible, Markdown and
// HTML syntax escaped.
func md(s string) string { return mdEscaper.Replace(clean(s)) }

// mdURL writes a URL from the registry as an autolink; anything that is not an https URL is
// written as escaped text.
func mdURL(u string) string {
	if strings.HasPrefix(u, "https://") && !strings.ContainsAny(u, " <>\n") {
		return "<" + u + ">"
	}
	return md(u)
}
