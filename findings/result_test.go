package findings

import (
	"bytes"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/report/sarifcheck"
	"github.com/mcp-sentinel/sentinel/rules"
)

func sampleFindings() []Finding {
	var fs []Finding
	for i, r := range rules.All() {
		if i >= 3 {
			break
		}
		fs = append(fs, FromOutcome("http://t/mcp", "tools/call:x", rules.Failed(r.ID, "observed <b>&\"quoted\""), t0.Add(time.Duration(i)*time.Minute)))
	}
	fs = append(fs, Finding{Target: "http://t/mcp", RuleID: "MCP/2026-07-28/MUST/not-in-registry", Level: rules.Must,
		Status: rules.Fail, Observed: "x", FirstSeen: t0, LastSeen: t0, Count: 2})
	return fs
}

func TestToResultFailsEachRuleWithFindings(t *testing.T) {
	fs := sampleFindings()
	res := ToResult(fs, "sentinel test")
	if len(res.Rules) != len(fs) {
		t.Fatalf("ToResult gave %d rules, want %d", len(res.Rules), len(fs))
	}
	for _, rr := range res.Rules {
		if rr.Status != rules.Fail || len(rr.Evidence) == 0 || rr.Rule.Level == "" {
			t.Errorf("rule %s: status %s, %d evidence, level %q; want fail with evidence and a level", rr.Rule.ID, rr.Status, len(rr.Evidence), rr.Rule.Level)
		}
	}
	if res.Target != "http://t/mcp" {
		t.Errorf("Target = %q, want the one target", res.Target)
	}
	if err := report.GateMust.Check(res); err == nil {
		t.Error("gate must over failing MUST findings passed, want a failure")
	}
}

func TestExportedSARIFValidates(t *testing.T) {
	r, err := report.New(report.FormatSARIF, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Render(&buf, ToResult(sampleFindings(), "sentinel test")); err != nil {
		t.Fatalf("Render = %v", err)
	}
	if err := sarifcheck.Validate(buf.Bytes()); err != nil {
		t.Fatalf("exported SARIF does not validate: %v\n%s", err, buf.String())
	}
}
