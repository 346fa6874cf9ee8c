package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

func init() {
	register(Format{Name: FormatHTML, Ext: ".html", Help: "one self-contained page: chart, failures, deprecation timeline", order: 5,
		new: func(o Options) Renderer { return &htmlRenderer{show: o.Show} }})
}

var _ Renderer = (*htmlRenderer)(nil)

// htmlRenderer writes one self-contained HTML page: the verdict, a chart of outcomes by area and
// level, the failures with their evidence and remediation, the comparison with a baseline, the
// deprecation inventory on a timeline to each removal date, and the indeterminate rules collapsed.
// CSS and the charts (inline SVG) are in the page; it loads nothing (its Content-Security-Policy
// forbids it) and runs no script. Every string is escaped by html/template.
type htmlRenderer struct {
	show Show
}

// Render writes r as HTML, built whole and written in one call.
func (h *htmlRenderer) Render(w io.Writer, r *Result) error {
	if r == nil {
		return errNilResult
	}
	var buf bytes.Buffer
	if err := htmlPage().Execute(&buf, h.page(r)); err != nil {
		return fmt.Errorf("building the HTML report: %w", err)
	}
	return writeAll(w, "HTML", buf.Bytes())
}

// htmlData is what the page template reads.
type htmlData struct {
	Title, VerdictLine, VerdictClass string
	InventoryOnly                    bool
	Facts                            [][2]string
	Notes                            []string
	Tally                            Tally
	Chart                            template.HTML
	Findings                         []htmlFinding
	Fixed                            []string
	Stale                            []Unmatched
	ComparedWith                     string
	Inventory                        *Inventory
	Timeline                         template.HTML
	Undecided                        []htmlReason
	UndecidedTotal                   int
	ShowAll                          bool
	Settled                          []RuleResult
}

// htmlReason is a reasonGroup with exported fields, for the template.
type htmlReason struct {
	Why, Settle string
	Rules       []RuleResult
}

type htmlFinding struct {
	N           int
	Level       string
	Class       string
	Rank        string
	Headline    string
	State       string
	Rules       []RuleResult
	Evidence    []rules.Outcome
	Remediation string
	SpecURL     string
}

func (h *htmlRenderer) page(r *Result) htmlData {
	tl := r.Tally()
	d := htmlData{Title: "Sentinel report: " + r.Target, VerdictLine: r.VerdictLine(), Tally: tl,
		VerdictClass: string(tl.Verdict), InventoryOnly: r.InventoryOnly(), Notes: r.Notes,
		Inventory: r.Deprecations, ShowAll: h.show == ShowAll}
	for _, f := range [][2]string{{"target", r.Target}, {"era", r.Era}, {"tool", r.Tool}, {"gate", string(tl.Gate) + ": " + gateMeaning(tl.Gate)}} {
		if f[1] != "" && (f[0] != "gate" || !d.InventoryOnly) {
			d.Facts = append(d.Facts, f)
		}
	}
	if !r.Started.IsZero() {
		d.Facts = append(d.Facts, [2]string{"started", r.Started.UTC().Format(time.RFC3339) + ", took " + r.Duration.Round(time.Millisecond).String()})
	}
	if r.Deprecations != nil {
		d.Timeline = timelineSVG(r.Deprecations)
	}
	if d.InventoryOnly {
		d.Title = "Sentinel deprecation inventory: " + r.Target
		return d
	}
	d.Chart = outcomeChartSVG(r)
	for i, f := range r.Findings() {
		p := f.Primary()
		state := "fails the gate"
		switch {
		case r.Known(f):
			state = "known to " + r.Comparison.Against
		case !f.Gated(tl.Gate):
			state = "below the gate"
		}
		var ev []rules.Outcome
		for _, rr := range f.Rules {
			for _, o := range rr.Evidence {
				if o.Status == rules.Fail {
					ev = append(ev, o)
				}
			}
		}
		d.Findings = append(d.Findings, htmlFinding{N: i + 1, Level: string(f.Level()), Class: levelClass(f.Level()),
			Rank: f.Rank.String(), Headline: f.Headline(), State: state, Rules: f.Rules, Evidence: ev,
			Remediation: p.Rule.Remediation, SpecURL: p.Rule.SpecURL})
	}
	if r.Comparison != nil {
		d.ComparedWith = r.Comparison.Against
		seen := map[string]bool{}
		for _, u := range r.Unmatched() {
			switch {
			case u.Fixed && !seen[u.Rule]:
				seen[u.Rule] = true
				d.Fixed = append(d.Fixed, u.Rule)
			case !u.Fixed:
				d.Stale = append(d.Stale, u)
			}
		}
	}
	var undecided []RuleResult
	for _, rr := range sortedRules(r) {
		switch rr.Status {
		case rules.Indeterminate:
			undecided = append(undecided, rr)
		case rules.Pass, rules.NotApplicable:
			d.Settled = append(d.Settled, rr)
		case rules.Fail:
		}
	}
	for _, g := range byReason(undecided) {
		d.Undecided = append(d.Undecided, htmlReason{Why: g.why, Settle: g.settle, Rules: g.rules})
	}
	d.UndecidedTotal = len(undecided)
	return d
}

func levelClass(l rules.Level) string {
	if l.Mandatory() {
		return "must"
	}
	return "should"
}

// safeURL lets only https links from the registry become hrefs; html/template escapes the rest.
func safeURL(u string) template.URL {
	if strings.HasPrefix(u, "https://") {
		return template.URL(u)
	}
	return template.URL("#")
}
