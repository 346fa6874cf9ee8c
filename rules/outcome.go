package rules

// Status is the closed set of outcomes a rule can have for one target. Handle it with an
// exhaustive switch; CountsForGate writes "indeterminate is never a pass" in one place.
type Status string

// The four outcomes.
const (
	// Pass: the evidence shows the server meets the rule.
	Pass Status = "pass"
	// Fail: the evidence shows a violation; Observed says what was seen.
	Fail Status = "fail"
	// Indeterminate: the scan could not settle the rule; Why says what it could not see.
	Indeterminate Status = "indeterminate"
	// NotApplicable: the feature the rule is about is absent (no prompts capability means prompt
	// rules are n/a, never failures).
	NotApplicable Status = "n/a"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case Pass, Fail, Indeterminate, NotApplicable:
		return true
	}
	return false
}

// CountsForGate reports whether the outcome decides a gate: only pass and fail do. An
// indeterminate or n/a outcome is excluded from the gate and never counted as a pass.
func (s Status) CountsForGate() bool { return s == Pass || s == Fail }

// Evaluated reports whether the rule was actually settled (pass or fail) on this target.
func (s Status) Evaluated() bool { return s.CountsForGate() }

// Rank orders statuses by how much they say against a server when several outcomes for the same
// rule are merged: fail beats pass beats indeterminate beats n/a.
func (s Status) Rank() int {
	switch s {
	case Fail:
		return 3
	case Pass:
		return 2
	case Indeterminate:
		return 1
	case NotApplicable:
		return 0
	}
	return -1
}

// Outcome is what one check concluded about one rule from one piece of evidence. Several outcomes
// for the same rule are merged by the result model (a single fail makes the rule fail).
type Outcome struct {
	// RuleID is the rule the outcome is about.
	RuleID string `json:"ruleId"`
	// Status is the conclusion.
	Status Status `json:"status"`
	// Observed is the evidence in one or two sentences: what was sent and what came back. Empty
	// only for a pass that needs no explanation.
	Observed string `json:"observed,omitempty"`
	// Why explains an indeterminate or n/a outcome: what could not be seen, or what is absent.
	Why string `json:"why,omitempty"`
	// Exchange identifies the request/response pair the evidence comes from, when there is one.
	Exchange string `json:"exchange,omitempty"`
}

// Passed, Failed, Undecided and Absent build outcomes; they keep call sites in checks short.
func Passed(id, observed string) Outcome {
	return Outcome{RuleID: id, Status: Pass, Observed: observed}
}

// Failed builds a fail outcome with its evidence.
func Failed(id, observed string) Outcome {
	return Outcome{RuleID: id, Status: Fail, Observed: observed}
}

// Undecided builds an indeterminate outcome with the reason the scan could not settle the rule.
func Undecided(id, why string) Outcome { return Outcome{RuleID: id, Status: Indeterminate, Why: why} }

// Absent builds an n/a outcome naming the absent feature.
func Absent(id, why string) Outcome { return Outcome{RuleID: id, Status: NotApplicable, Why: why} }
