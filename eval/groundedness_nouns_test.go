package eval

import "testing"

// German capitalises every noun, so a capital after an article marks a common noun as often as a
// name: a grounded paraphrase that uses a noun its context does not ("im Jahr" for "jährlich",
// "mit dem Zug" for a timetable's line) does not name something the context never mentions
// (check_groundedness/10). A capitalised word with no article before it is still read as a name,
// and a noun after an article keeps its salience against the context's other nouns.
func TestAGermanNounAfterAnArticleIsNotANovelName(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"de novel noun after im", "Die Kommission tagt zweimal jährlich.", "Die Kommission tagt zweimal im Jahr.", true, ""},
		{"de novel noun after einer", "Das Gerät lädt in 30 Minuten auf 50 Prozent.", "In einer halben Stunde ist das Gerät zu 50 Prozent geladen.", true, ""},
		{"de novel name without article", "Der Workshop findet in Bonn statt.", "Der Workshop findet in Köln statt.", false, "Köln"},
		{"de noun of another line", "Die Linie 3 fährt zum Bahnhof, die Linie 4 zum Hafen.", "Die Linie 3 fährt zum Hafen.", false, "Hafen"},
	})
}
