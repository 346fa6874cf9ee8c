package report

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// testRule builds a registry-shaped rule for tests; the registry itself may be mid-edit.
func testRule(l rules.Level, name string) rules.Rule {
	return rules.Rule{
		ID:          rules.MakeID(l, name),
		Name:        name,
		Level:       l,
		Requirement: "The server does " + name + ".",
		SpecURL:     rules.SpecBase + "basic#" + name,
		Remediation: "Make the server do " + name + ".",
		Check:       rules.CheckPassive,
		Areas:       []rules.Area{rules.AreaJSONRPC},
	}
}

// testResult builds a result with one rule per (level, status) pair given.
func testResult(pairs ...any) *Result {
	r := &Result{
		Schema: SchemaVersion, Tool: "sentinel 0.0.0-test", Target: "http://127.0.0.1:1/mcp",
		Started: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC), Duration: time.Second,
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		l, s := pairs[i].(rules.Level), pairs[i+1].(rules.Status)
		rule := testRule(l, fmt.Sprintf("rule-%02d", i/2))
		rr := RuleResult{Rule: rule, Status: s}
		switch s {
		case rules.Fail:
			rr.Evidence = []rules.Outcome{rules.Failed(rule.ID, "observed violation")}
		case rules.Pass:
			rr.Evidence = []rules.Outcome{rules.Passed(rule.ID, "observed compliance")}
		case rules.Indeterminate:
			rr.Evidence = []rules.Outcome{rules.Undecided(rule.ID, "could not see it")}
		case rules.NotApplicable:
			rr.Evidence = []rules.Outcome{rules.Absent(rule.ID, "feature absent")}
		}
		r.Rules = append(r.Rules, rr)
	}
	return r
}

// bigResult builds a result of n rules cycling through every level and status, the size of a
// full registry scan.
func bigResult(n int) *Result {
	levels := []rules.Level{rules.Must, rules.MustNot, rules.Should, rules.ShouldNot}
	statuses := []rules.Status{rules.Pass, rules.Fail, rules.Indeterminate, rules.NotApplicable, rules.Pass}
	pairs := make([]any, 0, 2*n)
	for i := range n {
		pairs = append(pairs, levels[i%len(levels)], statuses[i%len(statuses)])
	}
	return testResult(pairs...)
}

// jsonMarshalUnsorted writes r as JSON without the canonical normalisation, to feed Decode
// documents a person might have edited.
func jsonMarshalUnsorted(r *Result) ([]byte, error) { return json.Marshal(r) }
