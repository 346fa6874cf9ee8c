package eval

import (
	"strings"
	"testing"
)

// A claim that says in one clause what its context says in two or three statements of one item
// is supported (check_groundedness/10); a join that would pin one statement's fact on another
// statement's subject, or leave a same-kind figure unused, is not made.
func TestAClaimMaySayTwoStatementsOfAnItemInOne(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		// grounded compressions
		{"en range over two clauses", "The pool opens at 7 am and closes at 9 pm.", "The pool is open from 7 am to 9 pm.", true, ""},
		{"fr range over two clauses", "La bibliothèque ouvre à 9 h et ferme à 19 h.", "La bibliothèque est ouverte de 9 h à 19 h.", true, ""},
		{"es range over two clauses", "La oficina abre a las 8:00 y cierra a las 15:00.", "La oficina está abierta de 8:00 a 15:00.", true, ""},
		{"en window over two clauses", "Boarding starts 40 minutes before departure and ends 15 minutes before.", "You can board from 40 minutes before departure until 15 minutes before.", true, ""},
		{"en two sentences", "The Arden kettle holds 1.7 litres. Its body is brushed steel.", "The Arden is a 1.7-litre kettle with a brushed steel body.", true, ""},
		{"de two sentences", "Der Kurs beginnt am 3. März. Er endet am 28. April.", "Der Kurs läuft vom 3. März bis zum 28. April.", true, ""},
		{"ru range over two clauses", "Поезд отправляется в 8:10 и прибывает в 10:05.", "Поезд идёт с 8:10 до 10:05.", true, ""},
		{"en three statements", "The Vela backpack weighs 900 g, holds 28 litres and has a laptop sleeve. Its straps are padded.", "The Vela is a 28-litre backpack with padded straps; it weighs 900 g.", true, ""},
		// joins not made
		{"en figure of another entity", "Hall A seats 120 people. Hall B seats 300 people.", "Hall A seats 300 people.", false, "Hall A seats 300 people."},
		{"es elliptical clause of another subject", "El almacén de Vigo tiene 12 camiones y el de León, 7.", "El almacén de León tiene 12 camiones.", false, "León"},
		{"en same-kind figure of another day", "The pool opens at 7 am. It closes at 9 pm on weekdays and at 6 pm on Sundays.", "The pool is open from 7 am to 6 pm on weekdays.", false, "6 pm"},
		{"en piece of another clause", "The Oak room has a desk and a balcony. The Elm room sleeps three and has a bathtub.", "The Oak room has a bathtub.", false, "bathtub"},
		{"en changed figure across clauses", "The pool opens at 7 am and closes at 9 pm.", "The pool is open from 7 am to 10 pm.", false, "10 pm"},
		{"de denied half", "Das Bad öffnet um 7 Uhr. Es schließt nicht um 21 Uhr, sondern um 22 Uhr.", "Das Bad ist von 7 Uhr bis 21 Uhr geöffnet.", false, "21 Uhr"},
	})
}

// The joined statement is what a supported claim reports as aligned, so a reader sees both
// halves of the context that support it.
func TestAJoinedClaimNamesBothStatements(t *testing.T) {
	g := ScoreGroundedness(GroundednessInput{
		Response: "The pool is open from 7 am to 9 pm.",
		Context:  []ContextItem{{ID: "pool", Content: "The pool opens at 7 am and closes at 9 pm."}},
	})
	if g.Score >= 0.5 || len(g.Claims) != 1 {
		t.Fatalf("ScoreGroundedness = %.3f (%s), want one grounded claim", g.Score, g.Summary)
	}
	c := g.Claims[0]
	if c.State != ClaimSupported || !strings.Contains(c.Aligned, "7 am") || !strings.Contains(c.Aligned, "9 pm") {
		t.Errorf("claim = %+v, want supported and aligned with both clauses", c)
	}
}

// Each guard on a join, shown by the false claim it keeps from being supported: without it the
// claim below would align with a join and read as supported. (Most of these claims are weak
// without a join, which leaves them to the judge, not grounded.)
func TestAJoinDoesNotSupportAFalseClaim(t *testing.T) {
	tests := []struct{ guard, context, response string }{
		{"a later piece of another clause is that clause's subject's",
			"The Oak room has a balcony. The Elm room sleeps three and has a bathtub.", "The Oak room with the balcony has a bathtub."},
		{"the statement joined is said whole (a clause)",
			"The Oak room has a balcony. The Elm room sleeps three and has a bathtub.", "The Oak room has a balcony and a bathtub."},
		{"the statement joined is said whole (another subject)",
			"The tenant pays for gas. The owner pays for water.", "The tenant pays for gas and water."},
		{"no same-kind figure is left unused",
			"The museum opens at 9 am in summer and 10 am in winter. It closes at 5 pm.", "In winter the museum is open from 9 am to 5 pm."},
		{"statements of opposite polarity are not joined",
			"Das Bad öffnet um 7 Uhr. Es schließt nicht um 21 Uhr, sondern um 22 Uhr.", "Das Bad ist von 7 Uhr bis 21 Uhr geöffnet."},
	}
	for _, tt := range tests {
		t.Run(tt.guard, func(t *testing.T) {
			g := ScoreGroundedness(GroundednessInput{Response: tt.response, Context: []ContextItem{{ID: "ctx", Content: tt.context}}})
			if len(g.Claims) != 1 {
				t.Fatalf("ScoreGroundedness(%q) has %d claims (%s), want 1", tt.response, len(g.Claims), g.Summary)
			}
			if c := g.Claims[0]; c.State == ClaimSupported {
				t.Errorf("claim %q is supported by %q (score %.3f), want it not supported", c.Text, c.Aligned, g.Score)
			}
		})
	}
}
