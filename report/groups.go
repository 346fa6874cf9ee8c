package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
)

// InventoryOnly reports whether r carries a deprecation inventory and nothing else (what
// `sentinel deprecations` renders): renderers then write the inventory alone, with no verdict.
func (r *Result) InventoryOnly() bool {
	return r.Deprecations != nil && len(r.Rules) == 0 && r.CouldNotRun == nil && r.Incomplete == nil
}

// areaGroup is the rules of one primary area.
type areaGroup struct {
	area  string
	rules []RuleResult
}

// byArea groups rule results by primary area, in the registry's area order.
func byArea(rs []RuleResult) []areaGroup {
	idx := map[string]int{}
	var out []areaGroup
	for _, rr := range rs {
		a := rr.PrimaryArea()
		i, ok := idx[a]
		if !ok {
			i = len(out)
			idx[a] = i
			out = append(out, areaGroup{area: a})
		}
		out[i].rules = append(out[i].rules, rr)
	}
	order := func(a string) int {
		if i := slices.Index(rules.AllAreas, rules.Area(a)); i >= 0 {
			return i
		}
		return len(rules.AllAreas)
	}
	slices.SortStableFunc(out, func(a, b areaGroup) int { return order(a.area) - order(b.area) })
	return out
}

// levelSplit says how many of rs are MUST-level and SHOULD-level: "MUST 8, SHOULD 4".
func levelSplit(rs []RuleResult) string {
	var must, should int
	for _, rr := range rs {
		if rr.Rule.Level.Mandatory() {
			must++
		} else {
			should++
		}
	}
	var parts []string
	if must > 0 {
		parts = append(parts, fmt.Sprintf("MUST %d", must))
	}
	if should > 0 {
		parts = append(parts, fmt.Sprintf("SHOULD %d", should))
	}
	return strings.Join(parts, ", ")
}

// reasonGroup is the indeterminate rules that share one reason and one way to settle them, so a
// reason repeated by many rules ("name one with --allow-call") is said once.
type reasonGroup struct {
	why, settle string
	rules       []RuleResult
}

// byReason groups indeterminate rules by (why, would settle), largest group first.
func byReason(rs []RuleResult) []reasonGroup {
	idx := map[[2]string]int{}
	var out []reasonGroup
	for _, rr := range rs {
		k := [2]string{rr.Why(), rr.WouldSettle()}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, reasonGroup{why: k[0], settle: k[1]})
		}
		out[i].rules = append(out[i].rules, rr)
	}
	slices.SortStableFunc(out, func(a, b reasonGroup) int { return len(b.rules) - len(a.rules) })
	return out
}
