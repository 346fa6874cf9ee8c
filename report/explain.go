package report

import (
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
)

// Observed returns the evidence a reader is shown for the rule's status: the Observed text of
// the first outcome with that status (outcomes are kept most telling first), or "" when no
// outcome says anything.
func (rr RuleResult) Observed() string {
	for _, o := range rr.Evidence {
		if o.Status == rr.Status && o.Observed != "" {
			return o.Observed
		}
	}
	return ""
}

// Why explains an indeterminate or n/a status: the first such outcome's Why, else the rule's
// registry reason, else a sentence saying no check produced evidence. Empty for pass and fail.
func (rr RuleResult) Why() string {
	if rr.Status != rules.Indeterminate && rr.Status != rules.NotApplicable {
		return ""
	}
	for _, o := range rr.Evidence {
		if o.Status == rr.Status && o.Why != "" {
			return o.Why
		}
	}
	if rr.Rule.Indeterminacy != nil && rr.Rule.Indeterminacy.Reason != "" {
		return rr.Rule.Indeterminacy.Reason
	}
	if rr.Status == rules.NotApplicable {
		return "the feature this rule is about is absent on the target"
	}
	return noEvidence
}

// noEvidence is the reason Merge and Why give a checkable rule that no check spoke about.
const noEvidence = "no check produced evidence for this rule in this scan"

// WouldSettle says what evidence would decide an indeterminate rule: the registry's answer for a
// rule no black-box test can settle, otherwise what the scan itself lacked. Empty for any other
// status.
func (rr RuleResult) WouldSettle() string {
	if rr.Status != rules.Indeterminate {
		return ""
	}
	if rr.Rule.Indeterminacy != nil && rr.Rule.Indeterminacy.WouldSettle != "" {
		return rr.Rule.Indeterminacy.WouldSettle
	}
	switch rr.Rule.Check {
	case rules.CheckPassive:
		return "traffic that exercises this behaviour passing the proxy or the prober's passive checks"
	case rules.CheckActive:
		return "a scan in which the active probe for this rule can run to completion against the target"
	case rules.CheckBoth:
		return "a scan in which the active probe for this rule runs to completion, or live traffic that exercises it"
	default:
		return "evidence from outside the protocol (a code review or a test fixture)"
	}
}

// PrimaryArea is the rule's first area, the one reports group it under; "general" when the rule
// lists none.
func (rr RuleResult) PrimaryArea() string {
	if len(rr.Rule.Areas) == 0 {
		return "general"
	}
	return string(rr.Rule.Areas[0])
}

// sentence ends s with a full stop unless it already ends with punctuation, so two texts can be
// joined into one message.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsRune(".!?", rune(s[len(s)-1])) {
		return s
	}
	return s + "."
}
