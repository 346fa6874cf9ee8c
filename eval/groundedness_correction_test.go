package eval

import "testing"

// A correction notice reports the earlier, wrong statement and then the right one ("Correction:
// an earlier version of this article said the mayor would attend the summit. She will not
// attend."): the report is retracted by the statement that negates it, so a claim repeating the
// report is contradicted and one repeating the correction supported. Without a correction frame a
// later negation does not retract what was said before.
func TestACorrectionRetractsWhatItReports(t *testing.T) {
	const notice = "Correction: an earlier version of this article said the mayor would attend the climate summit. She will not attend."
	checkGroundednessCases(t, []groundednessCaseT{
		{"en the report repeated", notice, "The mayor will attend the climate summit.", false, "attend"},
		{"en the correction repeated", notice, "The mayor will not attend the climate summit.", true, ""},
		{"es fe de erratas", "Fe de erratas: en la edición de ayer se afirmó que el hospital cerraría su servicio de urgencias. El servicio de urgencias no cerrará.", "El hospital cerrará su servicio de urgencias.", false, "cerrará"},
		{"en no correction frame", "The mayor will attend the climate summit. She will not attend the dinner.", "The mayor will attend the climate summit.", true, ""},
	})
}
