package rules

import "sync"

var (
	registryOnce sync.Once
	registry     []Rule
	byID         map[string]int
	byName       map[string]int
)

func load() {
	registryOnce.Do(func() {
		registry = catalog()
		byID = make(map[string]int, len(registry))
		byName = make(map[string]int, len(registry))
		for i, r := range registry {
			byID[r.ID] = i
			byName[r.Name] = i
		}
	})
}

// All returns every rule, in catalogue order. The slice is a copy: callers may sort or filter it.
func All() []Rule {
	load()
	out := make([]Rule, len(registry))
	copy(out, registry)
	return out
}

// ByID finds a rule by its full ID.
func ByID(id string) (Rule, bool) {
	load()
	i, ok := byID[id]
	if !ok {
		return Rule{}, false
	}
	return registry[i], true
}

// ByName finds a rule by the kebab-case name at the end of its ID.
func ByName(name string) (Rule, bool) {
	load()
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
	if r, ok := ByName(name); ok {
		return r.ID
	}
	return "MCP/" + Revision + "/UNKNOWN/" + name
}
