package eval

import (
	"slices"
	"strings"
	"testing"
)

// The regression this metric exists for: a response cites "section 9.2", and the only place the
// context mentions section 9.2 is a sentence denying that it exists. A plain substring match calls
// that citation grounded; it is not.
func TestResolveCitations_SectionThatAppearsOnlyInADenialIsUnresolved(t *testing.T) {
	ctx := []ContextItem{{ID: "policy", Content: "Refunds are covered in section 9.1. There is no section 9.2 in this policy."}}
	for _, denial := range []string{
		"Refunds are covered in section 9.1. There is no section 9.2 in this policy.",
		"Refunds are covered in section 9.1. No section 9.2 exists.",
		"Refunds are covered in section 9.1. Section 9.2 was removed in the 2024 revision.",
		"Refunds are covered in section 9.1. Section 9.2 (Late fees) has been repealed.",
		"Refunds are covered in section 9.1. Section 9.2 does not exist.",
		"Refunds are covered in section 9.1. This policy does not contain a section 9.2.",
	} {
		ctx[0].Content = denial
		got := ResolveCitations(ExtractCitations("Late fees are waived under section 9.2."), ctx)
		i := slices.IndexFunc(got, func(s CitationStatus) bool { return s.Citation.Key == "section 9.2" })
		if i < 0 {
			t.Fatalf("context %q: no status for section 9.2 in %+v", denial, got)
		}
		if got[i].Status != CitationUnresolved {
			t.Errorf("context %q: section 9.2 = %s (%s), want %s", denial, got[i].Status, got[i].Reason, CitationUnresolved)
		}
	}
}

func TestResolveCitations(t *testing.T) {
	ctx := []ContextItem{
		{ID: "a", Content: "Section 4.2 sets the refund window at 30 days. The fee is $1,200 per year."},
		{ID: "b", Content: "Appendix B lists the 12 supported regions. \"All data is encrypted at rest\" is our promise."},
	}
	tests := []struct {
		name     string
		response string
		key      string
		want     CitationState
		wantID   string
	}{
		{"a section the context affirms is resolved", "The window is set by Section 4.2 [a].", "section 4.2", CitationResolved, "a"},
		{"a section no item mentions is unresolved", "See section 7.3 for details.", "section 7.3", CitationUnresolved, ""},
		{"a prefix of a longer section number does not resolve", "See section 4.21.", "section 4.21", CitationUnresolved, ""},
		{"a number found in the cited item is resolved", "The fee is $1,200 per year [a].", "1200", CitationResolved, "a"},
		{"a number found only in another item is mismatched", "There are 12 regions [a].", "12", CitationMismatched, "b"},
		{"a number the context gives differently for its unit is contradicted", "The fee is $1,500 per year [a].", "1500", CitationContradicted, ""},
		{"a number whose unit the context never uses is unresolved", "It has 250 employees [a].", "250", CitationUnresolved, ""},
		{"a count of days against another count of days is contradicted", "The refund window is 45 days.", "45", CitationContradicted, ""},
		{"a quote in the cited item is resolved", "They say \"all data is encrypted at rest\" [b].", "all data is encrypted at rest", CitationResolved, "b"},
		{"a quote absent from the context is unresolved", "They say \"data is never stored anywhere\" [b].", "data is never stored anywhere", CitationUnresolved, ""},
		{"a source marker naming no item is unresolved", "This is documented [c].", "c", CitationUnresolved, ""},
		{"a numeric source marker resolves by position", "Regions are listed [2].", "2", CitationResolved, "b"},
		{"a named reference to another item is mismatched", "Appendix B lists them [a].", "appendix b", CitationMismatched, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ResolveCitations(ExtractCitations(tt.response), ctx)
			i := slices.IndexFunc(got, func(s CitationStatus) bool { return s.Citation.Key == tt.key })
			if i < 0 {
				t.Fatalf("ExtractCitations(%q) has no citation %q: %+v", tt.response, tt.key, got)
			}
			if got[i].Status != tt.want || got[i].ContextID != tt.wantID {
				t.Errorf("ResolveCitations(%q)[%q] = %s in %q (%s), want %s in %q",
					tt.response, tt.key, got[i].Status, got[i].ContextID, got[i].Reason, tt.want, tt.wantID)
			}
		})
	}
}

func TestExtractCitations(t *testing.T) {
	tests := []struct {
		name     string
		response string
		want     []string // keys, in order
	}{
		{"section, number and marker", "Per §9.2, the fee is 15% [doc-1].", []string{"section 9.2", "15", "doc-1"}},
		{"single digits and years inside references are not numbers", "Step 3 of Table 2 applies.", []string{"step 3", "table 2"}},
		{"a markdown link is not a source marker", "Read [the guide](https://x.test/g).", nil},
		{"short quotes are not claims", "They said \"yes\" twice.", nil},
		{"a curly quote is a quote", "It reads “refunds take ten business days”.", []string{"refunds take ten business days"}},
		// a label's word that goes on is a word: "pages" was read as "page s", "tablet" as "table t"
		{"plural labels are words", "The rules and pages cover steps, items and tables.", nil},
		{"a word that starts with a label", "The tablet comes with an annexe.", nil},
		{"a letter after a space is still an identifier", "See Appendix B and page 4.", []string{"appendix b", "page 4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keys []string
			for _, c := range ExtractCitations(tt.response) {
				keys = append(keys, c.Key)
			}
			if !slices.Equal(keys, tt.want) {
				t.Errorf("ExtractCitations(%q) keys = %q, want %q", tt.response, keys, tt.want)
			}
		})
	}
}

func FuzzExtractCitations(f *testing.F) {
	for _, s := range []string{"", "§", "[1]", "section 9.2", `"a b c d e f g h"`, "“x y z w”", "$1,2", "1.2.3.4.5", "[x](y)", "9.", "no section 9.2 exists"} {
		f.Add(s, "There is no section 9.2; section 9.1 covers 1,200 units.")
	}
	f.Fuzz(func(t *testing.T, response, context string) {
		cs := ExtractCitations(response)
		for i, c := range cs {
			if c.Start < 0 || c.End > len(response) || c.Start >= c.End || response[c.Start:c.End] != c.Text {
				t.Fatalf("citation %+v does not quote the response", c)
			}
			if i > 0 && cs[i-1].Start > c.Start {
				t.Fatalf("citations out of order: %+v", cs)
			}
		}
		st := ResolveCitations(cs, []ContextItem{{ID: "c", Content: context}})
		if len(st) != len(cs) {
			t.Fatalf("%d statuses for %d citations", len(st), len(cs))
		}
		for _, s := range st {
			switch s.Status {
			case CitationResolved, CitationMismatched, CitationUnresolved, CitationContradicted:
			default:
				t.Fatalf("status %q is not one of the three", s.Status)
			}
			if (s.Status == CitationResolved || s.Status == CitationMismatched) && s.ContextID == "" {
				t.Fatalf("status %s without the item that supports it", s.Status)
			}
		}
		if g := ScoreGroundedness(GroundednessInput{Response: response, Context: []ContextItem{{ID: "c", Content: context}}}); g.Score < 0 || g.Score > 1 {
			t.Fatalf("groundedness score %v outside [0,1]", g.Score)
		}
	})
}

// Hostile input must not make resolution quadratic: citations are capped, and each context item's
// figures are indexed once.
func TestCitationsAreBoundedOnHostileInput(t *testing.T) {
	hostile := strings.Repeat("%41%42 section 9.2 [1] ", 20000)
	cs := ExtractCitations(hostile)
	if len(cs) > MaxCitations {
		t.Fatalf("ExtractCitations returned %d citations, cap is %d", len(cs), MaxCitations)
	}
	st := ResolveCitations(append(cs, cs...), []ContextItem{{ID: "1", Content: hostile}})
	if len(st) > MaxCitations {
		t.Errorf("ResolveCitations checked %d citations, cap is %d", len(st), MaxCitations)
	}
}
