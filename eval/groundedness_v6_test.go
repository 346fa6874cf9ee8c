package eval

import "testing"

// check_groundedness/6: a paraphrase may say in its own words what the aligned statement says in
// others, where the statement has them (paraphraseCoverage); a new predicate on a shared subject
// is still another claim.
func TestParaphraseStandsInForTheStatementsOwnWords(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en words in place of words", "The spare battery ships with every drone kit.", "Every drone kit comes bundled with the spare battery.", true, ""},
		{"en new predicate on the subject", "The museum opens at ten on Sundays.", "The museum offers guided tours for schools.", false, "guided tours"},
		{"de words in place of words", "Das Gästezimmer hat ein eigenes Bad mit Dusche.", "Das Gästezimmer verfügt über ein separates Bad mit Dusche.", true, ""},
		{"es new predicate", "El parque abre todos los días desde las nueve.", "El parque cierra los lunes por obras.", false, "cierra"},
	})
}

// Words beside a figure the claim does not use state a fact of their own ("within 10 days"):
// other words ("by bank cheque") do not stand in for them, so the claim is at most weak (for the
// judge), never supported.
func TestWordsBesideAFigureAreNotParaphrased(t *testing.T) {
	for _, tt := range []struct{ context, response string }{
		{"Deposits are returned within 10 days of moving out.", "Deposits are returned by bank cheque."},
		{"Refunds are issued within 14 days.", "Refunds are issued by bank card."},
	} {
		g := ScoreGroundedness(GroundednessInput{Response: tt.response, Context: []ContextItem{{ID: "ctx", Content: tt.context}}})
		if len(g.Claims) != 1 || g.Claims[0].State == ClaimSupported {
			t.Errorf("ScoreGroundedness(%q) claims = %+v, want one claim not supported", tt.response, g.Claims)
		}
	}
}

// check_groundedness/6: a rule that was repealed, abolished or revoked is denied in the whole
// clause that describes it, as a retraction is.
func TestRepealedRulesAreDeniedInTheirWholeClause(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en repealed", "Rule 9, which let tenants keep cats, was repealed in 2024.", "Rule 9 lets tenants keep cats.", false, "Rule 9"},
		{"en repealed, restated", "Rule 9, which let tenants keep cats, was repealed in 2024.", "Rule 9 was repealed in 2024.", true, ""},
		{"de aufgehoben", "Die Regel, die Hunde im Park erlaubte, wurde aufgehoben.", "Die Regel erlaubt Hunde im Park.", false, "Hunde"},
		{"fr abrogé", "L'article 5, qui autorisait le vote par courrier, a été abrogé.", "L'article 5 autorise le vote par courrier.", false, "vote"},
	})
}

// check_groundedness/6: "not X but Y" speaks of one subject twice — the correction affirms Y of
// it and denies X — in several languages.
func TestACorrectionAffirmsItsValueAndDeniesTheOld(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"de sondern", "Die Sprechstunde der Bibliothek ist nicht mehr montags, sondern freitags von 9 bis 12 Uhr.", "Die Bibliothek hat freitags von 9 bis 12 Uhr Sprechstunde.", true, ""},
		{"de sondern, the old day", "Die Sprechstunde der Bibliothek ist nicht mehr montags, sondern freitags von 9 bis 12 Uhr.", "Die Sprechstunde der Bibliothek ist montags von 9 bis 12 Uhr.", false, "montags"},
		{"en but", "The courier does not deliver parcels on Saturdays, but on Sundays from 8 to 12.", "The courier delivers parcels on Sundays from 8 to 12.", true, ""},
		{"en but, the old day", "The courier does not deliver parcels on Saturdays, but on Sundays from 8 to 12.", "The courier delivers parcels on Saturdays from 8 to 12.", false, "Saturdays"},
		{"es sino", "La tienda no acepta pagos en efectivo, sino con tarjeta.", "La tienda acepta pagos con tarjeta.", true, ""},
		{"ru а", "Семинар проводится не во вторник, а в четверг в 15:00.", "Семинар проводится в четверг в 15:00.", true, ""},
	})
}

// check_groundedness/6: a statement that says its value holds now retires a value of the same
// kind given before it in the item, and "passe de X à Y" is a change like "rose from X to Y".
func TestAValueThatHoldsNowRetiresTheOneBeforeIt(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en now", "A day pass was $12 until June; it now costs $14.", "A day pass costs $12.", false, "$12"},
		{"en now, the current value", "A day pass was $12 until June; it now costs $14.", "A day pass costs $14.", true, ""},
		{"de jetzt", "Die Kursgebühr lag bei 80 Euro. Jetzt beträgt sie 95 Euro.", "Die Kursgebühr beträgt 80 Euro.", false, "80 Euro"},
		{"ru теперь", "Раньше абонемент стоил 900 рублей. Теперь абонемент стоит 1100 рублей.", "Абонемент стоит 900 рублей.", false, "900"},
		{"fr passe de … à", "La cotisation passe de 40 € à 55 € en janvier.", "La cotisation est de 40 €.", false, "40 €"},
		{"fr passe de … à, the new value", "La cotisation passe de 40 € à 55 € en janvier.", "La cotisation est de 55 € à partir de janvier.", true, ""},
		{"a range is no change", "The desk is staffed from 9 to 17 on weekdays.", "The desk is staffed from 9 to 17 on weekdays.", true, ""},
	})
}

// check_groundedness/6: a negated claim reverses the statement it aligns with only when its
// negation reaches a word they share; a negation inside the paraphrase of a word the statement
// holds ("contains no meat" for "vegetarian") is no reversal.
func TestANegationInsideAParaphraseIsNoReversal(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en no meat", "The mushroom risotto is vegetarian.", "The mushroom risotto contains no meat.", true, ""},
		{"en not, shared", "The mushroom risotto is served on Fridays.", "The mushroom risotto is not served on Fridays.", false, "not served"},
		{"ru без", "Вход в музей для детей бесплатный.", "Для детей вход в музей без оплаты.", true, ""},
		{"ru не, shared", "Гости отеля паркуются бесплатно.", "Гости отеля не паркуются бесплатно.", false, "не паркуются"},
		{"de kein, shared", "Der Kurs enthält ein Zertifikat.", "Der Kurs enthält kein Zertifikat.", false, "kein Zertifikat"},
	})
}

// check_groundedness/6: "…, and found to be false" refutes what the clause before its "and"
// reports, since it has no object of its own; a refuted report restated as refuted is grounded.
func TestABareRefutationReachesBackAcrossAnd(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en refuted report", "Reports that the old pier is unsafe were reviewed by two engineers and found to be false.", "The old pier is unsafe.", false, "unsafe"},
		{"en refuted report, restated", "Reports that the old pier is unsafe were reviewed by two engineers and found to be false.", "Two engineers found the reports that the old pier is unsafe to be false.", true, ""},
		{"en and a new predicate keeps its own polarity", "The council denied the rumours of closure and said the pier will reopen in May.", "The council said the pier will reopen in May.", true, ""},
	})
}

// check_groundedness/6: a figure the claim shares with the statement anchors a paraphrase like a
// shared word does.
func TestASharedFigureAnchorsAParaphrase(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en a time", "The museum café shuts at 17:00.", "The café stops serving food at 17:00.", true, ""},
		{"en a time, another time", "The museum café shuts at 17:00.", "The café stops serving food at 18:00.", false, "18:00"},
		{"en no shared figure", "The museum café shuts at 17:00.", "The café stops serving food on Mondays.", false, "Mondays"},
	})
}

// The bare endings of the German and Russian ordinal tables ("en", "es", "er", "ый") are no
// ordinals: before check_groundedness/6 "en línea" read as an ordinal 0 of "línea", a figure two
// statements could disagree on.
func TestBareOrdinalEndingsAreNoFigures(t *testing.T) {
	for _, s := range []string{"Son 12 sesiones en línea.", "El certificado es gratuito.", "Heute kommt er Montag.", "ый дом"} {
		for _, f := range analyze(s).figs {
			if f.cat == "ord" {
				t.Errorf("analyze(%q) has the ordinal %+v", s, f)
			}
		}
	}
}

// A number glued to letters names a model ("the Z300"), it counts nothing: "the Z300 running"
// keeps its verb as a word.
func TestAModelNumberCountsNothing(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en model", "The Z300 cordless vacuum weighs 2.1 kg and runs for 40 minutes on a full charge.", "A full charge keeps the Z300 running for 40 minutes.", true, ""},
		{"en model, another time", "The Z300 cordless vacuum weighs 2.1 kg and runs for 40 minutes on a full charge.", "A full charge keeps the Z300 running for 50 minutes.", false, "50 minutes"},
	})
}
