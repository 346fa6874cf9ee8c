package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// headerHeight is how many lines the header takes.
const headerHeight = 3

// headerView renders the top of the screen: where the proxy points and what it has seen, the
// link state, failing findings by level, and deprecated features in use with the nearest
// removal date. It says "not seen yet" rather than guessing.
func headerView(s Styles, snap Snapshot, probeEra string, now time.Time, adminURL string, width int) string {
	where := fmt.Sprintf("upstream %s · era %s", Clean(upstream(snap)), eraSeen(snap, probeEra))
	var line1 string
	switch snap.Conn.State {
	case Connecting:
		line1 = s.Warn.Render("… connecting to "+Clean(adminURL)) + " · " + where
	case Live:
		line1 = s.Pass.Render("● live") + " · " + where
	case Down:
		wait := max(snap.Conn.RetryAt.Sub(now).Round(time.Second), 0)
		line1 = s.ErrMsg.Render(fmt.Sprintf("%s admin API unreachable (retry in %v): %s", symError, wait, Clean(snap.Conn.Err)))
	}
	counts := map[rules.Level]int{}
	for _, f := range snap.Findings {
		counts[f.Level]++
	}
	more := ""
	if snap.FindingsCapped {
		more = "+"
	}
	line2 := fmt.Sprintf("failing %s %d%s · %s %d%s · %s %d%s · %s %d%s",
		s.Must.Render(symMust+" MUST"), counts[rules.Must], more, s.Must.Render(symMust+" MUST NOT"), counts[rules.MustNot], more,
		s.Should.Render(symShould+" SHOULD"), counts[rules.Should], more, s.Should.Render(symShould+" SHOULD NOT"), counts[rules.ShouldNot], more)
	return fit(line1, width) + "\n" + fit(line2, width) + "\n" + fit(deprecationLine(s, snap), width)
}

func upstream(snap Snapshot) string {
	targets := map[string]bool{}
	last := ""
	for i := len(snap.Rows) - 1; i >= 0 && len(targets) < 3; i-- {
		t := snap.Rows[i].Target
		if last == "" {
			last = t
		}
		targets[t] = true
	}
	switch {
	case last == "":
		return "not seen yet"
	case len(targets) > 1:
		return last + fmt.Sprintf(" (+%d more)", len(targets)-1)
	}
	return last
}

// eraSeen says which protocol era the traffic showed: a legacy initialize handshake, the
// 2026-07-28 server/discover, both, or nothing yet; a probe's verdict wins when there is one.
func eraSeen(snap Snapshot, probeEra string) string {
	if probeEra != "" {
		return Clean(probeEra) + " (probe)"
	}
	legacy, current := false, false
	for i := range snap.Rows {
		switch snap.Rows[i].Method {
		case "initialize":
			legacy = true
		case "server/discover":
			current = true
		}
	}
	switch {
	case legacy && current:
		return "mixed (initialize and server/discover)"
	case legacy:
		return "legacy (initialize)"
	case current:
		return "2026-07-28 (server/discover)"
	}
	return "not seen yet"
}

// deprecationLine lists deprecated features the findings or methods show in use, with the
// nearest earliest-removal date. A failing rule that grades several features at once
// (deprecated-features-avoided) does not say which one is in use, so it is named as such instead
// of being credited to all of them.
func deprecationLine(s Styles, snap Snapshot) string {
	deps := rules.Deprecations()
	covers := map[string]int{} // rule name -> how many features it grades
	for _, d := range deps {
		for _, r := range d.Rules {
			covers[r]++
		}
	}
	failing := map[string]bool{}
	for _, f := range snap.Findings {
		failing[ruleName(f.RuleID)] = true
	}
	methods := map[string]bool{}
	for i := range snap.Rows {
		methods["method:"+snap.Rows[i].Method] = true
	}
	var names, unattributed []string
	var nearest time.Time
	for _, d := range deps {
		if !inUse(d, failing, methods, covers) {
			continue
		}
		names = append(names, d.Name)
		if nearest.IsZero() || d.RemovableOn().Before(nearest) {
			nearest = d.RemovableOn()
		}
	}
	for r, n := range covers {
		if n > 1 && failing[r] {
			unattributed = append(unattributed, r)
		}
	}
	sort.Strings(names)
	sort.Strings(unattributed)
	switch {
	case len(names) == 0 && len(unattributed) == 0:
		return s.Dim.Render("deprecated features in use: none seen")
	case len(names) == 0:
		return s.Warn.Render(fmt.Sprintf("%s deprecated feature(s) in use, see rule %s", symShould, strings.Join(unattributed, ", ")))
	}
	line := fmt.Sprintf("%s deprecated in use: %s · removable on or after %s", symShould, strings.Join(names, ", "), nearest.Format("2006-01-02"))
	if len(unattributed) > 0 {
		line += " · see also " + strings.Join(unattributed, ", ")
	}
	return s.Warn.Render(line)
}

// inUse reports whether a feature shows in use: a failing rule that grades it alone, or a
// method that is evidence of it.
func inUse(d rules.Deprecation, failing, methods map[string]bool, covers map[string]int) bool {
	for _, r := range d.Rules {
		if failing[r] && covers[r] == 1 {
			return true
		}
	}
	for _, e := range d.Evidence {
		if methods[e.Kind] {
			return true
		}
	}
	return false
}
