package report

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// The HTML report's two charts are inline SVG built here: no script, no library, no network.
// Every label goes through template.HTMLEscapeString.

// chartStatuses are the segments of a bar, in drawing order, with their CSS class.
var chartStatuses = []struct {
	status rules.Status
	class  string
}{
	{rules.Fail, "seg-fail"}, {rules.Pass, "seg-pass"}, {rules.Indeterminate, "seg-indet"}, {rules.NotApplicable, "seg-na"},
}

// outcomeChartSVG draws, for each primary area, one bar for its MUST-level rules and one for its
// SHOULD-level rules, split by status. Bars share one scale so areas compare by size.
func outcomeChartSVG(r *Result) template.HTML {
	type row struct {
		area         string
		must, should map[rules.Status]int
	}
	var rows []row
	for _, g := range byArea(sortedRules(r)) {
		rw := row{area: g.area, must: map[rules.Status]int{}, should: map[rules.Status]int{}}
		for _, rr := range g.rules {
			if rr.Rule.Level.Mandatory() {
				rw.must[rr.Status]++
			} else {
				rw.should[rr.Status]++
			}
		}
		rows = append(rows, rw)
	}
	biggest := 1
	for _, rw := range rows {
		for _, m := range []map[rules.Status]int{rw.must, rw.should} {
			biggest = max(biggest, m[rules.Fail]+m[rules.Pass]+m[rules.Indeterminate]+m[rules.NotApplicable])
		}
	}
	const labelW, barW, barH, gap, top = 120.0, 560.0, 11.0, 2.0, 24.0
	rowH := 2*barH + gap + 8
	height := top + float64(len(rows))*rowH + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" role="img" aria-label="Outcomes by area and level" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" xmlns="http://www.w3.org/2000/svg">`,
		labelW+barW+80, height, labelW+barW+80, height)
	x := labelW
	for _, s := range chartStatuses {
		fmt.Fprintf(&b, `<rect class="%s" x="%.0f" y="4" width="10" height="10"/><text x="%.0f" y="13" class="legend">%s</text>`, s.class, x, x+14, s.status)
		x += 110
	}
	for i, rw := range rows {
		y := top + float64(i)*rowH
		fmt.Fprintf(&b, `<g class="area-row" data-area="%s"><text x="%.0f" y="%.1f" class="area" text-anchor="end">%s</text>`,
			template.HTMLEscapeString(rw.area), labelW-8, y+barH+gap/2+4, template.HTMLEscapeString(rw.area))
		for j, lv := range []struct {
			name string
			m    map[rules.Status]int
		}{{"MUST", rw.must}, {"SHOULD", rw.should}} {
			by := y + float64(j)*(barH+gap)
			bx := labelW
			for _, s := range chartStatuses {
				n := lv.m[s.status]
				if n == 0 {
					continue
				}
				w := barW * float64(n) / float64(biggest)
				fmt.Fprintf(&b, `<rect class="bar %s" data-level="%s" data-status="%s" data-count="%d" x="%.1f" y="%.1f" width="%.1f" height="%.0f"><title>%s %s: %d %s</title></rect>`,
					s.class, lv.name, s.status, n, bx, by, w, barH, template.HTMLEscapeString(rw.area), lv.name, n, s.status)
				bx += w
			}
			total := lv.m[rules.Fail] + lv.m[rules.Pass] + lv.m[rules.Indeterminate] + lv.m[rules.NotApplicable]
			if total > 0 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="count">%s %d</text>`, bx+4, by+barH-2, lv.name, total)
			}
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// timelineSVG draws each inventory item on one time axis from the earliest date shown to the
// latest removal date: a marker for today and, per item, a bar from today to its removal date
// (or a mark in the past for a feature already removed).
func timelineSVG(inv *Inventory) template.HTML {
	if inv == nil || len(inv.Items) == 0 {
		return ""
	}
	start, end := inv.Today, inv.Today
	for _, it := range inv.Items {
		if it.RemovableOn.Before(start) {
			start = it.RemovableOn
		}
		if it.RemovableOn.After(end) {
			end = it.RemovableOn
		}
	}
	start, end = start.AddDate(0, -1, 0), end.AddDate(0, 1, 0)
	const labelW, axisW, rowH, top = 260.0, 440.0, 22.0, 34.0
	span := end.Sub(start).Hours()
	xOf := func(t time.Time) float64 { return labelW + axisW*t.Sub(start).Hours()/span }
	height := top + float64(len(inv.Items))*rowH + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline" role="img" aria-label="Deprecation timeline" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" xmlns="http://www.w3.org/2000/svg">`,
		labelW+axisW+120, height, labelW+axisW+120, height)
	tx := xOf(inv.Today)
	fmt.Fprintf(&b, `<line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`, labelW, top-6, labelW+axisW, top-6)
	fmt.Fprintf(&b, `<line class="today" x1="%.1f" y1="14" x2="%.1f" y2="%.0f"/><text class="today-label" x="%.1f" y="11" text-anchor="middle">today %s</text>`,
		tx, tx, height-4, tx, inv.Today.Format(time.DateOnly))
	for i, it := range inv.Items {
		y := top + float64(i)*rowH
		x := xOf(it.RemovableOn)
		class := "due-later"
		switch {
		case it.Status == "removed":
			class = "removed"
		case it.Months <= 6:
			class = "due-soon"
		}
		fmt.Fprintf(&b, `<g class="item %s" data-key="%s" data-removable="%s"><text x="%.0f" y="%.1f" text-anchor="end">%s</text>`,
			class, template.HTMLEscapeString(it.Key), it.RemovableOn.Format(time.DateOnly), labelW-8, y+12, template.HTMLEscapeString(it.Name))
		if x > tx {
			fmt.Fprintf(&b, `<rect class="span" x="%.1f" y="%.1f" width="%.1f" height="8"/>`, tx, y+5, x-tx)
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5"/><text class="date" x="%.1f" y="%.1f">%s</text></g>`,
			x, y+9, x+9, y+13, template.HTMLEscapeString(it.RemovableOn.Format(time.DateOnly)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
