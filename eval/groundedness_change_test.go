package eval

import "testing"

// A participle of a change verb used as an adjective ("the reduced fee", "Revised guidance:",
// "le tarif réduit") does not report a change, so a claim that names the reduced fee is still
// checked for a superseded value; a change that retires its own figures ("the earlier advice …
// has been replaced") leaves the statement before it current; the present of a change with its
// "from" ("rises from $6 to $8") retires the first value (check_groundedness/12).
func TestChangeVerbsAndTheirAdjectives(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en the reduced fee, old value", "The reduced fee was raised from €6 to €7.50.", "The reduced fee is €6.", false, "€6"},
		{"en the reduced fee, current value", "The reduced fee was raised from €6 to €7.50.", "The reduced fee is €7.50.", true, ""},
		{"fr le tarif réduit, old value", "Le tarif réduit passe de 6 € à 7,50 € à compter du 1er juillet.", "Le tarif réduit est de 6 €.", false, "6 €"},
		{"es la cuota reducida, old value", "La cuota reducida pasa de 20 euros a 25 euros.", "La cuota reducida es de 20 euros.", false, "20 euros"},
		{"en rises from, old value", "The fee rises from $6 to $8.", "The fee is $6.", false, "$6"},
		{"en rises from, current value", "The fee rises from $6 to $8.", "The fee is $8.", true, ""},
		{"en a heading participle and a self-retiring change", "Revised guidance (v3, May 2026): adults should take 2 tablets every 6 hours, up to 8 tablets in 24 hours. The earlier advice of 2 tablets every 4 hours has been replaced.",
			"The current guidance is that adults take 2 tablets every 6 hours.", true, ""},
		{"en the replaced value stays old", "Revised guidance (v3, May 2026): adults should take 2 tablets every 6 hours, up to 8 tablets in 24 hours. The earlier advice of 2 tablets every 4 hours has been replaced.",
			"Adults take 2 tablets every 4 hours.", false, "4 hours"},
	})
}

// A value named after "instead of" (and its equivalents) is the one replaced: a claim that gives
// it as current is superseded, the current one is supported, and a claim that restates the
// replacement is supported; where "instead" alone marked the figure after it current, the old
// value was supported (check_groundedness/14).
func TestInsteadOfNamesTheReplacedValue(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en instead of, old value", "The shop now opens at 9:00 instead of 8:00.", "The shop opens at 8:00.", false, "8:00"},
		{"en instead of, current value", "The shop now opens at 9:00 instead of 8:00.", "The shop opens at 9:00.", true, ""},
		{"en instead of, restated", "The shop now opens at 9:00 instead of 8:00.", "The shop opens at 9:00 instead of 8:00.", true, ""},
		{"en instead of, reversed", "The shop now opens at 9:00 instead of 8:00.", "The shop opens at 8:00 instead of 9:00.", false, "8:00"},
		{"en instead of the usual", "The fee is €20 instead of the usual €25 this month.", "The fee is €25 this month.", false, "€25"},
		{"fr au lieu de", "Le magasin ouvre désormais à 9 h au lieu de 8 h.", "Le magasin ouvre à 8 h.", false, "8 h"},
		{"es en lugar de", "La tienda abre a las 9:00 en lugar de a las 8:00.", "La tienda abre a las 8:00.", false, "8:00"},
		{"de statt", "Der Laden öffnet jetzt um 9 Uhr statt um 8 Uhr.", "Der Laden öffnet um 8 Uhr.", false, "8 Uhr"},
		{"ru вместо", "Магазин теперь открывается в 9:00 вместо 8:00.", "Магазин открывается в 8:00.", false, "8:00"},
	})
}

// A prepositional phrase that opens a sentence before a comma ("Depuis janvier, …", "Since
// March, …") is a circumstance of the clause after it, not a claim of its own: alone it has no
// predicate, and it read as contradicted by a denial the response restated (check_groundedness/12).
func TestAFrontedAdjunctIsNotAClaim(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"fr depuis janvier, restated denial", "Le magasin ne livre plus à domicile depuis janvier.", "Depuis janvier, le magasin a cessé la livraison à domicile.", true, ""},
		{"en since March, restated denial", "Since March the library no longer lends laptops.", "Since March, laptops are no longer lent by the library.", true, ""},
		{"en since March, reversed", "Since March the library no longer lends laptops.", "Since March, the library lends laptops.", false, "lends laptops"},
		{"pt em compras, restated", "Nas compras acima de 200 reais, a entrega é grátis.", "Em compras com valor superior a 200 reais, a entrega não é cobrada.", true, ""},
	})
	for _, tc := range []struct {
		response string
		claims   int
	}{
		{"Depuis janvier, le magasin a cessé la livraison à domicile.", 1},
		{"In the north wing, the lifts are out of order.", 1},
		// two clauses that each assert something still split
		{"Priya is in charge of payments, Oskar heads infrastructure.", 2},
	} {
		if got := len(extractClaims(tc.response, nil)); got != tc.claims {
			t.Errorf("extractClaims(%q) = %d claims, want %d", tc.response, got, tc.claims)
		}
	}
}
