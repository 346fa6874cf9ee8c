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
		{"en a refuted closure", "The rumour that the pool is closed for the summer was debunked.", "The pool is closed for the summer.", false, "closed"},
		{"en a myth, and cannot", "It is a myth that the wall is visible from the Moon.", "Contrary to the myth, the wall cannot be seen from the Moon.", true, ""},
		{"ru не запрещено", "Курение на балконе не запрещено.", "Курение на балконе запрещено.", false, "запрещено"},
	})
}

// Negation in the details of a script or language: Portuguese "no" is "in the" ("no clube"),
// not Spanish or English "no"; Arabic vowel marks ("يُمنع") do not hide a cue; Hindi "खंडन" denies.
func TestNegationAcrossScriptsAndLookalikes(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"pt no is a preposition", "O clube abre no sábado de manhã.", "O clube não abre no sábado de manhã.", false, "não abre"},
		{"pt no is a preposition, restated", "O clube abre no sábado de manhã.", "O clube abre no sábado.", true, ""},
		{"pt não with no", "Menores de 18 anos não podem entrar no clube.", "Menores de 18 anos podem entrar no clube.", false, "podem entrar"},
		{"es no still negates", "El museo no abre los lunes.", "El museo abre los lunes.", false, "abre"},
		{"ar harakat", "يُمنع التصوير داخل المتحف.", "يُسمح بالتصوير داخل المتحف.", false, "التصوير"},
		{"hi खंडन", "कंपनी ने उन ख़बरों का खंडन किया है कि वह अपना कारख़ाना बंद कर रही है।", "कंपनी अपना कारख़ाना बंद कर रही है।", false, "बंद"},
	})
}
