package report

import "time"

// Inventory is the deprecation inventory of a target, as the result model carries it: the
// deprecated and removed features of the 2026-07-28 revision the target still relies on, each
// with its removal date. cmd/sentinel fills it from the debt package; report keeps its own type
// so renderers never import the code that computes it.
type Inventory struct {
	// Today is the date the months until each removal are counted from.
	Today time.Time `json:"today"`
	// Exchanges is how many exchanges were examined.
	Exchanges int `json:"exchanges"`
	// LegacyOnly is true when the server spoke only the initialize-era protocol.
	LegacyOnly bool `json:"legacyOnly,omitempty"`
	// Items are server debt first, then by removal date (the debt package's order).
	Items []DebtItem `json:"items"`
}

// DebtItem is one deprecated or removed feature still in use by one side.
type DebtItem struct {
	// Key is the registry key ("logging", "sessions"); Name the feature's name.
	Key  string `json:"key"`
	Name string `json:"name"`
	// Status is "deprecated" (still in the spec, removable later) or "removed" (gone from
	// 2026-07-28 outright).
	Status string `json:"status"`
	// Side is who relies on it: "server" or "client".
	Side string `json:"side"`
	// Source is the SEP that deprecated or removed it; SpecURL the clause to read.
	Source  string `json:"source"`
	SpecURL string `json:"specUrl"`
	// DeprecatedIn is when it became deprecated (zero for removals); RemovableOn the earliest
	// removal date (for removals, the release of the revision that removed it).
	DeprecatedIn time.Time `json:"deprecatedIn,omitzero"`
	RemovableOn  time.Time `json:"removableOn"`
	// Months are whole months from Today to RemovableOn, negative once it has passed; Due says
	// it in a sentence.
	Months int    `json:"months"`
	Due    string `json:"due"`
	// Replacement is the migration path.
	Replacement string `json:"replacement"`
	// Rules are the IDs of the rules that grade the feature.
	Rules []string `json:"rules,omitempty"`
	// Evidence is what was seen, at most a few entries.
	Evidence []DebtEvidence `json:"evidence,omitempty"`
	// Note is the registry's caveat on the dates, when it has one.
	Note string `json:"note,omitempty"`
}

// DebtEvidence is one sighting of a feature in use.
type DebtEvidence struct {
	// Exchange is the exchange it was seen on; empty when the use is implied.
	Exchange string `json:"exchange,omitempty"`
	// What says what was seen.
	What string `json:"what"`
}
