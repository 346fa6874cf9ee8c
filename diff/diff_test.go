package diff

import (
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

func rr(name string, s rules.Status, obs string) report.RuleResult {
	id := rules.MakeID(rules.Must, name)
	r := report.RuleResult{Rule: rules.Rule{ID: id, Name: name, Level: rules.Must}, Status: s}
	if obs != "" {
		r.Evidence = []rules.Outcome{{RuleID: id, Status: s, Observed: obs, Exchange: "ex-" + name}}
	}
	return r
}

func TestCompare(t *testing.T) {
	older := &report.Result{Rules: []report.RuleResult{
		rr("a", rules.Fail, "on POST tools/list → 200 application/json result: x"),
		rr("b", rules.Fail, "on POST prompts/list → 200 application/json result: x"),
		rr("c", rules.Pass, ""),
		rr("d", rules.Pass, ""),
	}}
	newer := &report.Result{Notes: []string{"scan note"}, Rules: []report.RuleResult{
		rr("a", rules.Fail, "on POST tools/list → 200 application/json result: reworded"),
		rr("b", rules.Pass, ""),
		rr("c", rules.Fail, "sent x; got POST y → 200; expected 400"),
		rr("d", rules.Indeterminate, ""),
	}}
	res, s := Compare(older, newer, "old.json")
	if len(s.Regressions) != 1 || s.Regressions[0].Primary().Rule.Name != "c" {
		t.Errorf("regressions %v, want c", s.Regressions)
	}
	if len(s.Unchanged) != 1 || s.Unchanged[0].Primary().Rule.Name != "a" {
		t.Errorf("unchanged %v, want a (a reworded message is the same observation)", s.Unchanged)
	}
	if len(s.Fixed) != 1 || !strings.HasSuffix(s.Fixed[0], "/b") || len(s.Unsettled) != 1 || !strings.HasSuffix(s.Unsettled[0], "/d") {
		t.Errorf("fixed %v unsettled %v, want b and d", s.Fixed, s.Unsettled)
	}
	if s.Line() != "1 regression, 1 fixed, 1 unchanged" {
		t.Errorf("Line() = %q", s.Line())
	}
	if len(newer.Notes) != 1 || len(res.Notes) != 2 || !strings.Contains(res.Notes[1], "Settled before, not settled now: d.") {
		t.Errorf("notes: newer %v, result %v: want the comparison noted on a copy only", newer.Notes, res.Notes)
	}
	res.Gate = report.GateShould
	if v := res.Gate.Verdict(res); v != report.VerdictFailed {
		t.Errorf("verdict %s, want failed on the regression", v)
	}
	if _, same := Compare(newer, newer, "new.json"); len(same.Regressions) != 0 || len(same.Fixed) != 0 {
		t.Errorf("a result against itself: %s", same.Line())
	}
}
