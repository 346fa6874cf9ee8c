package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// TestJumpFromAFindingToItsExchangeAndBack: x on a rule in the findings view opens the exchange
// that showed it; esc returns to the findings view. From a rule's detail, x opens the exchange
// and esc returns to that detail, then to the list.
func TestJumpFromAFindingToItsExchangeAndBack(t *testing.T) {
	f := newFixture(t)
	press(t, f.m, "<tab>") // findings view; the MUST rule (result-type-present, ex-1) is first
	mustContain(t, screen(f.m), "result-type-present")
	f.api.exchanges["ex-1"] = f.api.exchanges["ex-3"]
	press(t, f.m, "x")
	if f.m.view != viewDetail || f.m.detail.row == nil || f.m.detail.row.ID != "ex-1" {
		t.Fatalf("x did not open the finding's exchange ex-1:\n%s", screen(f.m))
	}
	mustContain(t, screen(f.m), "exchange ex-1", "── request POST")
	press(t, f.m, "<esc>")
	if f.m.view != viewFindings {
		t.Fatalf("esc after x went to view %d, want the findings view", f.m.view)
	}

	press(t, f.m, "<enter>") // the rule's detail
	mustContain(t, screen(f.m), "x: open exchange ex-1")
	press(t, f.m, "x")
	mustContain(t, screen(f.m), "exchange ex-1")
	press(t, f.m, "<esc>")
	if f.m.view != viewDetail || f.m.detail.group == nil {
		t.Fatalf("esc from the exchange did not come back to the rule's detail:\n%s", screen(f.m))
	}
	mustContain(t, screen(f.m), "rule "+ruleID(t, "result-type-present"))
	press(t, f.m, "<esc>")
	if f.m.view != viewFindings {
		t.Fatalf("a second esc went to view %d, want the findings view", f.m.view)
	}
}

// TestJumpToAnExchangeOutsideTheRing: a finding whose exchange is no longer in the list is
// fetched by ID from the admin API.
func TestJumpToAnExchangeOutsideTheRing(t *testing.T) {
	f := newFixture(t)
	old := finding(t, "result-type-present", "initialize", "ex-old", 1)
	f.cache.SetFindings(append([]findings.Finding{old}, f.m.live.Findings...), false)
	refresh(t, f.m)
	f.api.exchanges["ex-old"] = f.api.exchanges["ex-3"]
	press(t, f.m, "<tab>x")
	mustContain(t, screen(f.m), "exchange ex-old")
}

// TestProbeRuleDetail: enter on a rule of a finished probe opens it in full, with the probe's
// evidence; esc returns to the probe view.
func TestProbeRuleDetail(t *testing.T) {
	f := newFixture(t)
	fail := report.RuleResult{Rule: rules.Rule{ID: ruleID(t, "cache-hints-present"), Name: "cache-hints-present", Level: rules.Must,
		Requirement: "Results carry ttlMs and cacheScope.", Remediation: "Add them.", SpecURL: rules.SpecBase + "x", Check: rules.CheckBoth},
		Status: rules.Fail, Evidence: []rules.Outcome{rules.Failed(ruleID(t, "cache-hints-present"), "on POST tools/list → 200: no ttlMs")}}
	pass := report.RuleResult{Rule: rules.Rule{ID: ruleID(t, "result-type-present"), Name: "result-type-present", Level: rules.Must}, Status: rules.Pass}
	f.api.result = &report.Result{Target: "http://127.0.0.1:8080/mcp", Era: "2026-07-28", Rules: []report.RuleResult{pass, fail}}
	press(t, f.m, "p")
	mustContain(t, screen(f.m), "▶ ✖ fail", "enter: the rule in full")
	press(t, f.m, "<enter>")
	mustContain(t, screen(f.m), "rule "+fail.Rule.ID, "on POST tools/list → 200: no ttlMs", "fix: Add them.")
	press(t, f.m, "<esc>j<enter>")
	mustContain(t, screen(f.m), "rule "+pass.Rule.ID)
}

// TestMethodColumnFitsItsContent: the METHOD column is as wide as the longest method shown, so a
// long method is not cut and a short list wastes no columns.
func TestMethodColumnFitsItsContent(t *testing.T) {
	f := newFixture(t)
	head := lineWith(screen(f.m), "METHOD")
	if got, want := strings.Index(head, "NAME")-strings.Index(head, "METHOD"), len("initialize")+1; got != want {
		t.Errorf("METHOD column is %d wide, want %d (the longest method, initialize, and a space):\n%s", got, want, head)
	}
	f.cache.AddExchange(Row{ID: "ex-9", Target: "t", Started: t0.Add(9e9), Method: "notifications/resources/updated", Status: 202, Graded: "graded"})
	refresh(t, f.m)
	mustContain(t, screen(f.m), "notifications/resources/upd")
}

// TestHeaderCountsEqualTheFindingsView: the header counts failing rules as the findings view
// groups them, whatever number of stored findings (keys) each rule has.
func TestHeaderCountsEqualTheFindingsView(t *testing.T) {
	f := newFixture(t)
	var fs = f.m.live.Findings
	for i := range 3 { // the same MUST rule seen on three more keys
		fs = append(fs, finding(t, "result-type-present", fmt.Sprintf("tools/call:t%d", i), fmt.Sprintf("ex-%d", 10+i), 1))
	}
	f.cache.SetFindings(fs, false)
	refresh(t, f.m)
	mustContain(t, screen(f.m), "✖ MUST 1 ")
	press(t, f.m, "<tab>")
	if got := strings.Count(screen(f.m), "result-type-present"); got != 1 {
		t.Errorf("the findings view lists result-type-present %d times, want once", got)
	}
	mustContain(t, screen(f.m), "findings: 2 rule(s)")
}

func TestPrettyJSONShowsEscapedCharactersAsThemselves(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"q":"a\u003cb\u003e \u0026 c"}`, "{\n  \"q\": \"a<b> & c\"\n}"},
		{`{"s":"\ud83d\ude00"}`, "{\n  \"s\": \"😀\"\n}"},
		{`{"keep":"\u0022 \u005c \u0007 \\u003c"}`, "{\n  \"keep\": \"\\u0022 \\u005c \\u0007 \\\\u003c\"\n}"},
		{`{"\u003ckey\u003e":1}`, "{\n  \"<key>\": 1\n}"},
	}
	for _, tt := range tests {
		if got := pretty([]byte(tt.in)); got != tt.want {
			t.Errorf("pretty(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestShiftTabGoesBack(t *testing.T) {
	f := newFixture(t)
	for _, step := range []struct {
		keys string
		want viewID
	}{{"<shift+tab>", viewProbe}, {"<shift+tab>", viewFindings}, {"<shift+tab>", viewExchanges}, {"<tab>", viewFindings}} {
		press(t, f.m, step.keys)
		if f.m.view != step.want {
			t.Fatalf("after %s the view is %d, want %d", step.keys, f.m.view, step.want)
		}
	}
}

// TestExportUsesEveryRegisteredFormat: the export's file name picks any format of the report
// registry.
func TestExportUsesEveryRegisteredFormat(t *testing.T) {
	for _, rf := range report.Registered() {
		got, err := exportFormat("findings" + rf.Ext)
		if err != nil || got != rf.Name {
			t.Errorf("exportFormat(findings%s) = %q, %v; want %s", rf.Ext, got, err, rf.Name)
		}
	}
	if _, err := exportFormat("findings.docx"); err == nil || !strings.Contains(err.Error(), ".sarif") {
		t.Errorf("an unknown extension: %v, want an error listing the known ones", err)
	}
}

// TestHeaderSaysCountsAreUnknownBeforeTheFirstFindingsRead: rows arrive on the live stream before
// the first findings poll answers, and until it does the header does not claim "MUST 0" beside
// rows that already show their failures; once the store has answered, even with nothing, the
// counts are shown.
func TestHeaderSaysCountsAreUnknownBeforeTheFirstFindingsRead(t *testing.T) {
	cache := NewCache(0)
	cache.AddExchanges([]Row{{ID: "ex-1", Target: "http://127.0.0.1:8080/mcp", Started: t0, Method: "initialize", Key: "initialize", Status: 200, Graded: "graded", Count: 2}})
	cache.SetConn(Conn{State: Live, Since: t0})
	header := func() string {
		return headerView(NewStyles(false), cache.Snapshot(), nil, false, "", t0, "http://127.0.0.1:9090", 120)
	}
	if h := header(); !strings.Contains(h, "failing rules not read yet") || strings.Contains(h, "MUST 0") {
		t.Errorf("header before the first findings read:\n%s\nwant \"failing rules not read yet\" and no count", h)
	}
	cache.SetFindings(nil, false)
	if h := header(); !strings.Contains(h, "MUST 0") || strings.Contains(h, "not read yet") {
		t.Errorf("header after an empty findings read:\n%s\nwant the counts, MUST 0", h)
	}
}
