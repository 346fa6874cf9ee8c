package report

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestMerge(t *testing.T) {
	checked := testRule(rules.Must, "checked")
	hidden := testRule(rules.MustNot, "hidden")
	hidden.Check = rules.CheckIndeterminate
	hidden.Indeterminacy = &rules.Indeterminacy{Reason: "it happens inside the server", WouldSettle: "a code review"}
	silent := testRule(rules.Should, "silent")
	all := []rules.Rule{silent, hidden, checked}

	outcomes := []rules.Outcome{
		rules.Passed(checked.ID, "ok once"),
		rules.Failed(checked.ID, "broken once"),
		rules.Undecided(checked.ID, "could not tell"),
		rules.Passed("MCP/2026-07-28/MUST/not-in-registry", "ignored"),
	}
	for i := range MaxEvidence + 3 {
		outcomes = append(outcomes, rules.Passed(checked.ID, fmt.Sprintf("ok again %d", i)))
	}
	outcomes = append(outcomes, rules.Failed(checked.ID, "broken once")) // an exact repeat is kept once
	got := Merge(all, outcomes)
	if len(got) != 3 {
		t.Fatalf("Merge returned %d results, want one per rule (3)", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i-1].Rule.ID > got[i].Rule.ID {
			t.Fatalf("Merge result not sorted by rule ID: %q before %q", got[i-1].Rule.ID, got[i].Rule.ID)
		}
	}
	byID := map[string]RuleResult{}
	for _, rr := range got {
		byID[rr.Rule.ID] = rr
	}

	c := byID[checked.ID]
	if c.Status != rules.Fail || c.Observed() != "broken once" {
		t.Errorf("one fail among passes: status %q observed %q, want fail / broken once", c.Status, c.Observed())
	}
	if len(c.Evidence) != MaxEvidence {
		t.Errorf("kept %d outcomes, want at most MaxEvidence (%d)", len(c.Evidence), MaxEvidence)
	}
	if len(c.Observations) != 1 || c.Evidence[1].Observed == "broken once" {
		t.Errorf("observations %v, evidence %v: want one failing observation, kept once", c.Observations, c.Evidence)
	}

	h := byID[hidden.ID]
	if h.Status != rules.Indeterminate || h.Why() != "it happens inside the server" || h.WouldSettle() != "a code review" {
		t.Errorf("registry-indeterminate rule: %q why %q settle %q", h.Status, h.Why(), h.WouldSettle())
	}

	s := byID[silent.ID]
	if s.Status != rules.Indeterminate || s.Why() != noEvidence || s.WouldSettle() == "" {
		t.Errorf("checkable rule with no outcome: %q why %q settle %q, want indeterminate with a reason and a way to settle", s.Status, s.Why(), s.WouldSettle())
	}
}

func TestWhyAndWouldSettleOnlyForUnsettledRules(t *testing.T) {
	r := testResult(rules.Must, rules.Pass, rules.Must, rules.Fail, rules.Must, rules.NotApplicable)
	for _, rr := range r.Rules {
		if rr.WouldSettle() != "" {
			t.Errorf("%s rule has WouldSettle %q, want empty", rr.Status, rr.WouldSettle())
		}
	}
	if r.Rules[0].Why() != "" || r.Rules[1].Why() != "" {
		t.Errorf("pass/fail rules have a Why")
	}
	if r.Rules[2].Why() != "feature absent" {
		t.Errorf("n/a Why = %q, want the outcome's reason", r.Rules[2].Why())
	}
}

func TestSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"no stop", "no stop."},
		{"has stop.", "has stop."},
		{"question?", "question?"},
		{"  padded  ", "padded."},
		{"", ""},
	}
	for _, tt := range tests {
		if got := sentence(tt.in); got != tt.want {
			t.Errorf("sentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMergeKeepsTheSameEvidenceWhateverTheOrder: which outcomes survive the MaxEvidence cap
// does not depend on the order concurrent probes finished in, so two scans of the same server
// show (and fingerprint) the same evidence.
func TestMergeKeepsTheSameEvidenceWhateverTheOrder(t *testing.T) {
	rule := testRule(rules.Must, "many")
	var outs []rules.Outcome
	for i := range 9 {
		outs = append(outs, rules.Failed(rule.ID, fmt.Sprintf("on POST m%d → 200 application/json result: bad", i)))
	}
	outs = append(outs, rules.Failed(rule.ID, "sent a crafted request; got POST x → 400; expected 200"))
	a := Merge([]rules.Rule{rule}, outs)[0]
	slices.Reverse(outs)
	b := Merge([]rules.Rule{rule}, outs)[0]
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("Merge depends on outcome order:\n%v\n%v", a.Evidence, b.Evidence)
	}
	if !strings.HasPrefix(a.Evidence[0].Observed, "sent ") {
		t.Errorf("first evidence %q, want the probe's own request first", a.Evidence[0].Observed)
	}
	if len(a.Observations) != 10 {
		t.Errorf("%d observations, want all 10 failing ones (not only the %d kept)", len(a.Observations), MaxEvidence)
	}
}
