package eval

import (
	"strings"
	"time"
)

// scoreInjectionItems runs the deterministic tier of flag_injection on corpus items.
func scoreInjectionItems(items []injectionItem) []scored {
	out := make([]scored, 0, len(items))
	for _, c := range items {
		start := time.Now()
		s := ScreenInjection(InjectionInput{Text: c.Text, Context: c.Context})
		out = append(out, scored{metric: MetricInjection, id: c.ID, family: c.Family, difficulty: c.Difficulty, lang: c.Lang,
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
		s := scored{metric: MetricGroundedness, id: c.ID, family: c.Family, difficulty: c.Difficulty, lang: c.Lang,
			positive: c.Label == "ungrounded", score: g.Score, latency: time.Since(start), denial: c.Denial}
		s.caught = g.Score >= corpusThreshold
		s.clear = BandFor(MetricGroundedness, g.Score, corpusThreshold) == 1
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
