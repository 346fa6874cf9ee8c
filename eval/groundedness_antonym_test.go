package eval

import (
	"slices"
	"testing"
)

// A claim that swaps a word of the aligned statement for its antonym says the opposite of it
// ("met the deadline" against "missed the deadline", "sales rose" against "sales fell"), in every
// language the pairs cover; restated with a negation of the antonym it is supported, and a word
// that only shares an antonym's stem decides nothing (check_groundedness/15).
func TestAntonymsReverseClaims(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en missed, reversed", "The Berlin team missed the March deadline for the audit report.", "The Berlin team met the March deadline for the audit report.", false, "met"},
		{"en missed, restated", "The Berlin team met the March deadline for the audit report.", "The Berlin team did not miss the March deadline for the audit report.", true, ""},
		{"en failed, reversed", "The new braking system failed the winter safety test.", "The new braking system passed the winter safety test.", false, "passed"},
		{"en fell, reversed", "Ticket sales at the Harbour Theatre fell sharply in the autumn season.", "Ticket sales at the Harbour Theatre rose sharply in the autumn season.", false, "rose"},
		{"en lost, reversed", "Northwind lost the regional rail contract to a rival bidder.", "Northwind won the regional rail contract.", false, "won"},
		{"en sold, reversed", "In 2021 the cooperative sold the old mill on Canal Road.", "In 2021 the cooperative bought the old mill on Canal Road.", false, "bought"},
		{"en ends, reversed", "The public consultation on the bypass ends on 14 June.", "The public consultation on the bypass starts on 14 June.", false, "starts"},
		{"en offline, reversed", "The billing portal stays offline during the weekend migration.", "The billing portal stays online during the weekend migration.", false, "online"},
		{"fr baisse, reversed", "Le nombre de visiteurs du musée est en baisse depuis janvier.", "Le nombre de visiteurs du musée est en hausse depuis janvier.", false, "hausse"},
		{"es perdió, reversed", "El club perdió la final de la copa regional en mayo.", "El club ganó la final de la copa regional en mayo.", false, "ganó"},
		{"pt caiu, reversed", "O número de passageiros do porto caiu no último trimestre.", "O número de passageiros do porto subiu no último trimestre.", false, "subiu"},
		{"de verloren, reversed", "Der Verein hat das Pokalfinale in Hamburg verloren.", "Der Verein hat das Pokalfinale in Hamburg gewonnen.", false, "gewonnen"},
		{"de freiwillig, reversed", "Die Teilnahme am Sprachkurs ist für alle Mitarbeiter freiwillig.", "Die Teilnahme am Sprachkurs ist für alle Mitarbeiter Pflicht.", false, "Pflicht"},
		{"ru проиграла, reversed", "Команда проиграла финал кубка в Казани.", "Команда выиграла финал кубка в Казани.", false, "выиграла"},
		{"it facoltativo, reversed", "Il corso di sicurezza è facoltativo per i visitatori del laboratorio.", "Il corso di sicurezza è obbligatorio per i visitatori del laboratorio.", false, "obbligatorio"},
		// the claim's own words are the statement's
		{"en the same word supports", "Ticket sales at the Harbour Theatre fell sharply in the autumn season.", "Ticket sales at the Harbour Theatre fell sharply in the autumn season.", true, ""},
		{"en both words in the context", "Registration begins on 1 March and ends on 20 March.", "Registration ends on 20 March.", true, ""},
	})
}

// An antonym decides a claim only beside enough other shared words: "comment" shares its key
// with "commence" (a synonym of "begin"), and alone with it a claim is merely unsupported, not
// the opposite of what the context says.
func TestAntonymAloneContradictsNothing(t *testing.T) {
	for _, tt := range []struct{ context, response string }{
		{"The consultation on the bypass ends on 14 June.", "Comments are welcome."},
		{"Start the pump before you open the drain valve.", "The comment field is optional."},
	} {
		g := ScoreGroundedness(GroundednessInput{Response: tt.response, Context: []ContextItem{{ID: "ctx", Content: tt.context}}})
		for _, c := range g.Claims {
			if c.State == ClaimContradicted {
				t.Errorf("%q against %q: claim %q is %s (%s), want it unsupported at most", tt.response, tt.context, c.Text, c.State, c.Reason)
			}
		}
	}
}

// Every pair of antonymPairs keeps its two sides apart once stemmed: a word whose key is also a
// key of the other side would make a word its own opposite, and the pair would contradict every
// claim that restates it.
func TestAntonymKeysNeverOpposeThemselves(t *testing.T) {
	rel := relations()
	for k, anti := range rel.antonyms {
		if slices.Contains(anti, k) {
			t.Errorf("key %q is its own antonym", k)
		}
		if len(anti) == 0 {
			t.Errorf("key %q has an empty antonym list", k)
		}
	}
	for _, p := range antonymPairs {
		for _, a := range p[0] {
			ka := stem(a)
			for _, b := range p[1] {
				if kb := stem(b); ka == kb {
					t.Errorf("%q and %q share the key %q", a, b, ka)
				} else if !slices.Contains(rel.antonyms[ka], kb) {
					t.Errorf("%q (%q) does not oppose %q (%q)", a, ka, b, kb)
				}
			}
		}
	}
}
