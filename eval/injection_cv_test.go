package eval

import (
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
)

// cvFolds assigns the training split's items to folds by group (an item and its near-copies of
// the same family share a fold, as they share a split), so cross-validation does not score an
// item against its twin.
func cvFolds(items []injectionItem, k int) []int {
	parent := make([]int, len(items))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	words := make([]map[string]bool, len(items))
	for i, c := range items {
		words[i] = itemWords(c)
	}
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			if items[i].Family == items[j].Family && jaccard(words[i], words[j]) >= 0.4 {
				parent[find(i)] = find(j)
			}
		}
	}
	minID := map[int]string{}
	for i, c := range items {
		r := find(i)
		if id, ok := minID[r]; !ok || c.ID < id {
			minID[r] = c.ID
		}
	}
	folds := make([]int, len(items))
	for i := range items {
		h := sha256.Sum256([]byte("sentinel-cv-v1:" + minID[find(i)]))
		folds[i] = int(h[0]) % k
	}
	return folds
}

// TestInjectionModelCrossValidation reports how the learned component and its combination with
// the pattern families do on training items they were not fitted on. It is how the recipe was
// chosen; it reads the training material only (injectionTrainingItems), never a current held-out
// split. Run with SENTINEL_CV=1.
func TestInjectionModelCrossValidation(t *testing.T) {
	if os.Getenv("SENTINEL_CV") == "" {
		t.Skip("set SENTINEL_CV=1 to cross-validate the learned component on the training material")
	}
	if r := os.Getenv("SENTINEL_CV_REPEAT"); r != "" {
		fmt.Sscanf(r, "%d", &classRepeat)
	}
	cfgs := []trainConfig{trainRecipe}
	if g := os.Getenv("SENTINEL_CV_GRID"); g != "" {
		cfgs = nil
		for _, part := range strings.Split(g, ";") {
			var c trainConfig
			fmt.Sscanf(part, "%d,%g,%g,%g", &c.epochs, &c.rate, &c.l2, &c.nb)
			cfgs = append(cfgs, c)
		}
	}
	for _, cfg := range cfgs {
		out := crossValidate(t, cfg)
		t.Logf("recipe %+v", cfg)
		reportCV(t, "patterns", out, func(r cvResult) float64 { return r.pat })
		reportCV(t, "model", out, func(r cvResult) float64 { return r.model })
		reportCV(t, "max", out, func(r cvResult) float64 { return max(r.model, r.pat) })
		reportCV(t, "strong-pattern", out, func(r cvResult) float64 { return strongPattern(r.pat, r.model) })
		reportCV(t, "final (calibrated)", out, func(r cvResult) float64 { return combineInjection(r.pat, r.model, r.damped) })
		var older []cvResult // every file but the newest, comparable with the figures before it was added
		for _, r := range out {
			if r.set != injectionTrainingFiles[len(injectionTrainingFiles)-1] {
				older = append(older, r)
			}
		}
		reportCV(t, "final (calibrated), all but the newest training file", older, func(r cvResult) float64 { return combineInjection(r.pat, r.model, r.damped) })
		for _, f := range injectionTrainingFiles {
			// each file's items alone, so a figure stays comparable when a file is added
			var part []cvResult
			for _, r := range out {
				if r.set == f {
					part = append(part, r)
				}
			}
			if len(part) > 0 {
				reportCV(t, "final (calibrated), "+f, part, func(r cvResult) float64 { return combineInjection(r.pat, r.model, r.damped) })
			}
		}
		reportCV(t, "flag_injection/6 combination", out, func(r cvResult) float64 { return combineInjectionV6(r.pat, r.model, r.damped) })
		reportCV(t, "previous combination (held-out v1 run 3)", out, func(r cvResult) float64 {
			return combineAt(r, combination{calibrationCut, 2, calibrationSlope, dampedFloorModel, true})
		})
		for _, m := range []float64{0, 0.05, 0.1, 0.2, 0.3} {
			// the damped floor applied only when the model gives the text at least m
			reportCV(t, fmt.Sprintf("damped floor if model >= %.2f", m), out, func(r cvResult) float64 {
				return combineAt(r, combination{calibrationCut, patternCut, calibrationSlope, m, false})
			})
		}
		for _, k := range []float64{3, 4, 5, 6} {
			reportCV(t, fmt.Sprintf("slope %.1f", k), out, func(r cvResult) float64 {
				return combineAt(r, combination{calibrationCut, patternCut, k, dampedFloorModel, false})
			})
		}
		if os.Getenv("SENTINEL_CV_COMBINE") != "" {
			var v1 []cvResult
			for _, r := range out {
				if r.set == "injection_heldout.jsonl" {
					v1 = append(v1, r)
				}
			}
			for _, cm := range []float64{0.6, 0.65, 0.7, 0.75, 0.8} {
				for _, cp := range []float64{0.6, 0.7, 0.75, 0.8, 2} { // 2: the patterns never flag alone
					f := func(r cvResult) float64 {
						return combineAt(r, combination{cm, cp, calibrationSlope, dampedFloorModel, false})
					}
					reportCV(t, fmt.Sprintf("max(cal(model,%.2f), cal(pat,%.2f)) all", cm, cp), out, f)
					reportCV(t, fmt.Sprintf("max(cal(model,%.2f), cal(pat,%.2f)) v1 ", cm, cp), v1, f)
				}
			}
		}
	}
}

// cvFeatures featurizes the legacy training documents and the corpus items once, for every fold
// of a cross-validation to share.
func cvFeatures(legacy []trainingDoc, items []injectionItem) (legacyX, itemX []sparse) {
	legacyX = make([]sparse, len(legacy))
	for i, d := range legacy {
		legacyX[i] = featurize(d.text)
	}
	itemX = make([]sparse, len(items))
	for i, c := range items {
		itemX[i] = featurize(joinedText(c.Text, c.Context))
	}
	return legacyX, itemX
}

// cvResult is one training item scored by a model that was not fitted on it.
type cvResult struct {
	id, family, set    string
	positive           bool
	model, pat, damped float64
}

func crossValidate(t *testing.T, cfg trainConfig) []cvResult {
	items := injectionTrainingItems(t)
	legacy := injectionTrainingDocs(t)[len(items):]
	sets := map[string]string{}
	for _, f := range injectionTrainingFiles {
		for _, c := range readJSONL[injectionItem](t, "testdata/corpus/"+f) {
			sets[c.ID] = f
		}
	}
	const k = 5
	folds := cvFolds(items, k)
	legacyX, itemX := cvFeatures(legacy, items)
	var out []cvResult
	for f := range k {
		train, trainX := append([]trainingDoc(nil), legacy...), append([]sparse(nil), legacyX...)
		for i, c := range items {
			if folds[i] != f {
				train = append(train, trainingDoc{joinedText(c.Text, c.Context), c.Label == "injection"})
				trainX = append(trainX, itemX[i])
			}
		}
		m := fit(trainX, train, cfg)
		for i, c := range items {
			if folds[i] != f {
				continue
			}
			a := assessInjection(joinedText(c.Text, c.Context))
			p, _ := m.assess(a)
			out = append(out, cvResult{c.ID, c.Family, sets[c.ID], c.Label == "injection", p, patternScreen(InjectionInput{Text: c.Text, Context: c.Context}), dampedStrength(a.hits)})
		}
	}
	return out
}

func reportCV(t *testing.T, name string, out []cvResult, score func(r cvResult) float64) {
	var c tally
	fam := map[string]*tally{}
	var miss []string
	for _, r := range out {
		s := score(r)
		c.add(MetricInjection, r.positive, s, 0.5)
		if fam[r.family] == nil {
			fam[r.family] = &tally{}
		}
		fam[r.family].add(MetricInjection, r.positive, s, 0.5)
		if (s >= 0.5) != r.positive {
			miss = append(miss, fmt.Sprintf("%s(%.2f)", r.id, s))
		}
	}
	var fs []string
	for _, f := range injectionFamilies {
		if x := fam[f]; x != nil {
			fs = append(fs, fmt.Sprintf("%s R%.2f F%.2f", f, x.recall(), x.fpr()))
		}
	}
	sort.Strings(miss)
	// recall at the threshold where the false-positive rate first reaches 5%
	var neg, posScores []float64
	for _, r := range out {
		if r.positive {
			posScores = append(posScores, score(r))
		} else {
			neg = append(neg, score(r))
		}
	}
	sort.Float64s(neg)
	cut := neg[len(neg)-1-len(neg)*5/100]
	hit := 0
	for _, p := range posScores {
		if p > cut {
			hit++
		}
	}
	t.Logf("%s: n %d P %.3f R %.3f FPR %.3f decided %.3f | R@FPR5%% %.3f (cut %.3f) | %s", name, c.total(), c.precision(), c.recall(), c.fpr(), c.decidedRate(),
		float64(hit)/float64(len(posScores)), cut, strings.Join(fs, ", "))
	if os.Getenv("SENTINEL_CV_MISSES") != "" {
		t.Logf("   misses: %s", strings.Join(miss, " "))
	}
}

// strongPattern lets a strong pattern raise the model's probability, a weak one not at all.
func strongPattern(pat, model float64) float64 {
	if pat >= 0.75 {
		return max(model, pat)
	}
	return model
}

// combination is a variant of combineInjection's rule, for the sweeps: the model's and the
// patterns' calibration points (a pattern point above 1 lets no pattern flag alone), the slope,
// the least model probability for the damped floor, and whether a strong pattern raises the
// model's probability before one calibration (the rule before the word classes) instead.
type combination struct {
	modelCut, patternCut, slope, floorModel float64
	raiseModel                              bool
}

func combineAt(r cvResult, c combination) float64 {
	var s float64
	if c.raiseModel {
		s = calibrate(strongPattern(r.pat, r.model), c.modelCut, c.slope)
	} else {
		s = calibrate(r.model, c.modelCut, c.slope)
		if c.patternCut <= 1 {
			s = max(s, calibrate(r.pat, c.patternCut, c.slope))
		}
	}
	if r.damped >= strongPatternScore && r.model >= c.floorModel {
		s = max(s, dampedFloor)
	}
	return s
}

// The sweeps' rule at the committed constants is flag_injection/6's rule.
func TestCombineAtMatchesCombineInjection(t *testing.T) {
	cur := combination{calibrationCut, patternCut, calibrationSlope, dampedFloorModel, false}
	vals := []float64{0, 0.05, 0.1, 0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 0.99, 1}
	for _, pat := range vals {
		for _, model := range vals {
			for _, damped := range vals {
				r := cvResult{pat: pat, model: model, damped: damped}
				if got, want := combineAt(r, cur), combineInjectionV6(pat, model, damped); got != want {
					t.Errorf("combineAt(pat %v, model %v, damped %v) = %v, combineInjectionV6 gives %v", pat, model, damped, got, want)
				}
			}
		}
	}
}

// TestInjectionModelLeaveOneSourceOut is the stand-in for a new author: for each training file
// (the retired held-out v2 was written by another author; each supplementary file by one round),
// the model is fitted on every other file and the older development files and scores the file
// it never saw. Grouped folds keep a payload from its twin but not a round's phrasing from
// itself, so they are optimistic where this is not. Training material only, like
// TestInjectionModelCrossValidation; run with SENTINEL_CV=1 (SENTINEL_CV_LOSO names one file to
// leave out instead of each in turn).
func TestInjectionModelLeaveOneSourceOut(t *testing.T) {
	if os.Getenv("SENTINEL_CV") == "" {
		t.Skip("set SENTINEL_CV=1 to cross-validate the learned component on the training material")
	}
	if r := os.Getenv("SENTINEL_CV_REPEAT"); r != "" {
		fmt.Sscanf(r, "%d", &classRepeat)
	}
	out := leaveOneSourceOut(t, trainRecipe, os.Getenv("SENTINEL_CV_LOSO"))
	var all []cvResult
	for _, f := range injectionTrainingFiles {
		if len(out[f]) == 0 {
			continue
		}
		all = append(all, out[f]...)
		reportCV(t, "left out: "+f, out[f], func(r cvResult) float64 { return combineInjection(r.pat, r.model, r.damped) })
		reportCV(t, "left out (model alone): "+f, out[f], func(r cvResult) float64 { return r.model })
	}
	reportCV(t, "left out, every file in turn", all, func(r cvResult) float64 { return combineInjection(r.pat, r.model, r.damped) })
	reportCV(t, "left out, every file in turn, flag_injection/6 combination", all, func(r cvResult) float64 { return combineInjectionV6(r.pat, r.model, r.damped) })
}

// leaveOneSourceOut scores each training file (or only the one named) by a model fitted without it.
func leaveOneSourceOut(t *testing.T, cfg trainConfig, only string) map[string][]cvResult {
	items := injectionTrainingItems(t)
	legacy := injectionTrainingDocs(t)[len(items):]
	sets := map[string]string{}
	for _, f := range injectionTrainingFiles {
		for _, c := range readJSONL[injectionItem](t, "testdata/corpus/"+f) {
			sets[c.ID] = f
		}
	}
	legacyX, itemX := cvFeatures(legacy, items)
	out := map[string][]cvResult{}
	for _, f := range injectionTrainingFiles {
		if only != "" && f != only {
			continue
		}
		train, trainX := append([]trainingDoc(nil), legacy...), append([]sparse(nil), legacyX...)
		for i, c := range items {
			if sets[c.ID] != f {
				train = append(train, trainingDoc{joinedText(c.Text, c.Context), c.Label == "injection"})
				trainX = append(trainX, itemX[i])
			}
		}
		m := fit(trainX, train, cfg)
		for _, c := range items {
			if sets[c.ID] != f {
				continue
			}
			a := assessInjection(joinedText(c.Text, c.Context))
			p, _ := m.assess(a)
			out[f] = append(out[f], cvResult{c.ID, c.Family, f, c.Label == "injection", p, patternScreen(InjectionInput{Text: c.Text, Context: c.Context}), dampedStrength(a.hits)})
		}
	}
	return out
}

// stackFeatures are the stacked combination's inputs for one scored item, in the order of
// stackWeights: the model's logit, the pattern score's logit and whether a pattern matched,
// whether a strong match was damped, and 1.
func stackFeatures(r cvResult) [5]float64 {
	var x [5]float64
	x[0] = clampedLogit(r.model)
	if r.pat > 0 {
		x[1], x[2] = clampedLogit(r.pat), 1 // the detector floors this term at 0 (combineInjection)
	}
	if r.damped >= strongPatternScore {
		x[3] = 1
	}
	x[4] = 1
	return x
}

// stackFPR is the share of benign left-out scores the fitted intercept lets reach 0.5, and
// stackSharpen what the fitted rule is multiplied by so that about as many texts as under the
// /6 rule stay outside the ambiguous band. HEURISTIC, chosen by TestInjectionCombinationStack.
const (
	stackFPR     = 0.04
	stackSharpen = 2.0
)

// fitStack fits the stacked rule by gradient descent on scored items, positives and negatives
// weighted equally, then moves the intercept so that stackFPR of the negatives score at least
// 0.5, and multiplies everything by stackSharpen.
func fitStack(rs []cvResult) [5]float64 {
	var w [5]float64
	pos := 0
	for _, r := range rs {
		if r.positive {
			pos++
		}
	}
	wp, wn := 0.5/float64(max(pos, 1)), 0.5/float64(max(len(rs)-pos, 1))
	xs := make([][5]float64, len(rs))
	for i, r := range rs {
		xs[i] = stackFeatures(r)
	}
	for range 3000 {
		var g [5]float64
		for i, r := range rs {
			z := 0.0
			for j, v := range xs[i] {
				z += w[j] * v
			}
			y, cw := 0.0, wn
			if r.positive {
				y, cw = 1, wp
			}
			e := cw * (sigmoid(z) - y)
			for j, v := range xs[i] {
				g[j] += e * v
			}
		}
		for j := range w {
			w[j] -= 2 * (g[j] + 1e-4*w[j])
		}
	}
	var neg []float64
	for i, r := range rs {
		if !r.positive {
			z := 0.0
			for j, v := range xs[i] {
				z += w[j] * v
			}
			neg = append(neg, z)
		}
	}
	sort.Float64s(neg)
	w[4] -= neg[len(neg)-1-int(float64(len(neg))*stackFPR)]
	for j := range w {
		w[j] *= stackSharpen
	}
	return w
}

// stackScore is the score the stacked rule with weights w gives r, with the damped floor.
func stackScore(w [5]float64, r cvResult) float64 {
	z := 0.0
	for j, v := range stackFeatures(r) {
		z += w[j] * v
	}
	s := sigmoid(z)
	if r.damped >= strongPatternScore && r.model >= dampedFloorModel {
		s = max(s, dampedFloor)
	}
	return s
}

// TestInjectionCombinationStack fits flag_injection/7's stacked combination on the
// leave-one-source-out scores of the training material and fails unless the committed constants
// are that fit (to 0.01). It also scores the fitting itself by nesting: for each file, the rule
// is fitted on the other files' left-out scores and scores that file. Run with SENTINEL_CV=1.
func TestInjectionCombinationStack(t *testing.T) {
	if os.Getenv("SENTINEL_CV") == "" {
		t.Skip("set SENTINEL_CV=1 to fit the combination on the training material")
	}
	out := leaveOneSourceOut(t, trainRecipe, "")
	var all []cvResult
	for _, f := range injectionTrainingFiles {
		all = append(all, out[f]...)
	}
	w := fitStack(all)
	t.Logf("fitted: model %.3f pattern %.3f matched %.3f damped %.3f bias %.3f", w[0], w[1], w[2], w[3], w[4])
	committed := [5]float64{stackModel, stackPattern, stackMatched, stackDamped, stackBias}
	for j := range w {
		if math.Abs(w[j]-committed[j]) > 0.01 {
			t.Errorf("weight %d: committed %.3f, the fit gives %.3f: update the stack constants in injection.go", j, committed[j], w[j])
		}
	}
	var nested []cvResult
	for _, f := range injectionTrainingFiles {
		var rest []cvResult
		for _, g := range injectionTrainingFiles {
			if g != f {
				rest = append(rest, out[g]...)
			}
		}
		wf := fitStack(rest)
		var part []cvResult
		for _, r := range out[f] {
			r.model = stackScore(wf, r) // the nested score, carried in the model field for reportCV
			part = append(part, r)
		}
		reportCV(t, "nested stack, left out: "+f, part, func(r cvResult) float64 { return r.model })
		nested = append(nested, part...)
	}
	reportCV(t, "nested stack, every file in turn", nested, func(r cvResult) float64 { return r.model })
	reportCV(t, "committed stack, every file in turn", all, func(r cvResult) float64 { return combineInjection(r.pat, r.model, r.damped) })
	reportCV(t, "flag_injection/6 combination, every file in turn", all, func(r cvResult) float64 { return combineInjectionV6(r.pat, r.model, r.damped) })
}

// The committed stacked rule is monotone in both tiers, flags a text no pattern matched only
// from a model probability of about 0.8 (the /6 rule's calibration point), and flags a
// saturated undamped pattern match unless the model reads the text as plainly benign.
func TestCombineInjectionStack(t *testing.T) {
	vals := []float64{0, 0.01, 0.05, 0.1, 0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 0.95, 0.99, 1}
	for _, damped := range []float64{0, 0.9} {
		for i, pat := range vals {
			for j, model := range vals {
				s := combineInjection(pat, model, damped)
				if s < 0 || s > 1 {
					t.Fatalf("combineInjection(%v, %v, %v) = %v", pat, model, damped, s)
				}
				if i > 0 && combineInjection(vals[i-1], model, damped) > s+1e-12 {
					t.Errorf("not monotone in the pattern score at (%v, %v, %v)", pat, model, damped)
				}
				if j > 0 && combineInjection(pat, vals[j-1], damped) > s+1e-12 {
					t.Errorf("not monotone in the model at (%v, %v, %v)", pat, model, damped)
				}
			}
		}
	}
	for _, c := range []struct {
		pat, model, damped float64
		flag               bool
	}{
		{0, 0.75, 0, false},
		{0, 0.82, 0, true},
		{0.99, 0.1, 0, true},
		{0.95, 0.3, 0, true},
		{0.9, 0.05, 0, false},
		{0.6, 0.75, 0, true},
		{0.3, 0.3, 0, false},
	} {
		if got := combineInjection(c.pat, c.model, c.damped) >= 0.5; got != c.flag {
			t.Errorf("combineInjection(%v, %v, %v) = %.3f, want flagged %v", c.pat, c.model, c.damped, combineInjection(c.pat, c.model, c.damped), c.flag)
		}
	}
}
