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
// link state, failing rules by level (the findings view's rule groups, so the two always agree),
// and deprecated features in use with the nearest removal date. It says "not seen yet" rather
// than guessing.
func headerView(s Styles, snap Snapshot, groups []ruleGroup, filtered bool, probeEra string, now time.Time, adminURL string, width int) string {
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
	for _, g := range groups {
		counts[g.Level]++
	}
	more := ""
	if snap.FindingsCapped {
		more = "+"
	}
	var line2 string
	if snap.FindingsLoaded {
		line2 = fmt.Sprintf("failing rules %s %d%s · %s %d%s · %s %d%s · %s %d%s",
			s.Must.Render(symMust+" MUST"), counts[rules.Must], more, s.Must.Render(symMust+" MUST NOT"), counts[rules.MustNot], more,
			s.Should.Render(symShould+" SHOULD"), counts[rules.Should], more, s.Should.Render(symShould+" SHOULD NOT"), counts[rules.ShouldNot], more)
	} else {
		// before the first findings poll the counts are unknown: "MUST 0" beside rows that
		// already show their failures would be a guess, and a wrong one
		line2 = "failing rules " + s.Dim.Render("not read yet")
	}
	if filtered {
		line2 += " (filtered)"
	}
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

// deprecationLine names the deprecated features seen in use (from exchanges whose bodies were
// read, see featuresOf) with the nearest earliest-removal date. A failing deprecation rule whose
// exchange was not read yet is named as the rule, not credited to a guessed feature.
func deprecationLine(s Styles, snap Snapshot) string {
	inUse := map[string]bool{}
	for _, k := range snap.Features {
		inUse[k] = true
	}
	var names []string
	var nearest time.Time
	for _, d := range rules.Deprecations() {
		if !inUse[d.Key] {
			continue
		}
		names = append(names, d.Name)
		if nearest.IsZero() || d.RemovableOn().Before(nearest) {
			nearest = d.RemovableOn()
		}
	}
	var failing []string
	seen := map[string]bool{}
	for _, f := range snap.Findings {
		if sightingRules()[f.RuleID] && !seen[f.RuleID] {
			seen[f.RuleID] = true
			failing = append(failing, ruleName(f.RuleID))
		}
	}
	sort.Strings(failing)
	switch {
	case len(names) == 0 && len(failing) == 0:
		return s.Dim.Render("deprecated features in use: none seen")
	case len(names) == 0:
		return s.Warn.Render(fmt.Sprintf("%s deprecated feature(s) in use, see rule %s", symShould, strings.Join(failing, ", ")))
	}
	return s.Warn.Render(fmt.Sprintf("%s deprecated in use: %s · removable on or after %s", symShould,
		strings.Join(names, ", "), nearest.Format("2006-01-02")))
}
