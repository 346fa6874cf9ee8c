package rules

import (
	"errors"
	"sort"
	"strings"
)

// ParseID splits a rule ID into its level and name. It accepts exactly the form MakeID produces,
// so ParseID(MakeID(l, n)) returns l and n for every valid level and kebab-case name.
func ParseID(id string) (Level, string, error) {
	rest, ok := strings.CutPrefix(id, "MCP/"+Revision+"/")
	if !ok {
		return "", "", errors.New("rule ID must start with MCP/" + Revision + "/")
	}
	part, name, ok := strings.Cut(rest, "/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", "", errors.New("rule ID must end with /<LEVEL>/<name>")
	}
	var lvl Level
	for _, l := range []Level{Must, MustNot, Should, ShouldNot} {
		if l.IDPart() == part {
			lvl = l
		}
	}
	if lvl == "" {
		return "", "", errors.New("rule ID level must be MUST, MUST-NOT, SHOULD or SHOULD-NOT")
	}
	if !kebab().MatchString(name) {
		return "", "", errors.New("rule ID name must be kebab-case")
	}
	return lvl, name, nil
}

// Lookup finds a rule by full ID or by bare name, which is what a person types at `sentinel rules
// explain`. A full ID whose level is stale still finds the rule by its name.
func Lookup(idOrName string) (Rule, bool) {
	s := strings.TrimSpace(idOrName)
	if r, ok := ByID(s); ok {
		return r, true
	}
	if _, name, err := ParseID(s); err == nil {
		return ByName(name)
	}
	return ByName(strings.ToLower(s))
}

// Closest returns up to n rule names nearest to query: names containing it first, then by edit
// distance. It backs the "did you mean" of an unknown rule.
func Closest(query string, n int) []string {
	q := strings.ToLower(strings.TrimSpace(query))
	if _, name, err := ParseID(q); err == nil {
		q = name
	} else if i := strings.LastIndex(q, "/"); i >= 0 {
		q = q[i+1:]
	}
	type cand struct {
		name string
		dist int
	}
	var cs []cand
	for _, r := range All() {
		d := editDistance(q, r.Name)
		if q != "" && strings.Contains(r.Name, q) {
			d = -1
		}
		cs = append(cs, cand{r.Name, d})
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	if n > len(cs) {
		n = len(cs)
	}
	out := make([]string, 0, n)
	for _, c := range cs[:max(n, 0)] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, over bytes (names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// RelatedDeprecations returns the deprecations and removals that list the rule name among their
// rules, so `explain` can say which migration a rule is part of.
func RelatedDeprecations(name string) ([]Deprecation, []Removal) {
	var ds []Deprecation
	for _, d := range Deprecations() {
		if contains(d.Rules, name) {
			ds = append(ds, d)
		}
	}
	var rs []Removal
	for _, r := range Removals() {
		if contains(r.Rules, name) {
			rs = append(rs, r)
		}
	}
	return ds, rs
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
