package passive

import (
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// RunOver is Run for an exchange that travelled over transport tr: outcomes for rules that do not
// bind a server on tr are dropped. The checks judge an HTTP-only rule from what only HTTP has (a
// status, a header, a Content-Type), so over stdio, where an exchange has none of them, their
// verdicts would be about an absence the binding never promised; the caller reports those rules
// n/a once, with rules.Rule.AppliesOver's reason, instead.
func RunOver(tr rules.Transport, ex *wire.Exchange, h *History) []rules.Outcome {
	out := Run(ex, h)
	kept := out[:0]
	for _, o := range out {
		if appliesOver(o.RuleID, tr) {
			kept = append(kept, o)
		}
	}
	return kept
}

// appliesOver reports whether rule id binds a server on tr; an unknown rule is kept, so the
// registry tests (not this filter) catch it.
func appliesOver(id string, tr rules.Transport) bool {
	r, ok := rules.ByID(id)
	if !ok {
		return true
	}
	applies, _ := r.AppliesOver(tr)
	return applies
}
