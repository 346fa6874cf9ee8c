package eval

import "testing"

// check_groundedness/5: a fair paraphrase is grounded — synonyms, inflection, another unit or
// number format of the same value — and the same paraphrase with a changed figure, a reversed
// polarity or a denial of the context is still not, in several languages.
func TestParaphraseIsGroundedAndItsReversalIsNot(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		// synonyms and inflections
		{"en synonyms", "Employees receive 25 days of paid annual leave per year.", "Staff get 25 paid days of annual leave each year.", true, ""},
		{"en synonyms, another figure", "Employees receive 25 days of paid annual leave per year.", "Staff get 28 paid days of annual leave each year.", false, "28"},
		{"en synonyms, denied", "Employees do not receive paid annual leave.", "Staff get paid annual leave.", false, "Staff"},
		{"en inflection", "Hillside Academy ranked first in the regional league.", "Hillside Academy is first in the regional league rankings.", true, ""},
		{"en purchase", "Customers can buy gift cards at the front desk.", "Gift cards can be purchased at the front desk.", true, ""},
		{"en purchase, denied", "Customers cannot buy gift cards at the front desk.", "Gift cards can be purchased at the front desk.", false, "purchased"},
		{"fr synonyms", "Les salariés reçoivent une prime annuelle.", "Les employés reçoivent une prime annuelle.", true, ""},
		{"es synonyms", "Los empleados reciben un bono extra.", "Los trabajadores reciben un bono extra.", true, ""},
		{"es synonyms, denied", "Los empleados no reciben un bono extra.", "Los trabajadores reciben un bono extra.", false, "trabajadores"},
		{"de synonyms", "Mitarbeiter erhalten 30 Urlaubstage.", "Angestellte bekommen 30 Urlaubstage.", true, ""},
		{"ru synonyms, denied", "Сотрудники не получают премию.", "Работники получают премию.", false, "получают"},
		{"zh synonyms", "员工每年享有年假和带薪病假。", "职员每年享有年假和带薪病假。", true, ""},
		// units and number formats
		{"ms as seconds", "The median response time is 250 ms.", "The median response time is 0.25 seconds.", true, ""},
		{"ms as seconds, another value", "The median response time is 250 ms.", "The median response time is 0.5 seconds.", false, "0.5 seconds"},
		{"ml as litres", "Die Trinkflasche fasst 1,5 Liter.", "Die Trinkflasche fasst 1500 ml.", true, ""},
		{"feet as metres", "The ceiling is 3.048 metres high.", "The ceiling is 10 feet high.", true, ""},
		{"ru km", "Трасса длиной 5 километров.", "Трасса длиной 5 км.", true, ""},
		{"ru km, another value", "Трасса длиной 5 километров.", "Трасса длиной 7 км.", false, "7 км"},
		{"zh ml", "这瓶水容量为0.5升。", "这瓶水容量为500毫升。", true, ""},
		{"zh ml, another value", "这瓶水容量为0.5升。", "这瓶水容量为750毫升。", false, "750"},
		{"it days", "La consegna richiede 14 giorni.", "La consegna richiede 2 settimane.", true, ""},
		{"count after an adjective", "Employees receive 25 days of annual leave.", "Employees receive 25 paid days of annual leave.", true, ""},
	})
}

// "Closed" is the negation of "open" in the languages check_groundedness/4 added, as in English.
func TestClosedIsTheNegationOfOpenInMoreLanguages(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"he closed restated", "החנות אינה פתוחה בשבת.", "בשבת החנות סגורה.", true, ""},
		{"he open against not open", "החנות אינה פתוחה בשבת.", "החנות פתוחה בשבת.", false, "פתוחה"},
		{"it chiuso restated", "Il museo non è aperto il lunedì.", "Il museo è chiuso il lunedì.", true, ""},
		{"it aperto against chiuso", "Il museo è chiuso il lunedì.", "Il museo è aperto il lunedì.", false, "aperto"},
		{"nl gesloten restated", "De winkel is op zondag niet open.", "De winkel is op zondag gesloten.", true, ""},
		{"tr kapalı against açık", "Müze pazartesi kapalı.", "Müze pazartesi açık.", false, "açık"},
		{"ar closed restated", "المتحف ليس مفتوحا يوم الاثنين.", "المتحف مغلق يوم الاثنين.", true, ""},
	})
}

// The stemmer: a plural of an -ing noun, a doubled consonant and an -ly adverb meet their base.
func TestStemWordMeetsInflections(t *testing.T) {
	for _, c := range [][2]string{{"rankings", "rank"}, {"ranked", "rank"}, {"running", "run"}, {"stopped", "stop"},
		{"weekly", "week"}, {"bookings", "book"}, {"spelling", "spell"}} {
		if a, b := stemWord(c[0]), stemWord(c[1]); a != b {
			t.Errorf("stemWord(%q) = %q, stemWord(%q) = %q; want equal", c[0], a, c[1], b)
		}
	}
	if stem("staff") != stem("employees") || stem("purchased") != stem("buy") {
		t.Errorf("synonyms do not share a key: staff %q employees %q purchased %q buy %q", stem("staff"), stem("employees"), stem("purchased"), stem("buy"))
	}
}

// An abstention about the material in languages that write the particle onto the word is no
// claim; a denial of a fact in the same languages still is one.
func TestAbstentionsInMoreLanguagesMakeNoClaim(t *testing.T) {
	ctx := []ContextItem{{ID: "faq", Content: "Our support team is available from 8am to 8pm, Monday to Saturday."}}
	for _, r := range []string{"제공된 문서에서는 해당 내용을 찾을 수 없습니다.", "لا أعرف، فالمستندات المقدَّمة لا تذكر ذلك.",
		"I documenti non dicono nulla sui costi di spedizione.", "De documenten zeggen niets over de verzendkosten."} {
		if g := ScoreGroundedness(GroundednessInput{Response: r, Context: ctx}); g.Score != 0 || len(g.Claims) != 0 {
			t.Errorf("ScoreGroundedness(%q) = %.3f with %d claims (%s), want no claim", r, g.Score, len(g.Claims), g.Summary)
		}
	}
	checkGroundednessCases(t, []groundednessCaseT{
		{"ko denial is a claim", "이 서비스는 환불을 지원합니다.", "이 서비스는 환불을 지원하지 않습니다.", false, "환불을"},
		{"ar denial is a claim", "المتجر يقبل الدفع نقدا.", "المتجر لا يقبل الدفع نقدا.", false, "يقبل"},
	})
}

// Dates, clock times and durations written another way restate the same value; another value is
// still a mismatch.
func TestDatesClockTimesAndMonthsInMoreForms(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en 15th of March", "The launch is on 15 March 2026.", "The launch is on the 15th of March 2026.", true, ""},
		{"en 16th of March", "The launch is on 15 March 2026.", "The launch is on the 16th of March 2026.", false, "16th"},
		{"en Mar. 15", "The launch is on 15 March 2026.", "The launch is on Mar. 15, 2026.", true, ""},
		{"es 3 de mayo", "La tienda abre el 3 de mayo de 2026.", "La tienda abre el 03/05/2026.", true, ""},
		{"es 4 de mayo", "La tienda abre el 3 de mayo de 2026.", "La tienda abre el 04/05/2026.", false, "04/05/2026"},
		{"nl maart", "De lancering is op 15 maart 2026.", "De lancering is op 15-03-2026.", true, ""},
		{"it maggio", "Il negozio apre il 3 maggio 2026.", "Il negozio apre il 03/05/2026.", true, ""},
		{"pl marca", "Premiera odbędzie się 15 marca 2026.", "Premiera odbędzie się 15.03.2026.", true, ""},
		{"en 2.30pm", "The meeting starts at 14:30.", "The meeting starts at 2.30pm.", true, ""},
		{"en 3.30pm", "The meeting starts at 14:30.", "The meeting starts at 3.30pm.", false, "3.30pm"},
		{"en 9 a.m.", "The meeting starts at 9:00.", "The meeting starts at 9 a.m.", true, ""},
		{"en 24 months", "The warranty lasts 2 years.", "The warranty lasts 24 months.", true, ""},
		{"en 18 months", "The warranty lasts 2 years.", "The warranty lasts 18 months.", false, "18 months"},
		{"en 1 month", "The trial lasts 30 days.", "The trial lasts one month.", true, ""},
	})
}
