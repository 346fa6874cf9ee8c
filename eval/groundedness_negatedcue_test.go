package eval

import "testing"

// A negated word of denial ("not cancelled", "n'a pas interdit", "não foi cancelada", "не
// запрещено") affirms: the claim that the thing was cancelled or banned is contradicted, and the
// same double negation restated is supported.
func TestANegatedWordOfDenialAffirms(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en not cancelled", "The concert was not cancelled.", "The concert was cancelled.", false, "cancelled"},
		{"en not banned", "Dogs are not banned from the park.", "Dogs are banned from the park.", false, "banned"},
		{"en not banned restated", "Dogs are not banned from the park.", "Dogs aren't banned from the park.", true, ""},
		{"en a ban beside another clause", "Entry is free and dogs are banned.", "Dogs are banned.", true, ""},
		{"fr n'a pas interdit", "La mairie n'a pas interdit les barbecues dans les jardins.", "La mairie a interdit les barbecues dans les jardins.", false, "interdit"},
		{"fr restated", "La mairie n'a pas interdit les barbecues dans les jardins.", "Les barbecues ne sont pas interdits dans les jardins.", true, ""},
		{"pt não foi cancelada", "A greve dos professores não foi cancelada.", "A greve dos professores foi cancelada.", false, "cancelada"},
		{"es no fue cancelado", "El concierto no fue cancelado.", "El concierto fue cancelado.", false, "cancelado"},
		{"de nicht verboten", "Das Fotografieren im Park ist nicht verboten.", "Das Fotografieren im Park ist verboten.", false, "verboten"},
		{"ru не запрещено", "Курение на балконе не запрещено.", "Курение на балконе запрещено.", false, "запрещено"},
	})
}
