package rules

// The registry is built once, when the package is initialised: the catalogue is constant data, so
// there is nothing to make lazy, and no sync import (the package stays pure standard library as the
// import-direction test demands).
var (
	registry     = catalog()
	byID, byName = index(registry)
)

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
	out := make([]Rule, len(registry))
	copy(out, registry)
	return out
}

// ByID finds a rule by its full ID.
func ByID(id string) (Rule, bool) {
	i, ok := byID[id]
	if !ok {
		return Rule{}, false
	}
	return registry[i], true
}

// ByName finds a rule by the kebab-case name at the end of its ID.
func ByName(name string) (Rule, bool) {
	i, ok := byName[name]
	if !ok {
		return Rule{}, false
	}
	return registry[i], true
}

// IDOf returns the full ID of the rule named name. Checks cite rules through IDOf so that a level
// corrected in the registry does not break them. An unknown name yields an ID under the level
// "UNKNOWN", which the check registries' tests reject.
func IDOf(name string) string {
	if i, ok := byName[name]; ok {
		return registry[i].ID // not ByName: every outcome cites a rule, so no copy of the Rule
	}
	return "MCP/" + Revision + "/UNKNOWN/" + name
}
