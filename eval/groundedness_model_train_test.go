package eval

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

var generateGndModel = flag.Bool("generate-gnd-model", false, "retrain eval/model/groundedness.lrm from the groundedness training material (go generate ./eval)")

// gndSource is one file (or set of files) of groundedness training material by one author or
// round: leave-one-source-out cross-validation holds each out in turn, which is the nearest thing
// the training material has to text by a new author.
type gndSource struct {
	name  string
	files []string
}

// groundednessSources are the groundedness training material, by source. Never a current
// held-out split.
var groundednessSources = []gndSource{
	{"train", []string{"groundedness_train.jsonl"}},
	{"train_extra", []string{"groundedness_train_extra.jsonl"}},
	{"train_extra2", []string{"groundedness_train_extra2.jsonl"}},
	{"train_extra3", []string{"groundedness_train_extra3.jsonl"}},
	{"heldout_v1", []string{"groundedness_heldout.jsonl"}},
	{"heldout_v2", []string{"heldout2/groundedness.jsonl"}},
	{"legacy", groundednessLegacyFiles},
}

// gndFreshSources are the training sources nearest a new author's text: another author's
// (retired held-out v2) and the one written last before the changes it was first used to check.
var gndFreshSources = []string{"train_extra2", "heldout_v2"}

// groundednessProbes are groundedness items the model is never trained on, written after
// groundedness.lrm v1 was fitted (see the corpus README): the first as a blind check by a new
// author, the second after its misses were read. TestGroundednessModelCrossValidation scores
// them with the model trained on all the sources.
var groundednessProbes = []gndSource{
	{"probe", []string{"groundedness_probe.jsonl"}},
	{"probe2", []string{"groundedness_probe2.jsonl"}},
}

// gndExample is one training item prepared for the model: its claims' features (none for a
// response with no claim) and its citations' score.
type gndExample struct {
	item     groundednessItem
	source   string
	feats    []gndFeatures
	cite     float64
	positive bool
	rule     float64 // check_groundedness/6's score
}

func gndExamples(t testing.TB) []gndExample { return gndExamplesOf(t, groundednessSources) }

func gndExamplesOf(t testing.TB, sources []gndSource) []gndExample {
	var out []gndExample
	for _, src := range sources {
		for _, f := range src.files {
			var items []groundednessItem
			if slices.Contains(groundednessLegacyFiles, f) {
				for _, c := range readJSONL[groundednessCase](t, "testdata/corpus/"+f) {
					items = append(items, groundednessItem{ID: f + ":" + c.ID, Label: c.Label, Family: "legacy", Difficulty: "medium",
						Response: c.Response, Context: c.Context, Denial: c.Kind == "negation_trap"})
				}
			} else {
				items = readJSONL[groundednessItem](t, "testdata/corpus/"+f)
			}
			for _, c := range items {
				g := groundednessParts(GroundednessInput{Response: c.Response, Context: c.Context})
				ex := gndExample{item: c, source: src.name, cite: 1 - g.citationKeep(), positive: c.Label == "ungrounded",
					rule: g.scoreRules().Score}
				for _, cl := range g.Claims {
					ex.feats = append(ex.feats, cl.features)
				}
				out = append(out, ex)
			}
		}
	}
	return out
}

// gndRecipe is the training recipe. HEURISTIC: chosen by leave-one-source-out cross-validation
// (TestGroundednessModelCrossValidation); never on a held-out split.
type gndRecipe struct {
	epochs     int
	rate, l2   float64
	posShare   float64 // the ungrounded examples' share of the loss (0: one half)
	unsigned   bool    // let every weight take either sign (gndFeatureSign is ignored)
	shiftLogit bool    // move the bias so that the pooled out-of-fold threshold lands on 0.5
}

var gndTrainRecipe = gndRecipe{epochs: 4000, rate: 0.5, l2: 1e-4, posShare: 0.7}

// trainGndModel fits a max-pooled logistic model: a response's probability of being ungrounded
// is that of its worst claim, σ(bias + w·x), so one unsupported claim among several decides and
// grounded claims beside it do not add up to a flag. Full-batch gradient descent through the
// worst claim, both labels weighed equally, every product converted explicitly so no platform
// fuses multiply-adds.
func trainGndModel(exs []gndExample, r gndRecipe) *gndModel {
	var w gndFeatures
	bias := 0.0
	npos, nneg := 0, 0
	for _, e := range exs {
		if len(e.feats) == 0 {
			continue
		}
		if e.positive {
			npos++
		} else {
			nneg++
		}
	}
	if npos == 0 || nneg == 0 {
		return &gndModel{}
	}
	share := r.posShare
	if share == 0 {
		share = 0.5
	}
	wPos, wNeg := share/float64(npos), (1-share)/float64(nneg)
	for epoch := 0; epoch < r.epochs; epoch++ {
		var grad gndFeatures
		gb := 0.0
		for _, e := range exs {
			if len(e.feats) == 0 {
				continue
			}
			best, bz := 0, math.Inf(-1)
			for i, x := range e.feats {
				if z := logit(bias, &w, &x); z > bz {
					best, bz = i, z
				}
			}
			y, cw := 0.0, wNeg
			if e.positive {
				y, cw = 1, wPos
			}
			g := float64(cw * (sigmoid(bz) - y))
			gb += g
			for j, v := range e.feats[best] {
				grad[j] += float64(g * v)
			}
		}
		for j := range w {
			w[j] -= float64(r.rate * (grad[j] + float64(r.l2*w[j])))
			if !r.unsigned && float64(w[j]*gndFeatureSign[j]) < 0 {
				w[j] = 0
			}
		}
		bias -= float64(r.rate * gb)
	}
	return &gndModel{bias: bias, w: w}
}

// score is the model's score for an example, as ScoreGroundedness computes it.
func (m *gndModel) scoreExample(e gndExample) float64 {
	if len(e.feats) == 0 {
		return round3(e.cite)
	}
	p := 0.0
	for _, x := range e.feats {
		p = math.Max(p, m.prob(x))
	}
	return round3(p)
}

// gndTally is accuracy, FPR, denial cases caught and the decided share of a set of scores.
type gndTally struct {
	n, correct, neg, fp, pos, fn, denials, caught, decided int
}

func (c *gndTally) add(e gndExample, score float64) {
	c.n++
	pred := score >= corpusThreshold
	if pred == e.positive {
		c.correct++
	}
	if e.positive {
		c.pos++
		if !pred {
			c.fn++
		}
	} else {
		c.neg++
		if pred {
			c.fp++
		}
	}
	if e.item.Denial {
		c.denials++
		if pred {
			c.caught++
		}
	}
	if BandFor(MetricGroundedness, score, corpusThreshold) != 0 {
		c.decided++
	}
}

func (c gndTally) String() string {
	return fmt.Sprintf("n=%3d acc %.3f FPR %s FNR %s denials %d/%d decided %.3f", c.n, ratio(c.correct, c.n),
		cell(c.fp, c.neg), cell(c.fn, c.pos), c.caught, c.denials, ratio(c.decided, c.n))
}

// looCV scores every example with a model trained on the other sources.
func looCV(exs []gndExample, r gndRecipe) []float64 {
	out := make([]float64, len(exs))
	for _, src := range groundednessSources {
		var train []gndExample
		for _, e := range exs {
			if e.source != src.name {
				train = append(train, e)
			}
		}
		m := trainGndModel(train, r)
		if r.shiftLogit {
			m.calibrate(train, r)
		}
		for i, e := range exs {
			if e.source == src.name {
				out[i] = m.scoreExample(e)
			}
		}
	}
	return out
}

// calibrate shifts the bias so that the threshold with the best inner leave-one-source-out
// accuracy on exs lands on 0.5.
func (m *gndModel) calibrate(exs []gndExample, r gndRecipe) {
	_ = r
	best, bestAcc := 0.0, -1
	for shift := -2.0; shift <= 2.0; shift += 0.25 {
		mm := *m
		mm.bias += shift
		acc := 0
		for _, e := range exs {
			if (mm.scoreExample(e) >= corpusThreshold) == e.positive {
				acc++
			}
		}
		if acc > bestAcc {
			best, bestAcc = shift, acc
		}
	}
	m.bias += best
}

func reportGndCV(t *testing.T, title string, exs []gndExample, scores []float64) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", title)
	var all gndTally
	bySrc := map[string]*gndTally{}
	byFam := map[string]*gndTally{}
	byLang := map[string]*gndTally{}
	for i, e := range exs {
		all.add(e, scores[i])
		for _, m := range []struct {
			into map[string]*gndTally
			key  string
		}{{bySrc, e.source}, {byFam, e.item.Family}, {byLang, langGroup(e.item.Lang)}} {
			if m.into[m.key] == nil {
				m.into[m.key] = &gndTally{}
			}
			m.into[m.key].add(e, scores[i])
		}
	}
	fmt.Fprintf(&b, "  all           %s\n", all)
	macro := 0.0
	for _, src := range groundednessSources {
		c := *bySrc[src.name]
		macro += ratio(c.correct, c.n) / float64(len(groundednessSources))
		fmt.Fprintf(&b, "  src %-13s %s\n", src.name, c)
	}
	var fresh gndTally
	for _, n := range gndFreshSources {
		c := *bySrc[n]
		fresh.n, fresh.correct, fresh.neg, fresh.fp, fresh.pos, fresh.fn = fresh.n+c.n, fresh.correct+c.correct, fresh.neg+c.neg, fresh.fp+c.fp, fresh.pos+c.pos, fresh.fn+c.fn
		fresh.denials, fresh.caught, fresh.decided = fresh.denials+c.denials, fresh.caught+c.caught, fresh.decided+c.decided
	}
	fmt.Fprintf(&b, "  macro accuracy over sources %.3f; the sources by other authors or written last (%s): %s\n", macro, strings.Join(gndFreshSources, ", "), fresh)
	for _, k := range sortedKeys(byFam) {
		fmt.Fprintf(&b, "  fam %-13s %s\n", k, *byFam[k])
	}
	for _, k := range sortedKeys(byLang) {
		fmt.Fprintf(&b, "  lang %-12s %s\n", k, *byLang[k])
	}
	t.Log(b.String())
}

func langGroup(l string) string {
	if l == "" || l == "en" {
		return "en"
	}
	return "other"
}

// TestGroundednessModelCrossValidation reports leave-one-source-out figures for check_groundedness/6's
// rules and for the model. It gates nothing. SENTINEL_GND_CV=1 to run.
func TestGroundednessModelCrossValidation(t *testing.T) {
	if os.Getenv("SENTINEL_GND_CV") == "" {
		t.Skip("set SENTINEL_GND_CV=1 to cross-validate the groundedness model")
	}
	exs := gndExamples(t)
	r := gndTrainRecipe
	if v := os.Getenv("SENTINEL_GND_L2"); v != "" {
		fmt.Sscan(v, &r.l2)
	}
	if v := os.Getenv("SENTINEL_GND_POS"); v != "" {
		fmt.Sscan(v, &r.posShare)
	}
	if v := os.Getenv("SENTINEL_GND_EPOCHS"); v != "" {
		fmt.Sscan(v, &r.epochs)
	}
	r.shiftLogit = os.Getenv("SENTINEL_GND_SHIFT") != ""
	r.unsigned = os.Getenv("SENTINEL_GND_UNSIGNED") != ""
	if v := os.Getenv("SENTINEL_GND_DROP"); v != "" {
		for _, name := range strings.Split(v, ",") {
			j := slices.Index(gndFeatureNames[:], name)
			if j < 0 {
				t.Fatalf("no feature %q", name)
			}
			for i := range exs {
				for k := range exs[i].feats {
					exs[i].feats[k][j] = 0
				}
			}
		}
	}
	rule := make([]float64, len(exs))
	for i, e := range exs {
		rule[i] = e.rule
	}
	reportGndCV(t, "check_groundedness/6 rules (no fitting: each source scored as it is)", exs, rule)
	reportGndCV(t, fmt.Sprintf("model, leave-one-source-out, recipe %+v", r), exs, looCV(exs, r))
	m := trainGndModel(exs, r)
	probes := gndExamplesOf(t, groundednessProbes)
	for _, p := range groundednessProbes {
		var c gndTally
		var rc gndTally
		for _, e := range probes {
			if e.source == p.name {
				c.add(e, m.scoreExample(e))
				rc.add(e, e.rule)
			}
		}
		t.Logf("%s (never trained on): /6 rules %s; model trained on all sources %s", p.name, rc, c)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "full model: bias %.3f\n", m.bias)
	for j, n := range gndFeatureNames {
		fmt.Fprintf(&b, "  %-20s %+.3f\n", n, m.w[j])
	}
	t.Log(b.String())
}

// TestGenerateGroundednessModel is the go generate step (-generate-gnd-model writes the model)
// and, in every other run, the proof that the committed model is what the recipe makes from the
// committed training material.
func TestGenerateGroundednessModel(t *testing.T) {
	m := trainGndModel(gndExamples(t), gndTrainRecipe)
	got := m.encode()
	if *generateGndModel {
		if err := os.WriteFile(gndModelFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(gndModelFile)
	if err != nil {
		t.Fatalf("%v: run go generate ./eval", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the recipe trains from the committed training material: run go generate ./eval", gndModelFile)
	}
}

func TestGroundednessModelIsEmbedded(t *testing.T) {
	if _, err := loadedGndModel(); err != nil {
		t.Fatalf("the groundedness model is missing or unreadable (%v): run go generate ./eval", err)
	}
	for j, n := range gndFeatureNames {
		if n == "" || slices.Index(gndFeatureNames[:], n) != j {
			t.Errorf("feature %d has no name of its own (%q)", j, n)
		}
	}
}
