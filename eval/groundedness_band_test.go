package eval

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// gndBandCandidates are the margins TestGroundednessBandMargins compares.
var gndBandCandidates = []float64{0.05, 0.10, 0.15, 0.20, 0.25}

// gndBandRow is the share of examples a margin decides and the accuracy of those it decides.
func gndBandRow(exs []gndExample, scores []float64, margin float64) (decided, decidedCorrect, correct int) {
	for i, e := range exs {
		ok := (scores[i] >= corpusThreshold) == e.positive
		if ok {
			correct++
		}
		if bandWithin(scores[i], corpusThreshold, margin) != 0 {
			decided++
			if ok {
				decidedCorrect++
			}
		}
	}
	return decided, decidedCorrect, correct
}

func gndBandTable(title string, exs []gndExample, scores []float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (n=%d)\n  margin  decided  acc(decided)  acc(all)\n", title, len(exs))
	for _, m := range gndBandCandidates {
		d, dc, c := gndBandRow(exs, scores, m)
		fmt.Fprintf(&b, "  %.2f    %.3f    %.3f         %.3f\n", m, ratio(d, len(exs)), ratio(dc, d), ratio(c, len(exs)))
	}
	return b.String()
}

// TestGroundednessBandMargins reports, for each candidate margin, the share of the groundedness
// training material decided without a judge and the accuracy of what is decided: under
// leave-one-source-out cross-validation of the training recipe (the figures GroundednessMargin
// was chosen by) and with the shipped model. Training material only, never a held-out split. It
// gates nothing. SENTINEL_GND_CV=1 to run (the cross-validation trains six models).
func TestGroundednessBandMargins(t *testing.T) {
	if os.Getenv("SENTINEL_GND_CV") == "" {
		t.Skip("set SENTINEL_GND_CV=1 to compare the groundedness band margins")
	}
	exs := gndExamples(t)
	cv := looCV(exs, gndTrainRecipe)
	t.Log(gndBandTable("leave-one-source-out, recipe "+fmt.Sprintf("%+v", gndTrainRecipe), exs, cv))
	var fresh []gndExample
	var freshScores []float64
	for i, e := range exs {
		if slices.Contains(gndFreshSources, e.source) {
			fresh, freshScores = append(fresh, e), append(freshScores, cv[i])
		}
	}
	t.Log(gndBandTable("leave-one-source-out, the sources nearest a new author's text ("+strings.Join(gndFreshSources, ", ")+")", fresh, freshScores))
	m := groundednessModel()
	if m == nil {
		t.Fatal("no embedded groundedness model")
	}
	shipped := make([]float64, len(exs))
	for i, e := range exs {
		shipped[i] = m.scoreExample(e)
	}
	t.Log(gndBandTable("shipped model on its own training material", exs, shipped))
	train := gndExamplesOf(t, groundednessSources[:1])
	trainScores := make([]float64, len(train))
	for i, e := range train {
		trainScores[i] = m.scoreExample(e)
	}
	t.Log(gndBandTable("shipped model, training split (groundedness_train.jsonl)", train, trainScores))
}
