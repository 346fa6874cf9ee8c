package eval

import "testing"

// A negation does not reach the cause given beside it ("will not play because of a hamstring
// injury" says that he has the injury), while the negated claim itself stays denied.
func TestANegationDoesNotReachItsCause(t *testing.T) {
	const news = "Midfielder Nuno Farias will not play in Sunday's final because of a hamstring injury."
	checkGroundednessCases(t, []groundednessCaseT{
		{"en the cause", news, "Farias has a hamstring injury.", true, ""},
		{"en the negated claim", news, "Farias will play in Sunday's final.", false, "will play"},
		{"en both", news, "Farias will not play in the final; he has a hamstring injury.", true, ""},
		{"es porque", "El partido no se jugará porque el campo está inundado.", "El campo está inundado.", true, ""},
		{"es the negated claim", "El partido no se jugará porque el campo está inundado.", "El partido se jugará.", false, "jugará"},
		{"de weil", "Das Freibad öffnet heute nicht, weil das Wasser zu kalt ist.", "Das Wasser ist zu kalt.", true, ""},
	})
}
