package eval

import "testing"

// An exception ("open every day except Sunday", "sauf pour…", "кроме воскресенья", "除周一外")
// denies the rule it qualifies for what it names: a claim that the rule holds for it is
// ungrounded, and the same exception restated ("not open on Sundays", "…, except on Sundays") is
// grounded.
func TestAnExceptionDeniesTheRuleForWhatItNames(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en except", "The shop is open every day except Sunday.", "The shop is open on Sundays.", false, "Sundays"},
		{"en except restated", "The shop is open every day except Sunday.", "The shop is not open on Sundays.", true, ""},
		{"en except restated as an exception", "The shop is open every day except Sunday.", "The shop opens daily, except on Sundays.", true, ""},
		{"de bis auf restated", "Alle Filialen haben samstags geöffnet, ausgenommen die Filiale am Markt.", "Samstags sind alle Filialen offen, bis auf die am Markt.", true, ""},
		{"en except, the rule itself", "All rooms have a balcony except room 12.", "The rooms have a balcony.", true, ""},
		{"en except, the named one", "All rooms have a balcony except room 12.", "Room 12 has a balcony.", false, "Room 12"},
		{"fr sauf", "Le remboursement est possible sous 14 jours, sauf pour les billets Prem's.", "Les billets Prem's sont remboursables sous 14 jours.", false, "Prem's"},
		{"es excepto", "La tienda abre todos los días excepto el domingo.", "La tienda abre el domingo.", false, "domingo"},
		{"es excepto restated", "La tienda abre todos los días excepto el domingo.", "La tienda no abre el domingo.", true, ""},
		{"de außer", "Das Museum ist täglich geöffnet, außer montags.", "Das Museum ist montags geöffnet.", false, "montags"},
		{"ru кроме", "Магазин работает ежедневно, кроме воскресенья.", "Магазин работает в воскресенье.", false, "воскресенье"},
		{"ru кроме restated", "Магазин работает ежедневно, кроме воскресенья.", "В воскресенье магазин не работает.", true, ""},
		{"zh 除外", "除周一外，博物馆每天开放。", "博物馆周一开放。", false, "周一"},
		{"zh 除外 restated", "除周一外，博物馆每天开放。", "博物馆周一不开放。", true, ""},
	})
}
