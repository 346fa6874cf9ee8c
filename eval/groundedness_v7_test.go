package eval

import "testing"

// check_groundedness/7: a figure written in the digits of another script is the same figure
// (NFKC leaves Arabic-Indic, Devanagari and Bengali digits as they are), and a changed figure in
// those digits is still a changed figure.
func TestDigitsOfOtherScriptsAreTheSameFigures(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"ar digits restated", "بلغ عدد الزوار 4500 زائر في اليوم الأول.", "بلغ عدد الزوار ٤٥٠٠ زائر في اليوم الأول.", true, ""},
		{"ar digits changed", "بلغ عدد الزوار 4500 زائر في اليوم الأول.", "بلغ عدد الزوار ٥٤٠٠ زائر في اليوم الأول.", false, "٥٤٠٠"},
		{"hi digits restated", "इस शिविर में 250 बच्चों ने भाग लिया।", "इस शिविर में २५० बच्चों ने भाग लिया।", true, ""},
		{"hi digits changed", "इस शिविर में 250 बच्चों ने भाग लिया।", "इस शिविर में ३५० बच्चों ने भाग लिया।", false, "३५०"},
	})
}

// The model's features have names of their own, and the weights keep the signs their meaning
// implies (gndFeatureSign): a reversal or a changed figure never makes a claim more likely
// supported.
func TestGroundednessModelWeightsKeepTheirSigns(t *testing.T) {
	m := groundednessModel()
	if m == nil {
		t.Fatal("no groundedness model")
	}
	for j, w := range m.w {
		if w*gndFeatureSign[j] < 0 {
			t.Errorf("%s weighs %v, against its sign %v", gndFeatureNames[j], w, gndFeatureSign[j])
		}
	}
}
