package rules

import (
	"errors"
	"strings"
	"testing"
)

func TestRegistryValidatesClean(t *testing.T) {
	all := All()
	for _, err := range Validate(all) {
		t.Error(err)
	}
	if len(all) < MaxCatalogue {
		t.Fatalf("registry has %d rules, want at least the digest's %d", len(all), MaxCatalogue)
	}
}

func TestEveryCatalogueRowIsInTheRegistry(t *testing.T) {
	rows := map[int]int{}
	for _, r := range All() {
		rows[r.Catalogue]++
	}
	for n := 1; n <= MaxCatalogue; n++ {
		if rows[n] != 1 {
			t.Errorf("catalogue row %d appears %d times, want exactly once", n, rows[n])
		}
	}
}

func TestAllIsInCatalogueOrderWithAddedRulesLast(t *testing.T) {
	all := All()
	seenAdded := false
	for i, r := range all {
		if r.Catalogue == 0 {
			seenAdded = true
			continue
		}
		if seenAdded {
			t.Fatalf("rule %s (row %d) comes after a rule added from the spec", r.Name, r.Catalogue)
		}
		if i > 0 && all[i-1].Catalogue >= r.Catalogue {
			t.Fatalf("rule %s (row %d) follows row %d", r.Name, r.Catalogue, all[i-1].Catalogue)
		}
	}
}

func TestAllReturnsACopy(t *testing.T) {
	a := All()
	a[0].Name = "changed"
	if All()[0].Name == "changed" {
		t.Fatal("All shares its backing array with the registry")
	}
}

func TestLookupFindsRulesByIDNameAndStaleLevel(t *testing.T) {
	r, ok := ByName("origin-invalid-403")
	if !ok {
		t.Fatal("origin-invalid-403 missing")
	}
	tests := []struct {
		name, query string
		want        bool
	}{
		{"full ID", r.ID, true},
		{"bare name", "origin-invalid-403", true},
		{"name with spaces and capitals", "  Origin-Invalid-403 ", true},
		{"ID with a stale level", "MCP/2026-07-28/SHOULD/origin-invalid-403", true},
		{"unknown name", "origin-invalid-404", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Lookup(tt.query)
			if ok != tt.want {
				t.Fatalf("Lookup(%q) ok = %v, want %v", tt.query, ok, tt.want)
			}
			if ok && got.ID != r.ID {
				t.Fatalf("Lookup(%q) = %s, want %s", tt.query, got.ID, r.ID)
			}
		})
	}
}

func TestIDOfResolvesNamesAndMarksUnknownOnes(t *testing.T) {
	if got := IDOf("retired-codes"); got != "MCP/2026-07-28/MUST-NOT/retired-codes" {
		t.Errorf("IDOf(retired-codes) = %q", got)
	}
	if got := IDOf("no-such-rule"); !strings.Contains(got, "/UNKNOWN/") {
		t.Errorf("IDOf(no-such-rule) = %q, want an UNKNOWN level", got)
	}
}

func TestClosestSuggestsNearNames(t *testing.T) {
	tests := []struct {
		query, want string
	}{
		{"origin-invalid-404", "origin-invalid-403"},
		{"retired-code", "retired-codes"},
		{"MCP/2026-07-28/MUST/discover-implemnted", "discover-implemented"},
		{"listen-ack", "listen-ack-first"},
	}
	for _, tt := range tests {
		got := Closest(tt.query, 3)
		if len(got) != 3 {
			t.Fatalf("Closest(%q) returned %d names, want 3", tt.query, len(got))
		}
		found := false
		for _, g := range got {
			found = found || g == tt.want
		}
		if !found {
			t.Errorf("Closest(%q) = %v, want it to include %q", tt.query, got, tt.want)
		}
	}
}

func TestParseIDRejectsMalformedIDs(t *testing.T) {
	bad := []string{
		"", "MCP/2026-07-28/MUST", "MCP/2025-11-25/MUST/x", "MCP/2026-07-28/MAY/x",
		"MCP/2026-07-28/MUST NOT/x", "MCP/2026-07-28/MUST/Not_Kebab", "MCP/2026-07-28/MUST/a/b",
	}
	for _, id := range bad {
		if _, _, err := ParseID(id); err == nil {
			t.Errorf("ParseID(%q) accepted a malformed ID", id)
		}
	}
	l, n, err := ParseID("MCP/2026-07-28/SHOULD-NOT/legacy-range-codes")
	if err != nil || l != ShouldNot || n != "legacy-range-codes" {
		t.Errorf("ParseID of a good ID = %q, %q, %v", l, n, err)
	}
}

func TestIndeterminateRulesAreHonestAboutWhy(t *testing.T) {
	// A spot check that the black-box column was carried over: rows the digest marks as not
	// verifiable must not claim a check.
	for _, name := range []string{"token-audience-validated", "no-token-passthrough", "bind-localhost", "listen-teardown-cancelled"} {
		r, ok := ByName(name)
		if !ok {
			t.Fatalf("%s missing", name)
		}
		if r.Checkable() {
			t.Errorf("%s claims check mode %s, but no black-box test can settle it", name, r.Check)
		}
	}
}

func TestValidateReportsWrappedErrors(t *testing.T) {
	r := goodRule()
	r.Name = "Bad Name"
	errs := Validate([]Rule{r})
	if len(errs) == 0 || !errors.Is(errs[0], ErrNameMalformed) {
		t.Fatalf("Validate = %v, want ErrNameMalformed first", errs)
	}
	if !strings.Contains(errs[0].Error(), "Bad Name") {
		t.Errorf("error %q does not name the rule", errs[0])
	}
}
