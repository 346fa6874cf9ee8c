package eval

import "testing"

// "Free of charge" is one word in a language and another in the next, and a paraphrase swaps
// them ("gratis" for "gratuito", "kostenlos" for "gebührenfrei"); so are the verbs of sending
// ("verschickt" for "versenden") (check_groundedness/18). Each claim below is supported by its
// statement word for word once the synonyms meet, so its state is supported, not weak.
func TestFreeOfChargeAndSendingSynonyms(t *testing.T) {
	for _, tt := range []struct{ name, context, response string }{
		{"it gratis for gratuito", "Il museo è gratuito.", "Il museo è gratis."},
		{"de kostenlos for gebührenfrei", "Das Girokonto ist gebührenfrei.", "Das Girokonto ist kostenlos."},
		{"ru бесплатно for бесплатный", "Парковка бесплатная.", "Парковка бесплатно."},
		{"de verschickt for versenden", "Wir versenden Bücher.", "Die Bücher werden verschickt."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := ScoreGroundedness(GroundednessInput{Response: tt.response, Context: []ContextItem{{ID: "ctx", Content: tt.context}}})
			if len(g.Claims) != 1 || g.Claims[0].State != ClaimSupported || g.Score >= 0.5 {
				t.Fatalf("ScoreGroundedness(%q) = %.3f with claims %+v, want one supported claim", tt.response, g.Score, g.Claims)
			}
		})
	}
}
