// Package diff compares two saved results of the same target: what regressed (failures NEW has
// that OLD did not), what was fixed, and what is unchanged. It is the baseline comparison with
// OLD as the baseline, so `sentinel diff` and `sentinel probe --baseline` agree on every
// failure, and its result renders through the same report registry.
//
// diff imports report and rules only.
package diff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// Summary counts the comparison, finding by finding and rule by rule.
type Summary struct {
	// Regressions are NEW's findings that OLD did not have (a new rule, or a new observation of
	// a failing rule); Unchanged those OLD had too.
	Regressions, Unchanged []report.Finding
	// Fixed are the rules that failed in OLD and pass in NEW.
	Fixed []string
	// Unsettled are the rules that OLD settled (pass or fail) and NEW did not (indeterminate or
	// n/a): neither a fix nor a regression, but worth a look.
	Unsettled []string
}

// Compare judges newer against older: it returns a copy of newer whose Comparison holds older's
// failures, with a note saying what changed, and the Summary. olderName names older in the
// report ("old.json").
func Compare(older, newer *report.Result, olderName string) (*report.Result, Summary) {
	res := *newer
	res.Notes = slices.Clone(newer.Notes)
	res.Comparison = report.Compare(olderName, report.Entries(older))
	var s Summary
	for _, f := range res.Findings() {
		if res.Known(f) {
			s.Unchanged = append(s.Unchanged, f)
		} else {
			s.Regressions = append(s.Regressions, f)
		}
	}
	before := map[string]rules.Status{}
	for _, rr := range older.Rules {
		before[rr.Rule.ID] = rr.Status
	}
	for _, rr := range res.Rules {
		was, ok := before[rr.Rule.ID]
		switch {
		case !ok:
		case was == rules.Fail && rr.Status == rules.Pass:
			s.Fixed = append(s.Fixed, rr.Rule.ID)
		case was.Evaluated() && !rr.Status.Evaluated():
			s.Unsettled = append(s.Unsettled, rr.Rule.ID)
		}
	}
	res.Notes = append(res.Notes, s.note(olderName))
	return &res, s
}

// Line is the comparison in one line: "2 regressions, 3 fixed, 40 unchanged".
func (s Summary) Line() string {
	return fmt.Sprintf("%s, %d fixed, %d unchanged", plural(len(s.Regressions), "regression", "regressions"), len(s.Fixed), len(s.Unchanged))
}

func (s Summary) note(olderName string) string {
	n := fmt.Sprintf("Compared with %s: %s.", olderName, s.Line())
	if len(s.Unsettled) > 0 {
		names := make([]string, len(s.Unsettled))
		for i, id := range s.Unsettled {
			names[i] = id[strings.LastIndex(id, "/")+1:]
		}
		n += fmt.Sprintf(" Settled before, not settled now: %s.", strings.Join(names, ", "))
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
