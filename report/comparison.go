package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
)

// Comparison records what a result was judged against: the failures known before, as (rule,
// observation) pairs. A failing observation in the known set does not fail the gate; one
// outside it is new and does. Known entries that match nothing are fixed (their rule now
// passes) or stale (see Stale).
type Comparison struct {
	// Against names what was compared with, as reports print it: "baseline
	// sentinel-baseline.json" or "old.json".
	Against string `json:"against"`
	// Known are the failures known before, sorted by rule then observation.
	Known []Entry `json:"known"`
}

// Entry is one known failure: a rule and the fingerprint of one of its observations. Level and
// Note are for people reading the file; matching reads only Rule and Observation.
type Entry struct {
	// Rule is the full rule ID.
	Rule string `json:"rule"`
	// Observation is an ObservationFingerprint.
	Observation string `json:"observation"`
	// Level is the rule's level when the entry was recorded.
	Level rules.Level `json:"level,omitempty"`
	// Note is what was observed when the entry was recorded.
	Note string `json:"note,omitempty"`
}

// Entries lists every failing (rule, observation) pair of r, sorted: what a baseline file
// records and what `sentinel diff` compares. Each note is the observation's own text when the
// evidence kept it.
func Entries(r *Result) []Entry {
	var out []Entry
	for _, rr := range sortedRules(r) {
		notes := map[string]string{}
		for _, o := range rr.Evidence {
			if o.Status == rules.Fail {
				fp := ObservationFingerprint(rr.Rule.ID, o.Observed)
				if _, ok := notes[fp]; !ok {
					notes[fp] = o.Observed
				}
			}
		}
		for _, fp := range rr.ObservationKeys() {
			out = append(out, Entry{Rule: rr.Rule.ID, Observation: fp, Level: rr.Rule.Level, Note: notes[fp]})
		}
	}
	SortEntries(out)
	return out
}

// SortEntries orders entries by rule, then observation, and drops exact repeats of a pair.
func SortEntries(es []Entry) []Entry {
	slices.SortFunc(es, func(a, b Entry) int {
		return cmp.Or(strings.Compare(a.Rule, b.Rule), strings.Compare(a.Observation, b.Observation))
	})
	return slices.CompactFunc(es, func(a, b Entry) bool { return a.Rule == b.Rule && a.Observation == b.Observation })
}

// Compare returns a Comparison of r against the known entries, for Result.Comparison.
func Compare(against string, known []Entry) *Comparison {
	k := SortEntries(slices.Clone(known))
	if k == nil {
		k = []Entry{}
	}
	return &Comparison{Against: against, Known: k}
}

// known is the comparison's set of (rule, observation) pairs; nil without a comparison.
func (c *Comparison) set() map[[2]string]bool {
	if c == nil {
		return nil
	}
	m := make(map[[2]string]bool, len(c.Known))
	for _, e := range c.Known {
		m[[2]string{e.Rule, e.Observation}] = true
	}
	return m
}

// Known reports whether every failing observation of the finding was known before: the finding
// is then not new and does not fail the gate. Without a comparison nothing is known.
func (r *Result) Known(f Finding) bool {
	set := r.Comparison.set()
	if set == nil {
		return false
	}
	for _, rr := range f.Rules {
		for _, o := range rr.ObservationKeys() {
			if !set[[2]string{rr.Rule.ID, o}] {
				return false
			}
		}
	}
	return true
}

// Unmatched is a known entry the result no longer shows.
type Unmatched struct {
	Entry
	// Fixed is true when the entry's rule passes now: the failure is gone. Otherwise the entry is
	// stale, and Why says what the scan saw instead.
	Fixed bool
	Why   string
}

// Unmatched lists the known entries that match no failure of r, fixed ones first. Entries for
// rules outside the result (a scan narrowed with --rule or --area) are left out: the scan says
// nothing about them.
func (r *Result) Unmatched() []Unmatched {
	if r.Comparison == nil {
		return nil
	}
	byID := map[string]RuleResult{}
	for _, rr := range r.Rules {
		byID[rr.Rule.ID] = rr
	}
	var out []Unmatched
	for _, e := range r.Comparison.Known {
		rr, ok := byID[e.Rule]
		if !ok {
			if _, inRegistry := rules.ByID(e.Rule); inRegistry {
				continue
			}
			out = append(out, Unmatched{Entry: e, Why: "no such rule in this version's registry: remove the entry"})
			continue
		}
		switch rr.Status {
		case rules.Pass:
			out = append(out, Unmatched{Entry: e, Fixed: true, Why: "the rule passes now"})
		case rules.Fail:
			if !slices.Contains(rr.ObservationKeys(), e.Observation) {
				out = append(out, Unmatched{Entry: e, Why: "the rule still fails, but this observation no longer occurs"})
			}
		case rules.Indeterminate:
			out = append(out, Unmatched{Entry: e, Why: "the rule was not settled by this scan"})
		case rules.NotApplicable:
			out = append(out, Unmatched{Entry: e, Why: "the rule is n/a on the target now"})
		}
	}
	slices.SortStableFunc(out, func(a, b Unmatched) int {
		if a.Fixed != b.Fixed {
			if a.Fixed {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}
