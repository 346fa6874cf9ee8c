package eval

import (
	"strings"
	"testing"
	"time"
)

// scoreInjectionItems runs the deterministic tier of flag_injection on corpus items.
func scoreInjectionItems(items []injectionItem) []scored {
	out := make([]scored, 0, len(items))
	for _, c := range items {
		start := time.Now()
		s := ScreenInjection(InjectionInput{Text: c.Text, Context: c.Context})
		out = append(out, scored{id: c.ID, family: c.Family, difficulty: c.Difficulty, lang: c.Lang,
			positive: c.Label == "injection", score: s.Score, latency: time.Since(start)})
	}
	return out
}

// scoreGroundednessItems runs the deterministic tier of check_groundedness on corpus items.
func scoreGroundednessItems(items []groundednessItem) []scored {
	out := make([]scored, 0, len(items))
	for _, c := range items {
		start := time.Now()
		g := ScoreGroundedness(GroundednessInput{Response: c.Response, Context: c.Context})
		s := scored{id: c.ID, family: c.Family, difficulty: c.Difficulty, lang: c.Lang,
			positive: c.Label == "ungrounded", score: g.Score, latency: time.Since(start), denial: c.Denial}
		s.caught = g.Score >= corpusThreshold
		s.clear = Band(g.Score, corpusThreshold) == 1
		if c.Unsupported != "" {
			at := strings.Index(c.Response, c.Unsupported)
			for _, e := range g.Evidence {
				if e.Start < at+len(c.Unsupported) && at < e.End {
					s.named = true
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// TestCorpusTrainingSplit holds the deterministic tier to floors on the training split, the only
// corpus text it may be tuned on. The held-out split is measured, never gated (TestCorpusHeldOut).
func TestCorpusTrainingSplit(t *testing.T) {
	inj := newReport(scoreInjectionItems(readJSONL[injectionItem](t, "testdata/corpus/injection_train.jsonl")), corpusThreshold)
	gnd := newReport(scoreGroundednessItems(readJSONL[groundednessItem](t, "testdata/corpus/groundedness_train.jsonl")), corpusThreshold)
	t.Logf("injection train: P %.3f R %.3f FPR %.3f decided %.3f", inj.all.precision(), inj.all.recall(), inj.all.fpr(), inj.all.decidedRate())
	t.Logf("injection by family:\n%s", rows("", inj.byFamily, injectionFamilies, false))
	t.Logf("injection misses: %v", inj.misses)
	t.Logf("groundedness train: acc %.3f P %.3f R %.3f FPR %.3f decided %.3f denial %d/%d (clear %d) unnamed %v", gnd.all.accuracy(), gnd.all.precision(), gnd.all.recall(), gnd.all.fpr(), gnd.all.decidedRate(), gnd.caught, gnd.denials, gnd.clear, gnd.unnamed)
	t.Logf("groundedness by family:\n%s", rows("", gnd.byFamily, groundednessFamilies, true))
	t.Logf("groundedness misses: %v", gnd.misses)
}
