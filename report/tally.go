package report

import "github.com/mcp-sentinel/sentinel/rules"

// Tally is every count a report prints, computed once from the result so that every format
// (text, Markdown, HTML, JSON, SARIF, JUnit, the CLI's stderr) says the same numbers.
type Tally struct {
	// Gate is the gate judged by (Result.Gate, GateMust when empty); Verdict its verdict.
	Gate    Gate    `json:"gate"`
	Verdict Verdict `json:"verdict"`
	// Findings counts distinct failing behaviours; FailedRules the rules they break. A rule
	// shared by two findings is counted once.
	Findings    int `json:"findings"`
	FailedRules int `json:"failedRules"`
	// GateFindings and GateRules count what fails the gate: new findings with a gated rule,
	// and their gated rules.
	GateFindings int `json:"gateFindings"`
	GateRules    int `json:"gateRules"`
	// Known counts findings the comparison knew before; Fixed the known rules that pass now;
	// Stale the known entries that match nothing else. Zero without a comparison.
	Known int `json:"known"`
	Fixed int `json:"fixed"`
	Stale int `json:"stale"`
	// Must and Should count rule statuses by level group; Indeterminate and Total are over all
	// rules of the result.
	Must          Counts `json:"must"`
	Should        Counts `json:"should"`
	Indeterminate int    `json:"indeterminate"`
	Total         int    `json:"total"`
}

// EffectiveGate is the gate r is judged by: r.Gate, or GateMust when none was recorded.
func (r *Result) EffectiveGate() Gate {
	if r.Gate == "" {
		return GateMust
	}
	return r.Gate
}

// Tally counts r for its effective gate.
func (r *Result) Tally() Tally {
	g := r.EffectiveGate()
	fs := r.Findings()
	t := Tally{Gate: g, Verdict: g.verdict(r, fs), Total: len(r.Rules)}
	t.Must, t.Should = r.Summary()
	t.Indeterminate = t.Must.Indeterminate + t.Should.Indeterminate
	for _, f := range fs {
		t.Findings++
		if r.Known(f) {
			t.Known++
		}
	}
	for _, rr := range r.Rules {
		if rr.Status == rules.Fail {
			t.FailedRules++
		}
	}
	failing := g.failing(r, fs)
	t.GateFindings = len(failing)
	t.GateRules = len(g.failures(failing))
	fixed := map[string]bool{}
	for _, u := range r.Unmatched() {
		if u.Fixed {
			fixed[u.Rule] = true
		} else {
			t.Stale++
		}
	}
	t.Fixed = len(fixed)
	return t
}
