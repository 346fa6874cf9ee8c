package passive

import (
	"reflect"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

// TestRunForMatchesRun checks RunFor's promise on every case under testdata/cases: for each
// check's rules, with a History built the same way, RunFor returns exactly the outcomes Run
// returns for those rules, in Run's order. A check that began reading History another check
// writes would break this here, not silently in a scan.
func TestRunForMatchesRun(t *testing.T) {
	forEachCase(t, func(t *testing.T, _ string, a archive) {
		history := func() *History {
			h := NewHistory()
			if pre, ok := a.sections["before-request"]; ok {
				Run(buildExchange(t, "before", pre, a.sections["before-response"]), h)
			}
			return h
		}
		ex := buildExchange(t, "ex-1", a.sections["request"], a.sections["response"])
		all := Run(ex, history())
		for _, e := range entries() {
			want := map[string]bool{}
			for _, n := range e.rules {
				want[rules.IDOf(n)] = true
			}
			var expect []rules.Outcome
			for _, o := range all {
				if want[o.RuleID] {
					expect = append(expect, o)
				}
			}
			got := RunFor(ex, history(), e.rules...)
			if !reflect.DeepEqual(got, expect) {
				t.Errorf("RunFor(%v) = %s\nRun gave for those rules: %s", e.rules, dump(got), dump(expect))
			}
		}
	})
}
