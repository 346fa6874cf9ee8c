package eval

import "testing"

// Figures restated in another unit of the same quantity are the same figure: data rates, Hindi
// units, a fortnight, a decimal comma.
func TestFiguresMeetAcrossUnits(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"Gbit/s and Mbit/s", "Fibre Max: 1 Gbit/s download, no data cap.", "Fibre Max downloads at 1000 Mbit/s.", true, ""},
		{"Gbit/s changed", "Fibre Max: 1 Gbit/s download, no data cap.", "Fibre Max downloads at 100 Mbit/s.", false, "100"},
		{"Mbps", "The line delivers 50 Mbit/s.", "The line delivers 50 Mbps.", true, ""},
		{"hi metres and kilometres", "रेलवे स्टेशन से कॉलेज की दूरी 5 किलोमीटर है।", "स्टेशन से कॉलेज की दूरी 5000 मीटर है।", true, ""},
		{"hi kilometres changed", "रेलवे स्टेशन से कॉलेज की दूरी 5 किलोमीटर है।", "स्टेशन से कॉलेज की दूरी 8 किलोमीटर है।", false, "8"},
		{"a fortnight", "Items may be returned within 14 days of delivery.", "Items may be returned within a fortnight of delivery.", true, ""},
		{"a week", "Allow 7 days before driving on the screed.", "Allow a week before driving on the screed.", true, ""},
		{"a month after a price is a rate", "The Team plan costs $49 per month.", "The Team plan is $49 a month.", true, ""},
		{"twice a day is a rate", "Take one tablet twice daily.", "Take one tablet twice a day.", true, ""},
		{"de decimal comma", "Linie 820: Fahrzeit 1,5 Stunden.", "Linie 820 braucht 90 Minuten.", true, ""},
	})
}
