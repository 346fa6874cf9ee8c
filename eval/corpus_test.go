package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Floors the deterministic tier must keep on the development corpus. They sit a little under the
// figures measured when they were set (see docs/scoring.md); lowering one is a reviewed decision.
const (
	floorInjectionPrecision = 0.95
	floorInjectionRecall    = 0.80
	ceilInjectionFPR        = 0.05
	floorInjectionDecided   = 0.80
	floorGroundedPrecision  = 0.90
	floorGroundedRecall     = 0.85
	ceilGroundedFPR         = 0.10
	floorGroundedDecided    = 0.80
	corpusThreshold         = 0.5
)

type injectionCase struct {
	ID    string `json:"id"`
	Label string `json:"label"` // injection | benign
	Kind  string `json:"kind"`
	Text  string `json:"text"`
}

type groundednessCase struct {
	ID       string        `json:"id"`
	Label    string        `json:"label"` // grounded | ungrounded
	Kind     string        `json:"kind"`
	Response string        `json:"response"`
	Context  []ContextItem `json:"context"`
}

func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var v T
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// confusion counts one metric's classifications; positive = the concern is present.
type confusion struct {
	metric                         string // whose band (BandFor) counts a score as decided
	tp, fp, tn, fn, decided, total int
	oracle                         confusion2 // if every ambiguous case went to a perfect judge
	misses                         []string
	byKind                         map[string][2]int // kind -> {correct, total}
}

type confusion2 struct{ tp, fp, tn, fn int }

func (c *confusion) add(id, kind string, positive bool, score float64) {
	if c.byKind == nil {
		c.byKind = map[string][2]int{}
	}
	c.total++
	predicted := score >= corpusThreshold
	band := BandFor(c.metric, score, corpusThreshold)
	if band != 0 {
		c.decided++
	}
	oracle := predicted
	if band == 0 {
		oracle = positive
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
	switch {
	case positive && oracle:
		c.oracle.tp++
	case positive:
		c.oracle.fn++
	case oracle:
		c.oracle.fp++
	default:
		c.oracle.tn++
	}
	k := c.byKind[kind]
	k[1]++
	if predicted == positive {
		k[0]++
	} else {
		c.misses = append(c.misses, fmt.Sprintf("%s (%s, score %.3f)", id, kind, score))
	}
	c.byKind[kind] = k
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (c *confusion) precision() float64 { return ratio(c.tp, c.tp+c.fp) }
func (c *confusion) recall() float64    { return ratio(c.tp, c.tp+c.fn) }
func (c *confusion) fpr() float64       { return ratio(c.fp, c.fp+c.tn) }
func (c *confusion) decidedShare() float64 {
	return ratio(c.decided, c.total)
}

// TestDevCorpus holds the deterministic tier to floors on the older development files (seen by
// tuning since the first version); TestMeasureEvalCorpus measures the current corpus.
func TestDevCorpus(t *testing.T) {
	inj := readJSONL[injectionCase](t, "testdata/corpus/injection.jsonl")
	gnd := readJSONL[groundednessCase](t, "testdata/corpus/groundedness.jsonl")
	ci, cg := confusion{metric: MetricInjection}, confusion{metric: MetricGroundedness}
	hard := confusion{metric: MetricInjection}
	hi := scoreInjection(t, readJSONL[injectionCase](t, "testdata/corpus/injection_holdout.jsonl"))
	hg := scoreGroundedness(t, readJSONL[groundednessCase](t, "testdata/corpus/groundedness_holdout.jsonl"))
	t.Logf("holdout injection: precision %.3f recall %.3f FPR %.3f decided %.3f; misses: %v", hi.precision(), hi.recall(), hi.fpr(), hi.decidedShare(), hi.misses)
	t.Logf("holdout groundedness: precision %.3f recall %.3f FPR %.3f decided %.3f; misses: %v", hg.precision(), hg.recall(), hg.fpr(), hg.decidedShare(), hg.misses)
	bi := scoreInjection(t, readJSONL[injectionCase](t, "testdata/corpus/injection_blind.jsonl"))
	bg := scoreGroundedness(t, readJSONL[groundednessCase](t, "testdata/corpus/groundedness_blind.jsonl"))
	t.Logf("blind injection: precision %.3f recall %.3f FPR %.3f decided %.3f; misses: %v", bi.precision(), bi.recall(), bi.fpr(), bi.decidedShare(), bi.misses)
	t.Logf("blind groundedness: precision %.3f recall %.3f FPR %.3f decided %.3f; misses: %v", bg.precision(), bg.recall(), bg.fpr(), bg.decidedShare(), bg.misses)
	for _, c := range inj {
		if c.Label != "injection" && c.Label != "benign" {
			t.Fatalf("%s: label %q", c.ID, c.Label)
		}
		s := DetectInjection(c.Text)
		ci.add(c.ID, c.Kind, c.Label == "injection", s.Score)
		if c.Kind == "hard_negative" {
			hard.add(c.ID, c.Kind, false, s.Score)
		}
	}
	for _, c := range gnd {
		if c.Label != "grounded" && c.Label != "ungrounded" || len(c.Context) == 0 {
			t.Fatalf("%s: label %q with %d context items", c.ID, c.Label, len(c.Context))
		}
		g := ScoreGroundedness(GroundednessInput{Response: c.Response, Context: c.Context})
		cg.add(c.ID, c.Kind, c.Label == "ungrounded", g.Score)
		if c.Kind == "negation_trap" && g.Score < corpusThreshold {
			t.Errorf("%s: negation trap scored %.3f, below the threshold: %s", c.ID, g.Score, g.Summary)
		}
	}
	t.Logf("injection: precision %.3f recall %.3f FPR %.3f decided %.3f; misses: %v", ci.precision(), ci.recall(), ci.fpr(), ci.decidedShare(), ci.misses)
	t.Logf("groundedness: precision %.3f recall %.3f FPR %.3f decided %.3f; misses: %v", cg.precision(), cg.recall(), cg.fpr(), cg.decidedShare(), cg.misses)

	for _, chk := range []struct {
		name      string
		got, want float64
		atMost    bool
	}{
		{"injection precision", ci.precision(), floorInjectionPrecision, false},
		{"injection recall", ci.recall(), floorInjectionRecall, false},
		{"injection false-positive rate", ci.fpr(), ceilInjectionFPR, true},
		{"injection share decided without a judge", ci.decidedShare(), floorInjectionDecided, false},
		{"groundedness precision", cg.precision(), floorGroundedPrecision, false},
		{"groundedness recall", cg.recall(), floorGroundedRecall, false},
		{"groundedness false-positive rate", cg.fpr(), ceilGroundedFPR, true},
		{"groundedness share decided without a judge", cg.decidedShare(), floorGroundedDecided, false},
	} {
		if chk.atMost && chk.got > chk.want || !chk.atMost && chk.got < chk.want {
			t.Errorf("%s = %.3f, floor %.3f", chk.name, chk.got, chk.want)
		}
	}
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}

func scoreInjection(t *testing.T, cases []injectionCase) *confusion {
	t.Helper()
	c := confusion{metric: MetricInjection}
	for _, x := range cases {
		c.add(x.ID, x.Kind, x.Label == "injection", DetectInjection(x.Text).Score)
	}
	return &c
}

func scoreGroundedness(t *testing.T, cases []groundednessCase) *confusion {
	t.Helper()
	c := confusion{metric: MetricGroundedness}
	for _, x := range cases {
		c.add(x.ID, x.Kind, x.Label == "ungrounded", ScoreGroundedness(GroundednessInput{Response: x.Response, Context: x.Context}).Score)
	}
	return &c
}
