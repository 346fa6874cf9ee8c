package findings

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// ToResult builds the result model from stored findings, so `sentinel findings export` renders
// with the same renderers (text, JSON, SARIF, JUnit) as `sentinel probe`. Each rule with a
// finding fails; its evidence names the method or tool, the count and the last exchange. Rule
// data comes from the registry, or from the finding itself for a rule the registry lacks. Only
// rules with findings appear: the proxy saw live traffic, not a scan of every rule.
func ToResult(fs []Finding, tool string) *report.Result {
	res := &report.Result{Schema: report.SchemaVersion, Tool: tool, Rules: []report.RuleResult{}}
	byRule := map[string][]Finding{}
	targets := map[string]bool{}
	var first, last time.Time
	for _, f := range fs {
		byRule[f.RuleID] = append(byRule[f.RuleID], f)
		targets[f.Target] = true
		if first.IsZero() || f.FirstSeen.Before(first) {
			first = f.FirstSeen
		}
		if f.LastSeen.After(last) {
			last = f.LastSeen
		}
	}
	res.Started, res.Duration = first, last.Sub(first)
	res.Target = targetOf(targets)
	res.Notes = []string{fmt.Sprintf("built from %d stored finding(s) of passive grading by sentinel proxy; only failing rules are listed", len(fs))}
	for id, group := range byRule {
		sort.Slice(group, func(i, j int) bool { return group[i].Count > group[j].Count })
		rr := report.RuleResult{Rule: ruleFor(id, group[0]), Status: rules.Fail}
		for _, f := range group {
			if len(rr.Evidence) == report.MaxEvidence {
				break
			}
			rr.Evidence = append(rr.Evidence, rules.Outcome{RuleID: id, Status: rules.Fail, Exchange: f.ExchangeID,
				Observed: evidenceOf(f, len(targets) > 1)})
		}
		res.Rules = append(res.Rules, rr)
	}
	sort.Slice(res.Rules, func(i, j int) bool { return res.Rules[i].Rule.ID < res.Rules[j].Rule.ID })
	return res
}

func targetOf(targets map[string]bool) string {
	list := make([]string, 0, len(targets))
	for t := range targets {
		list = append(list, t)
	}
	sort.Strings(list)
	if len(list) == 1 {
		return list[0]
	}
	return strings.Join(list, ", ")
}

func ruleFor(id string, f Finding) rules.Rule {
	if r, ok := rules.ByID(id); ok {
		return r
	}
	name := id[strings.LastIndex(id, "/")+1:]
	return rules.Rule{ID: id, Name: name, Level: f.Level, Requirement: "(rule not in this version's registry)",
		SpecURL: f.SpecURL, Remediation: f.Remediation, Check: rules.CheckPassive}
}

func evidenceOf(f Finding, withTarget bool) string {
	where := f.Key
	if where == "" {
		where = "traffic"
	}
	if withTarget {
		where = f.Target + " " + where
	}
	return fmt.Sprintf("%s: %s (seen %d time(s), %s to %s)", where, f.Observed, f.Count,
		f.FirstSeen.UTC().Format(time.RFC3339), f.LastSeen.UTC().Format(time.RFC3339))
}
