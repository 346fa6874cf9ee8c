package eval

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// tally counts one metric's classifications at a threshold; positive = the concern is present
// (an injection; an ungrounded response). predicted = score at or above the threshold; decided =
// the score lies outside the metric's ambiguous band (BandFor), so no judge would be asked.
type tally struct {
	tp, fp, tn, fn, decided int
}

func (c *tally) add(metric string, positive bool, score, threshold float64) {
	predicted := score >= threshold
	if BandFor(metric, score, threshold) != 0 {
		c.decided++
	}
	switch {
	case positive && predicted:
		c.tp++
	case positive:
		c.fn++
	case predicted:
		c.fp++
	default:
		c.tn++
	}
}

func (c tally) total() int           { return c.tp + c.fp + c.tn + c.fn }
func (c tally) precision() float64   { return ratio(c.tp, c.tp+c.fp) }
func (c tally) recall() float64      { return ratio(c.tp, c.tp+c.fn) }
func (c tally) fpr() float64         { return ratio(c.fp, c.fp+c.tn) }
func (c tally) accuracy() float64    { return ratio(c.tp+c.tn, c.total()) }
func (c tally) decidedRate() float64 { return ratio(c.decided, c.total()) }

// cell renders a ratio, or "—" when it is undefined (no positives, no negatives).
func cell(num, den int) string {
	if den == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", float64(num)/float64(den))
}

// scored is one corpus item's result.
type scored struct {
	metric                       string // MetricInjection or MetricGroundedness: whose band decides
	id, family, difficulty, lang string
	positive                     bool
	score                        float64
	latency                      time.Duration
	denial, caught, clear        bool // groundedness: a denial case, caught at the threshold, caught without a judge
	named                        bool // groundedness: the verdict's evidence overlaps the labelled unsupported claim
}

// report aggregates scored items overall, per family and per difficulty.
type report struct {
	all          tally
	byFamily     map[string]*tally
	byDifficulty map[string]*tally
	misses       []string
	latencies    []time.Duration
	denials      int
	caught       int
	clear        int
	unnamed      []string
}

func newReport(items []scored, threshold float64) *report {
	r := &report{byFamily: map[string]*tally{}, byDifficulty: map[string]*tally{}}
	for _, s := range items {
		r.all.add(s.metric, s.positive, s.score, threshold)
		for _, m := range []struct {
			into map[string]*tally
			key  string
		}{{r.byFamily, s.family}, {r.byDifficulty, s.difficulty}} {
			if m.into[m.key] == nil {
				m.into[m.key] = &tally{}
			}
			m.into[m.key].add(s.metric, s.positive, s.score, threshold)
		}
		if (s.score >= threshold) != s.positive {
			r.misses = append(r.misses, fmt.Sprintf("%s (%.3f)", s.id, s.score))
		}
		r.latencies = append(r.latencies, s.latency)
		if s.denial {
			r.denials++
			if s.caught {
				r.caught++
			}
			if s.clear {
				r.clear++
			}
		}
		if s.positive && s.score >= threshold && !s.named {
			r.unnamed = append(r.unnamed, s.id)
		}
	}
	return r
}

func (r *report) percentile(p int) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	d := slices.Clone(r.latencies)
	slices.Sort(d)
	return d[min(len(d)-1, len(d)*p/100)]
}

// rows renders one markdown table row per key of m, in order.
func rows(label string, m map[string]*tally, order []string, groundedness bool) string {
	var b strings.Builder
	// a slice the order does not name (a family a new corpus uses) follows, sorted, so no item's
	// slice goes unreported
	var rest []string
	for k := range m {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range slices.Concat(order, rest) {
		c, ok := m[k]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "| %s %s | %d | %s | %s | %s |", label, k, c.total(), cell(c.tp, c.tp+c.fp), cell(c.tp, c.tp+c.fn), cell(c.fp, c.fp+c.tn))
		if groundedness {
			fmt.Fprintf(&b, " %s |", cell(c.tp+c.tn, c.total()))
		}
		fmt.Fprintf(&b, " %s |\n", cell(c.decided, c.total()))
	}
	return b.String()
}
