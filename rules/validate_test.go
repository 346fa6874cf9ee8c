package rules

import (
	"errors"
	"testing"
)

// goodRule is a rule that passes Validate; each broken case changes one thing.
func goodRule() Rule {
	return Rule{
		ID:          "MCP/2026-07-28/MUST/example-rule",
		Name:        "example-rule",
		Level:       Must,
		Requirement: "The server does the thing.",
		SpecURL:     SpecBase + "basic#messages",
		Remediation: "Do the thing.",
		Check:       CheckPassive,
		Areas:       []Area{AreaJSONRPC},
		Catalogue:   1,
	}
}

func TestValidateAcceptsAGoodRule(t *testing.T) {
	for _, r := range []Rule{goodRule(), func() Rule {
		r := goodRule()
		r.Check = CheckIndeterminate
		r.Indeterminacy = &Indeterminacy{Reason: "invisible", WouldSettle: "a review"}
		r.SpecURL = SpecBase + "server/tools"
		r.Requires = FeatureTools
		return r
	}()} {
		if errs := Validate([]Rule{r}); len(errs) != 0 {
			t.Errorf("Validate(%+v) = %v, want no errors", r, errs)
		}
	}
}

func TestValidateRejectsEachBrokenProperty(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Rule)
		want   error
	}{
		{"malformed ID", func(r *Rule) { r.ID = "MCP/MUST/example-rule" }, ErrIDMalformed},
		{"ID level differs from level", func(r *Rule) { r.ID = "MCP/2026-07-28/SHOULD/example-rule" }, ErrIDMismatch},
		{"ID name differs from name", func(r *Rule) { r.ID = "MCP/2026-07-28/MUST/other-rule" }, ErrIDMismatch},
		{"name not kebab-case", func(r *Rule) { r.Name = "Example_Rule" }, ErrNameMalformed},
		{"level MAY", func(r *Rule) { r.Level = "MAY" }, ErrLevel},
		{"unknown check mode", func(r *Rule) { r.Check = "manual" }, ErrCheck},
		{"no area", func(r *Rule) { r.Areas = nil }, ErrNoArea},
		{"unknown area", func(r *Rule) { r.Areas = []Area{"gossip"} }, ErrArea},
		{"area twice", func(r *Rule) { r.Areas = []Area{AreaTools, AreaTools} }, ErrDuplicateArea},
		{"unknown feature", func(r *Rule) { r.Requires = "telepathy" }, ErrFeature},
		{"unknown transport", func(r *Rule) { r.Transport = "carrier-pigeon" }, ErrTransport},
		{"URL outside the revision", func(r *Rule) { r.SpecURL = "https://modelcontextprotocol.io/specification/2025-11-25/basic" }, ErrURLBase},
		{"URL to an unknown page", func(r *Rule) { r.SpecURL = SpecBase + "basic/nowhere#x" }, ErrURLPage},
		{"URL with an empty anchor", func(r *Rule) { r.SpecURL = SpecBase + "basic#" }, ErrURLAnchor},
		{"URL anchor with a space", func(r *Rule) { r.SpecURL = SpecBase + "basic#two words" }, ErrURLAnchor},
		{"empty requirement", func(r *Rule) { r.Requirement = "  " }, ErrNoRequirement},
		{"empty remediation", func(r *Rule) { r.Remediation = "" }, ErrNoRemediation},
		{"indeterminate without reason", func(r *Rule) { r.Check = CheckIndeterminate }, ErrIndeterminacyMissing},
		{"indeterminacy without what-would-settle", func(r *Rule) {
			r.Check = CheckIndeterminate
			r.Indeterminacy = &Indeterminacy{Reason: "invisible"}
		}, ErrIndeterminacyPartial},
		{"indeterminacy without reason", func(r *Rule) {
			r.Check = CheckIndeterminate
			r.Indeterminacy = &Indeterminacy{WouldSettle: "a review"}
		}, ErrIndeterminacyPartial},
		{"checkable rule with an indeterminacy", func(r *Rule) {
			r.Indeterminacy = &Indeterminacy{Reason: "x", WouldSettle: "y"}
		}, ErrIndeterminacyForbidden},
		{"negative catalogue row", func(r *Rule) { r.Catalogue = -1 }, ErrCatalogue},
		{"catalogue row past the digest", func(r *Rule) { r.Catalogue = MaxCatalogue + 1 }, ErrCatalogue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := goodRule()
			tt.mutate(&r)
			errs := Validate([]Rule{r})
			if !containsErr(errs, tt.want) {
				t.Fatalf("Validate = %v, want %v", errs, tt.want)
			}
		})
	}
}

func TestValidateRejectsDuplicatesAcrossRules(t *testing.T) {
	other := goodRule()
	other.Catalogue = 2
	tests := []struct {
		name string
		b    func() Rule
		want error
	}{
		{"same ID and name", func() Rule { r := other; return r }, ErrDuplicateID},
		{"same name, other level", func() Rule {
			r := other
			r.Level, r.ID = Should, MakeID(Should, r.Name)
			return r
		}, ErrDuplicateName},
		{"same catalogue row", func() Rule {
			r := goodRule()
			r.Name, r.ID = "another-rule", MakeID(Must, "another-rule")
			return r
		}, ErrDuplicateCatalogue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := Validate([]Rule{goodRule(), tt.b()})
			if !containsErr(errs, tt.want) {
				t.Fatalf("Validate = %v, want %v", errs, tt.want)
			}
		})
	}
}

func containsErr(errs []error, want error) bool {
	for _, e := range errs {
		if errors.Is(e, want) {
			return true
		}
	}
	return false
}
