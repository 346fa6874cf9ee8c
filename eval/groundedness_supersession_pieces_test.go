package eval

import "testing"

// Three ways a context marks a value as replaced that the claim check missed before
// check_groundedness/17: a fronted cue in a piece of its own ("Previously, …"), a change whose
// "from" follows another figure of the same kind ("Update 12 Nov: … moved from 30 November to 15
// December"), and a value told in the past up to a bound ("was £7 until June") before the one
// that followed it. The current values stay supported, and a bound is no value.
func TestSupersessionAcrossPiecesAndBounds(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en fronted previously, old", "Previously, staff could carry over up to ten unused leave days. From 2027 the limit is five days.", "Staff can carry over up to ten unused leave days.", false, "ten"},
		{"en fronted previously, current", "Previously, staff could carry over up to ten unused leave days. From 2027 the limit is five days.", "From 2027 staff can carry over up to five unused leave days.", true, ""},
		{"en from after a dated update, old", "Update 12 Nov: the deadline for applications has moved from 30 November to 15 December.", "Applications are due by 30 November.", false, "30 November"},
		{"en from after a dated update, current", "Update 12 Nov: the deadline for applications has moved from 30 November to 15 December.", "Applications are due by 15 December.", true, ""},
		{"en was until, old", "The monthly fee was £7 until June. From July it is £9.", "The monthly fee is £7.", false, "£7"},
		{"en was until, current", "The monthly fee was £7 until June. From July it is £9.", "Since July the monthly fee has been £9.", true, ""},
		{"de war bis, old", "Der Eintritt war bis März 12 Euro. Ab April kostet er 15 Euro.", "Der Eintritt kostet 12 Euro.", false, "12 Euro"},
		// a value in the past with no bound is history, not a replaced value
		{"en was, no bound", "Attendance was 500 on the first day. On the second day 700 people came.", "Attendance was 500 on the first day.", true, ""},
	})
}
