package rules

import "sync"

// The registry is built on first use, not when the package is initialised: every command links
// rules, and most (`sentinel version`, `sentinel diff`) never read it, so building 223 rules and
// their indexes at start-up would be work no command asked for.
var loaded = sync.OnceValue(func() *registryIndex {
	rs := catalog()
	ids, names := index(rs)
	return &registryIndex{rules: rs, byID: ids, byName: names}
})

// registryIndex is the built registry: the rules in catalogue order and their indexes.
type registryIndex struct {
	rules        []Rule
	byID, byName map[string]int
}

// index maps IDs and names to positions in rs.
func index(rs []Rule) (ids, names map[string]int) {
	ids = make(map[string]int, len(rs))
	names = make(map[string]int, len(rs))
	for i, r := range rs {
		ids[r.ID] = i
		names[r.Name] = i
	}
	return ids, names
}

// All returns every rule, in catalogue order. The slice is a copy: callers may sort or filter it.
func All() []Rule {
	reg := loaded()
	out := make([]Rule, len(reg.rules))
	copy(out, reg.rules)
	return out
}

// ByID finds a rule by its full ID.
func ByID(id string) (Rule, bool) {
	reg := loaded()
	i, ok := reg.byID[id]
	if !ok {
		return Rule{}, false
	}
	return reg.rules[i], true
}

// ByName finds a rule by the kebab-case name at the end of its ID.
func ByName(name string) (Rule, bool) {
	reg := loaded()
	i, ok := reg.byName[name]
	if !ok {
		return Rule{}, false
	}
	return reg.rules[i], true
}

// IDOf returns the full ID of the rule named name. Checks cite rules through IDOf so that a level
// corrected in the registry does not break them. An unknown name yields an ID under the level
// "UNKNOWN", which the check registries' tests reject.
func IDOf(name string) string {
	reg := loaded()
	if i, ok := reg.byName[name]; ok {
		return reg.rules[i].ID // not ByName: every outcome cites a rule, so no copy of the Rule
	}
	return "MCP/" + Revision + "/UNKNOWN/" + name
}
