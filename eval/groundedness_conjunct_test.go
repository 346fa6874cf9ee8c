package eval

import "testing"

// A clause cut at "and" whose first piece is a coordinated subject without a predicate of its
// own is judged as the whole clause when the clause is supported: the piece alone lacks the
// predicate or the negation that the other piece carries. A piece that states something of its
// own (a figure, words the context never uses, the opposite of a statement) keeps the response
// ungrounded (check_groundedness/16).
func TestCoordinatedSubjectIsOneClaim(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en coordinated subject, negated", "The study found no link between screen time and sleep quality in adults.", "According to the study, screen time and sleep quality in adults were not linked.", true, ""},
		{"en coordinated subject, not included", "The tour price does not include palace entry or lunch.", "Palace entry and lunch are not included in the tour price.", true, ""},
		{"fr coordinated subject", "Le musée et la bibliothèque municipale ne sont pas ouverts le lundi.", "Le musée et la bibliothèque municipale sont fermés le lundi.", true, ""},
		// the pieces that state something of their own
		{"en one piece reversed", "Pets are not allowed in the rooms. Smoking is not permitted in the rooms.", "Pets are allowed in the rooms and smoking is not permitted in the rooms.", false, "Pets are allowed"},
		{"en one piece adds", "Second-floor flat with two bedrooms and a south-facing balcony, close to the station.", "The flat has two bedrooms, a balcony and a private parking space.", false, "private parking space"},
		{"en one piece changes a figure", "The museum opens at 9:00 and closes at 18:00 every day.", "The museum opens at 9:00 every day and closes at 17:00 every day.", false, "17:00"},
	})
}
