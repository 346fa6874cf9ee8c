package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
)

// Finding is one distinct failing behaviour of the target, with every rule it breaks. One
// observation is often read by more than one rule (a foreign Origin served with 200 breaks both
// origin-validated and origin-invalid-403; an answer with error −32000 breaks legacy-range-codes
// and app-codes-outside-reserved). Reports count findings, so one defect is counted once, and
// each finding names all its rules.
type Finding struct {
	// Rules are the failing rule results of the behaviour, strongest level first, then by ID.
	// The first is the finding's primary rule.
	Rules []RuleResult
	// Rank orders findings by consequence; lower is more urgent.
	Rank Rank
}

// Rank is how urgent a finding is: root causes first (a server that does not speak the revision
// fails much else because of it), then security, then MUST, then SHOULD.
type Rank int

// The ranks, most urgent first. A security rule keeps its level: a security SHOULD comes after
// every MUST, because the gate and the spec both weigh the level first.
const (
	RankRootCause Rank = iota
	RankSecurityMust
	RankMust
	RankSecurityShould
	RankShould
)

// String names the rank as reports print it.
func (k Rank) String() string {
	switch k {
	case RankRootCause:
		return "root cause"
	case RankSecurityMust, RankSecurityShould:
		return "security"
	case RankMust:
		return "MUST"
	default:
		return "SHOULD"
	}
}

// rootCauses are the rules whose failure explains many others, each with the one-line headline
// reports lead with.
var rootCauses = map[string]string{
	"discover-implemented":     "does not speak 2026-07-28 (no well-formed server/discover)",
	"support-message-patterns": "does not serve the 2026-07-28 message patterns",
}

// overlapFamilies are rules that read the same property of one message (the same requirement
// stated twice, or a status and a code of one rejection): two of them failing on the same
// exchange are one behaviour. Outcomes in the same words on the same exchange are linked without
// a table. One reply that is wrong in two different ways (its structuredContent breaks the
// schema, and no text block mirrors it) stays two findings.
var overlapFamilies = [][]string{
	{"discover-implemented", "support-message-patterns"},
	{"retired-codes", "spec-reserved-codes", "legacy-range-codes", "app-codes-outside-reserved", "resource-not-found-32602"},
	{"origin-validated", "origin-invalid-403"},
	{"progress-token-scope", "sse-notifications-related"},
	{"ignore-session-id", "explicit-state-ids"},
	{"no-server-initiated-requests", "include-context-declared"},
	{"meta-required-http-400", "meta-required-reject"},
	{"unsupported-version-error", "unsupported-version-http-400"},
	// An input request for a capability the request did not declare, where -32021 was due.
	{"mrtr-declared-capabilities", "no-undeclared-capability-use", "missing-capability-error"},
}

var familyOf = func() map[string]int {
	m := map[string]int{}
	for i, fam := range overlapFamilies {
		for _, name := range fam {
			m[name] = i + 1
		}
	}
	return m
}()

// Primary is the finding's first (strongest) rule.
func (f Finding) Primary() RuleResult { return f.Rules[0] }

// Level is the strongest level among the finding's rules.
func (f Finding) Level() rules.Level { return f.Primary().Rule.Level }

// RuleIDs lists the IDs of the finding's rules, primary first.
func (f Finding) RuleIDs() []string {
	ids := make([]string, len(f.Rules))
	for i, rr := range f.Rules {
		ids[i] = rr.Rule.ID
	}
	return ids
}

// RuleNames lists the names of the finding's rules, primary first.
func (f Finding) RuleNames() []string {
	names := make([]string, len(f.Rules))
	for i, rr := range f.Rules {
		names[i] = rr.Rule.Name
	}
	return names
}

// Headline is the finding in a few words: a root cause's own phrase, else the primary rule's
// requirement.
func (f Finding) Headline() string {
	for _, rr := range f.Rules {
		if h, ok := rootCauses[rr.Rule.Name]; ok {
			return h
		}
	}
	return f.Primary().Rule.Requirement
}

// Fingerprint identifies the finding across scans: 16 hex digits of a SHA-256 over its rule IDs
// and their observation fingerprints. It changes when the finding gains or loses a rule or an
// observation; baselines match the finer (rule, observation) pairs, not this.
func (f Finding) Fingerprint() string {
	h := sha256.New()
	for _, rr := range f.Rules {
		h.Write([]byte(rr.Rule.ID + "\x00"))
		for _, o := range rr.ObservationKeys() {
			h.Write([]byte(o + "\x00"))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Gated reports whether the finding counts for gate g: one of its rules does.
func (f Finding) Gated(g Gate) bool {
	for _, rr := range f.Rules {
		if g.Counts(rr.Rule.Level) {
			return true
		}
	}
	return false
}

// Findings groups the result's failing rules into distinct behaviours, most urgent first (by
// Rank, then by how many rules a finding breaks, then by primary rule ID). The grouping reads
// only the result, so a saved result regroups the same way.
func (r *Result) Findings() []Finding {
	failed := failingRules(r)
	groups := findingGroups(failed)
	out := make([]Finding, 0, len(groups))
	for _, g := range groups {
		slices.SortFunc(g, byStrength)
		out = append(out, Finding{Rules: g, Rank: rankOf(g)})
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(len(b.Rules), len(a.Rules)),
			strings.Compare(a.Primary().Rule.ID, b.Primary().Rule.ID))
	})
	return out
}

// failingRules are r's failing rules in rule-ID order (only they are sorted: a result often
// has a few failures among hundreds of rules).
func failingRules(r *Result) []RuleResult {
	var out []RuleResult
	for _, rr := range r.Rules {
		if rr.Status == rules.Fail {
			out = append(out, rr)
		}
	}
	slices.SortStableFunc(out, byRuleID)
	return out
}

// byStrength orders rules MUST-level first, then by ID.
func byStrength(a, b RuleResult) int {
	am, bm := a.Rule.Level.Mandatory(), b.Rule.Level.Mandatory()
	if am != bm {
		if am {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Rule.ID, b.Rule.ID)
}

func rankOf(g []RuleResult) Rank {
	best := RankShould
	for _, rr := range g {
		k := RankShould
		security := rr.Rule.HasArea(rules.AreaSecurity) || rr.Rule.HasArea(rules.AreaAuth)
		switch {
		case rootCauses[rr.Rule.Name] != "":
			k = RankRootCause
		case security && rr.Rule.Level.Mandatory():
			k = RankSecurityMust
		case rr.Rule.Level.Mandatory():
			k = RankMust
		case security:
			k = RankSecurityShould
		}
		best = min(best, k)
	}
	return best
}

// findingGroups joins failing rules that share an observation: two failing outcomes on the same
// exchange that say the same words, or come from rules of one overlap family. Groups are
// connected components, so a behaviour read by three rules is one group.
func findingGroups(failed []RuleResult) [][]RuleResult {
	parent := make([]int, len(failed))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := range failed {
		for j := i + 1; j < len(failed); j++ {
			if sharesObservation(failed[i], failed[j]) {
				parent[find(j)] = find(i)
			}
		}
	}
	byRoot := map[int][]RuleResult{}
	var roots []int
	for i, rr := range failed {
		root := find(i)
		if _, ok := byRoot[root]; !ok {
			roots = append(roots, root)
		}
		byRoot[root] = append(byRoot[root], rr)
	}
	out := make([][]RuleResult, 0, len(roots))
	for _, root := range roots {
		out = append(out, byRoot[root])
	}
	return out
}

func sharesObservation(a, b RuleResult) bool {
	fa, fb := familyOf[a.Rule.Name], familyOf[b.Rule.Name]
	sameFamily := fa != 0 && fa == fb
	for _, oa := range a.Evidence {
		if oa.Status != rules.Fail || oa.Exchange == "" {
			continue
		}
		for _, ob := range b.Evidence {
			if ob.Status != rules.Fail || ob.Exchange != oa.Exchange {
				continue
			}
			if sameFamily {
				return true
			}
			if d := detail(oa.Observed); d != "" && d == detail(ob.Observed) {
				return true
			}
		}
	}
	return false
}

// ObservationKeys are the fingerprints of the rule's distinct failing observations, sorted:
// Observations when the result carries them (every outcome Merge saw), else those of the
// evidence kept. Empty unless the rule failed.
func (rr RuleResult) ObservationKeys() []string {
	if rr.Status != rules.Fail {
		return nil
	}
	if len(rr.Observations) > 0 {
		return rr.Observations
	}
	return observationKeys(rr.Rule.ID, rr.Evidence)
}

func observationKeys(id string, outcomes []rules.Outcome) []string {
	var keys []string
	for _, o := range outcomes {
		if o.Status == rules.Fail {
			keys = append(keys, ObservationFingerprint(id, o.Observed))
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
