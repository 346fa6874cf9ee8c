package eval

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// groundednessCaseT is one claim-level regression case: the response, its context, whether it is
// grounded, and for an ungrounded one the claim the verdict must name.
type groundednessCaseT struct {
	name     string
	context  string
	response string
	grounded bool
	names    string // for an ungrounded case: a substring of the claim the evidence must cover
}

func checkGroundednessCases(t *testing.T, tests []groundednessCaseT) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := ScoreGroundedness(GroundednessInput{Response: tt.response, Context: []ContextItem{{ID: "ctx", Content: tt.context}}})
			if grounded := g.Score < 0.5; grounded != tt.grounded {
				t.Fatalf("ScoreGroundedness(%q) = %.3f (%s), want grounded=%v", tt.response, g.Score, g.Summary, tt.grounded)
			}
			if tt.grounded {
				return
			}
			at := strings.Index(tt.response, tt.names)
			if at < 0 {
				t.Fatalf("test case: %q is not in the response", tt.names)
			}
			for _, e := range g.Evidence {
				if e.Start <= at && at+len(tt.names) <= e.End && e.Text == tt.response[e.Start:e.End] {
					return
				}
			}
			t.Errorf("evidence %+v does not name the claim %q", g.Evidence, tt.names)
		})
	}
}

// The regression the metric exists for, at the level of claims and in every language the corpus
// covers: a claim the context denies is ungrounded, and the same denial restated is grounded.
func TestClaimThatTheContextDeniesIsUngroundedInEveryLanguage(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en negation", "The hotel does not allow pets.", "The hotel allows pets.", false, "The hotel allows pets."},
		{"en negation restated", "The hotel does not allow pets.", "Pets are not allowed at the hotel.", true, ""},
		{"en prohibition", "Swimming in the reservoir is prohibited.", "You can swim in the reservoir.", false, "swim"},
		{"en retraction", "The report that the river flooded in 1910 was later retracted.", "The river flooded in 1910.", false, "flooded"},
		{"en refutation", "The rumour that the mayor owns the stadium has been debunked.", "The mayor owns the stadium.", false, "owns"},
		{"en no longer", "The bakery no longer delivers on Sundays.", "The bakery delivers on Sundays.", false, "delivers"},
		{"fr negation", "La banque ne facture aucun frais de tenue de compte.", "La banque facture des frais de tenue de compte.", false, "facture"},
		{"fr restated", "La banque ne facture aucun frais de tenue de compte.", "La banque ne facture pas de frais de tenue de compte.", true, ""},
		{"es prohibition", "Está prohibido bañarse en el lago.", "Se permite bañarse en el lago.", false, "bañarse"},
		{"es restated", "Está prohibido bañarse en el lago.", "No se puede bañar en el lago.", true, ""},
		{"de negation", "Der Zug hält nicht in Bonn.", "Der Zug hält in Bonn.", false, "Bonn"},
		{"de restated", "Der Zug hält nicht in Bonn.", "In Bonn hält der Zug nicht.", true, ""},
		{"ru negation", "Магазин не работает по воскресеньям.", "Магазин работает по воскресеньям.", false, "работает"},
		{"ru restated", "Магазин не работает по воскресеньям.", "По воскресеньям магазин не работает.", true, ""},
		{"zh negation", "本店不接受信用卡付款，只收现金。", "本店接受信用卡付款。", false, "信用卡"},
		{"zh restated", "本店不接受信用卡付款，只收现金。", "本店不接受信用卡付款。", true, ""},
		{"ja negation", "この駅にはエレベーターがありません。", "この駅にはエレベーターがあります。", false, "エレベーター"},
		{"ja restated", "この駅にはエレベーターがありません。", "この駅にエレベーターはありません。", true, ""},
	})
}

func TestClaimsAreCheckedForFiguresEntitiesAndSupersession(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"a changed digit is a mismatch", "The warranty lasts 24 months.", "The warranty lasts 42 months.", false, "42"},
		{"another order of magnitude is a mismatch", "The battery holds 5,000 mAh.", "The battery holds 50,000 mAh.", false, "50,000"},
		{"another unit format is not", "The cable is 2 m long and costs $15.", "The cable is 200 cm long and costs 15 dollars.", true, ""},
		{"another spelling of the number is not", "Delivery takes 3 days.", "Delivery takes three days.", true, ""},
		{"weeks and days", "Returns are accepted for 14 days.", "Returns are accepted for two weeks.", true, ""},
		{"a fact of another entity", "Maya runs the Paris office; Tomas runs the Oslo office.", "Tomas runs the Paris office.", false, "Tomas"},
		{"a superseded value", "The fee was raised from $20 to $25 in March.", "The fee is $20.", false, "$20"},
		{"the current value", "The fee was raised from $20 to $25 in March.", "The fee is $25.", true, ""},
		{"a past value said as past", "The fee was raised from $20 to $25 in March.", "The fee used to be $20 and is now $25.", true, ""},
		{"one unsupported claim among several", "The museum opens at 10:00. Entry costs 8 euros.", "The museum opens at 10:00. Entry costs 8 euros. Guided tours run every hour.", false, "Guided tours run every hour."},
		{"an invented fact", "The lamp is made of brass and is 40 cm tall.", "The lamp is made of brass and ships with a bulb.", false, "ships with a bulb"},
		{"a paraphrase", "The lamp is made of brass and is 40 cm tall.", "This brass lamp stands 40 cm tall.", true, ""},
	})
}

// A response with no factual claim passes: nothing in it can be ungrounded.
func TestResponseWithoutAClaimPasses(t *testing.T) {
	ctx := []ContextItem{{ID: "kb", Content: "Orders ship within two working days."}}
	for _, response := range []string{"", "   \n\t", "I couldn't find that in the documents you gave me.", "Happy to help! Let me know if there is anything else.",
		"Could you tell me your order number?", "Je ne sais pas.", "资料中没有提到这一点。"} {
		g := ScoreGroundedness(GroundednessInput{Response: response, Context: ctx})
		if g.Score != 0 || len(g.Claims) != 0 {
			t.Errorf("ScoreGroundedness(%q) = %.3f with claims %+v, want 0 and none", response, g.Score, g.Claims)
		}
	}
}

func FuzzScoreGroundedness(f *testing.F) {
	f.Add("The fee is $1,200 [kb] under section 9.2; it was 3 days.", "Section 9.1: the fee was raised from $1,000 to $1,200. There is no section 9.2.")
	f.Add("本店接受信用卡付款。三百人", "本店不接受信用卡付款，只收现金。原为一百元，现已调整为每年一百五十元。")
	f.Add("Die Strecke ist 12,5 km lang, y la de Bilbao, 35.", "1.250 2 hours 40 minutes 9 am–5 pm 15 March 2025 twenty-four")
	f.Fuzz(func(t *testing.T, response, context string) {
		g := ScoreGroundedness(GroundednessInput{Response: response, Context: []ContextItem{{ID: "c", Content: context}}})
		if g.Score < 0 || g.Score > 1 {
			t.Fatalf("score %v outside [0,1]", g.Score)
		}
		if len(g.Claims) > maxClaims {
			t.Fatalf("%d claims, bound %d", len(g.Claims), maxClaims)
		}
		for _, e := range g.Evidence {
			if e.Start < 0 || e.End > len(response) || e.Start > e.End || response[e.Start:e.End] != e.Text {
				t.Fatalf("evidence %+v is not a span of the response", e)
			}
		}
		if utf8.ValidString(response) && !utf8.ValidString(g.Summary) {
			t.Fatalf("summary %q is not valid UTF-8", g.Summary)
		}
	})
}
