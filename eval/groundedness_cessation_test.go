package eval

import "testing"

// A verb of stopping denies what stopped ("stopped serving", "dejó de prestar", "a cessé"), and
// so do the phrasal verbs of exclusion and refusal ("ruled out", "turned down"); alone, each
// word keeps its other sense ("the bus stopped", "turned the page"). Restated with another word
// of denial, the claim is supported; restated as the positive, it is contradicted
// (check_groundedness/11).
func TestCessationAndPhrasalDenials(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en stopped serving, reversed", "The airline stopped serving hot meals on flights under two hours.", "The airline serves hot meals on flights under two hours.", false, "hot meals"},
		{"en stopped serving, restated", "The airline stopped serving hot meals on flights under two hours.", "Hot meals are no longer served on flights under two hours.", true, ""},
		{"en ruled out, restated", "Investigators ruled out sabotage as the cause of the outage.", "Sabotage has been excluded as the cause of the outage.", true, ""},
		{"en ruled out, reversed", "Investigators ruled out sabotage as the cause of the outage.", "Investigators found that sabotage caused the outage.", false, "sabotage"},
		{"en turned down, restated", "The council rejected the plan to widen Harbour Street.", "The plan to widen Harbour Street was turned down by the council.", true, ""},
		{"en dropped support, reversed", "Version 3 of the API dropped support for XML responses.", "Version 3 of the API supports XML responses.", false, "XML"},
		{"es dejó de, restated", "La biblioteca ya no presta ordenadores portátiles.", "La biblioteca dejó de prestar ordenadores portátiles.", true, ""},
		{"fr a cessé, reversed", "Le magasin a cessé la livraison à domicile.", "Le magasin assure la livraison à domicile.", false, "livraison"},
		{"pt deixou de, restated", "O hotel não oferece mais estacionamento.", "O hotel deixou de oferecer estacionamento.", true, ""},
		{"ru перестал, restated", "Магазин больше не принимает наличные.", "Магазин перестал принимать наличные.", true, ""},
		{"es excluidos, restated", "El seguro no cubre los daños causados por inundaciones.", "Los daños por inundación quedan excluidos del seguro.", true, ""},
		{"en did not reject affirms", "The committee did not reject the proposal to extend opening hours.", "The committee turned down the proposal to extend opening hours.", false, "turned down"},
		// the words alone keep their other sense
		{"en the bus stopped", "The night bus stopped at Leeds station.", "The night bus stopped at Leeds station.", true, ""},
		{"en stopped during is not a cessation", "Trains were halted across the network during the strike.", "The trains stopped during the strike.", true, ""},
		{"en turned the page", "The council turned the page on the old plan and approved a new one.", "The council approved a new plan.", true, ""},
	})
}

// Abstentions in the phrasings a new author used: the material's silence, an inability to find
// or confirm, a request to say which thing is meant, thanks and wishes. None of them is a claim,
// so each passes; a guess after one is still a claim. The words that name the material are the
// given material ("these notes", "what you sent"), not a file, a page or a guide of the world.
func TestAbstentionsInMorePhrasings(t *testing.T) {
	ctx := "The gym opens at 6:00 on weekdays and at 8:00 on weekends."
	cases := []groundednessCaseT{
		{"en not something the pages cover", ctx, "That's not something the provided pages cover, I'm afraid.", true, ""},
		{"en wasn't able to locate", ctx, "I wasn't able to locate anything on parking in what you sent me.", true, ""},
		{"en nothing in these notes", ctx, "Unfortunately there's nothing in these notes about membership fees.", true, ""},
		{"en the handbook is silent", ctx, "The handbook is silent on that point.", true, ""},
		{"en which one you mean", ctx, "Great question — let me know which location you mean and I'll check.", true, ""},
		{"en thanks and a wish", ctx, "Glad I could help. Have a lovely weekend!", true, ""},
		{"en rather not guess", ctx, "I'd rather not guess; the material doesn't give a figure for that.", true, ""},
		{"es no tengo datos", ctx, "No tengo datos sobre eso en la documentación que me diste.", true, ""},
		{"de keine Auskunft", ctx, "Darüber geben die Dokumente keine Auskunft.", true, ""},
		{"ru ничего не сказано", ctx, "В материалах об этом ничего не сказано.", true, ""},
		{"it non ho trovato", ctx, "Non ho trovato informazioni su questo nei documenti.", true, ""},
		{"en a guess after an abstention", ctx, "I couldn't find it in the notes, but I'd guess the gym opens at 7:00 on Sundays.", false, "7:00"},
		{"en a file is not the material", "Uploads are limited to 25 MB.", "The file cannot be larger than 10 MB.", false, "10 MB"},
	}
	checkGroundednessCases(t, cases)
}
