// Package passive holds Sentinel's passive checks: pure functions over one observed exchange
// (wire.Exchange) that return outcomes for the rules they enforce. The active prober runs them on
// every response it receives; the proxy runs them on live traffic. No I/O, no clock, no state
// except what History carries between exchanges of one target.
//
// passive imports rules, wire and eval (the deterministic injection detector) only; never
// active, proxy, broker or fixtures. Decoding is forgiving and case-sensitive, every loop over
// peer data is bounded, and a check that panics is recovered by Run.
package passive

import (
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Check is one passive check. It returns outcomes only for the rules it enforces, and only when
// the exchange says something about them: a check with nothing to judge returns nil (an absent
// outcome is not a pass). h may be nil when the caller keeps no history.
type Check func(ex *wire.Exchange, h *History) []rules.Outcome

// Entry registers a check under the rule IDs it can produce outcomes for. The registry test uses
// RuleIDs to prove every rule marked passive has a check, and every check cites real rules.
type Entry struct {
	Name    string
	RuleIDs []string
	Check   Check
}
