package eval

import "testing"

// A "no" that is the number sign ("Bus No. 24", and "№" and "nº", which fold to it) is not a
// negation: until check_groundedness/19 every claim about route No. 24 was contradicted by its
// own context. A "no" before a number that begins a compound still negates.
func TestNumberSignIsNotANegation(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en No. with a full stop", "Bus No. 24 leaves at 8:10 from stop C.", "Bus 24 leaves at 8:10 from stop C.", true, ""},
		{"en no without one", "Bus no 24 leaves at 8:10 from stop C.", "Bus 24 leaves at 8:10 from stop C.", true, ""},
		{"the numero sign", "Train № 24 leaves at 8:10 from platform 3.", "The train leaves at 8:10 from platform 3.", true, ""},
		{"ru the numero sign", "Поезд № 24 отправляется в 22:15 с третьего пути.", "Поезд уходит в 22:15 с третьего пути.", true, ""},
		{"es nº", "El autobús nº 24 sale a las 8:10.", "El autobús 24 sale a las 8:10.", true, ""},
		{"a real negation beside a number sign", "Room no. 5 has no window.", "Room 5 has a window.", false, "Room 5 has a window."},
		{"no before a compound", "There is no 24-hour pharmacy in the village.", "The village has a 24-hour pharmacy.", false, "The village has a 24-hour pharmacy."},
	})
}
