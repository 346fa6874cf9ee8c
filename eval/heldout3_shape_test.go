package eval_test

// This file checks only the shape of the third held-out corpus (testdata/corpus/heldout3): every
// line decodes into the fields the labelling policy requires, ids are unique across the whole
// corpus, and the files hold what their README promises — both labels in every family, the
// languages — and of the later held-out sets, and that the held-out split is at least 40% of the
// corpus's split (TestHeldoutSplitShare). It scores nothing: each held-out set was committed before
// any code scored it, and TestMeasureEvalCorpus is the only place its items meet the detectors.

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const heldout3Dir = "testdata/corpus/heldout3"

// h3GndFamilies are the groundedness families of held-out v3 (those of held-out v2; the training
// split's older names, figures and supersession, are not used here).
var h3GndFamilies = map[string]bool{"negation": true, "superseded": true, "entities": true, "multi_claim": true,
	"no_claim": true, "numbers": true, "units": true, "dates": true, "ordinals": true, "citations": true,
	"paraphrase": true}

// countLines is the number of non-blank lines of a corpus file, for the split's proportions.
func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return n
}

// TestHeldout3CorpusShape checks held-out v3's injection files, still held out. Its groundedness
// files were retired into training material on 2026-12-04 (retired3Dir), after measured runs had
// been read: they are checked by TestRetired3GroundednessShape and count on the training side of
// the split.
func TestHeldout3CorpusShape(t *testing.T) {
	checkHeldoutShape(t, heldout3Files)
}

// retired3Dir holds held-out v3's groundedness files since their retirement on 2026-12-04. They
// left the heldout3 directory so that the rule "never open heldout*" keeps meaning "never open
// what is still held out".
const retired3Dir = "testdata/corpus/retired3"

// retired3Groundedness are the files and id prefixes of held-out v3's retired groundedness part.
var retired3Groundedness = []heldoutPart{{"groundedness_a.jsonl", "h3-gnd-a-"}, {"groundedness_b.jsonl", "h3-gnd-b-"}}

// TestRetired3GroundednessShape checks the retired groundedness files of held-out v3 against the
// labelling policy as they were checked while held out: fields, ids and prefixes, and the 482
// items and 67 denial cases its README counts (retirement moves items, it never edits them).
func TestRetired3GroundednessShape(t *testing.T) {
	items, denials := 0, 0
	seen := map[string]bool{}
	for _, part := range retired3Groundedness {
		for _, it := range readH2[h2Groundedness](t, retired3Dir, part.file) {
			items++
			if !strings.HasPrefix(it.ID, part.prefix) || seen[it.ID] {
				t.Errorf("%s: id %q repeated or without prefix %s", part.file, it.ID, part.prefix)
			}
			seen[it.ID] = true
			if !h3GndFamilies[it.Family] {
				t.Errorf("%s: family %q is not one of held-out v3's", it.ID, it.Family)
			}
			if checkH2Groundedness(t, it) && *it.Denial {
				denials++
			}
		}
	}
	if items != 482 || denials != 67 {
		t.Errorf("retired held-out v3 groundedness: %d items, %d denial cases; its README counts 482 and 67", items, denials)
	}
}

// heldoutPart is one file of a held-out set and the prefix every id in it carries.
type heldoutPart struct{ file, prefix string }

// heldoutShape is what a held-out set's README promises about its files, checked by
// checkHeldoutShape. Earlier held-out sets (alsoHeldOut) are read for id collisions.
type heldoutShape struct {
	dir                         string
	injection, groundedness     []heldoutPart
	minInjLangs, minInjNonLatin int
	// gndFamilies are the groundedness families the set's authors used; nil means those of
	// held-out v2 to v4 (h3GndFamilies). Every family must hold both labels.
	gndFamilies map[string]bool
	// alsoHeldOut are the other held-out sets still never tuned on, whose ids this set's must not
	// repeat (the retired sets are read for that anyway).
	alsoHeldOut []heldoutShape
}

// checkHeldoutShape checks a held-out set's fields, ids unique across the corpus, both labels in
// every family, and its languages. It scores nothing.
func checkHeldoutShape(t *testing.T, h heldoutShape) {
	t.Helper()
	ids := map[string]string{}
	// every id elsewhere in the corpus, so that no id of this set repeats one
	others, err := filepath.Glob("testdata/corpus/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	others = append(others, filepath.Join(heldout2Dir, "injection.jsonl"), filepath.Join(heldout2Dir, "groundedness.jsonl"))
	for _, part := range retired3Groundedness {
		others = append(others, filepath.Join(retired3Dir, part.file))
	}
	for _, o := range h.alsoHeldOut {
		for _, part := range append(append([]heldoutPart{}, o.injection...), o.groundedness...) {
			others = append(others, filepath.Join(o.dir, part.file))
		}
	}
	for _, p := range others {
		for _, id := range corpusIDs(t, p) {
			ids[id] = p
		}
	}
	claim := func(id, file, prefix string) {
		if !strings.HasPrefix(id, prefix) {
			t.Errorf("%s: id %q does not start with %s", file, id, prefix)
		}
		if prev, ok := ids[id]; ok {
			t.Errorf("id %q appears in %s and %s", id, prev, file)
		}
		ids[id] = file
	}

	var inj []h2Injection
	for _, part := range h.injection {
		items := readH2[h2Injection](t, h.dir, part.file)
		for _, it := range items {
			claim(it.ID, part.file, part.prefix)
		}
		inj = append(inj, items...)
	}
	famLabels := map[string]map[string]bool{}
	langs := map[string]bool{}
	for _, it := range inj {
		checkH2Injection(t, it)
		if famLabels[it.Family] == nil {
			famLabels[it.Family] = map[string]bool{}
		}
		famLabels[it.Family][it.Label] = true
		langs[it.Lang] = true
	}
	for fam := range h2InjFamilies {
		if fam != "ordinary" && (!famLabels[fam]["injection"] || !famLabels[fam]["benign"]) {
			t.Errorf("%s: family %s lacks injections or hard negatives: %v", h.dir, fam, famLabels[fam])
		}
	}
	if n, nl := nonLatinCount(langs); len(langs) < h.minInjLangs || n < h.minInjNonLatin {
		t.Errorf("%s: injection items in %d languages (%d non-Latin: %v), want at least %d and %d", h.dir, len(langs), n, nl, h.minInjLangs, h.minInjNonLatin)
	}

	var gnd []h2Groundedness
	for _, part := range h.groundedness {
		items := readH2[h2Groundedness](t, h.dir, part.file)
		for _, it := range items {
			claim(it.ID, part.file, part.prefix)
		}
		gnd = append(gnd, items...)
	}
	families := h.gndFamilies
	if families == nil {
		families = h3GndFamilies
	}
	gfam := map[string]map[string]bool{}
	denialLangs := map[string]bool{}
	for _, it := range gnd {
		if !families[it.Family] {
			t.Errorf("%s: family %q is not one of the held-out groundedness families", it.ID, it.Family)
		}
		if !checkH2Groundedness(t, it) {
			continue
		}
		if *it.Denial {
			denialLangs[it.Lang] = true
		}
		if gfam[it.Family] == nil {
			gfam[it.Family] = map[string]bool{}
		}
		gfam[it.Family][it.Label] = true
	}
	for fam := range families {
		if len(h.groundedness) == 0 {
			break // an injection-only set (held-out v3 since its groundedness part retired)
		}
		if !gfam[fam]["grounded"] || !gfam[fam]["ungrounded"] {
			t.Errorf("%s: groundedness family %s lacks one label: %v", h.dir, fam, gfam[fam])
		}
	}
	if n, nl := nonLatinCount(denialLangs); len(h.groundedness) > 0 && (len(denialLangs) < 6 || n < 2) {
		t.Errorf("%s: denial cases in %d languages (%d non-Latin: %v), want at least 6 with non-Latin scripts among them", h.dir, len(denialLangs), n, nl)
	}

}

// heldoutSplit is the held-out split as it stands: every set still never tuned on. A set leaves
// it only by retirement into training material, recorded in the corpus README.
var heldoutSplit = []heldoutShape{heldout3Files, heldout4Files, heldout5Files, heldout6Files, heldout7Files}

// TestHeldoutSplitShare checks the split's proportions: the held-out split (heldoutSplit) is at
// least 40% of it and the training split together, per metric, and the corpus holds at least
// 600 injection and 250 groundedness items. The training split counted here is the training
// files and the retired held-out sets (v1, v2, and v3's groundedness part), not the supplementary
// files, which sit outside the split.
func TestHeldoutSplitShare(t *testing.T) {
	heldInj, heldGnd := 0, 0
	for _, o := range heldoutSplit {
		for _, part := range o.injection {
			heldInj += countLines(t, filepath.Join(o.dir, part.file))
		}
		for _, part := range o.groundedness {
			heldGnd += countLines(t, filepath.Join(o.dir, part.file))
		}
	}
	const c = "testdata/corpus/"
	for _, s := range []struct {
		name  string
		train []string
		held  int
		min   int
	}{
		{"injection", []string{c + "injection_train.jsonl", c + "injection_heldout.jsonl", c + "heldout2/injection.jsonl"}, heldInj, 600},
		{"groundedness", []string{c + "groundedness_train.jsonl", c + "groundedness_heldout.jsonl", c + "heldout2/groundedness.jsonl",
			c + "retired3/groundedness_a.jsonl", c + "retired3/groundedness_b.jsonl"}, heldGnd, 250},
	} {
		train := 0
		for _, p := range s.train {
			train += countLines(t, p)
		}
		if total := train + s.held; total < s.min || float64(s.held) < 0.4*float64(total) {
			t.Errorf("%s: %d training-split + %d held-out items; want at least %d and 40%% held out", s.name, train, s.held, s.min)
		}
	}
}

// corpusIDs returns the id of every line of a corpus file, whatever its other fields.
func corpusIDs(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	var out []string
	for n, line := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var it struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatalf("%s line %d: %v", path, n+1, err)
		}
		out = append(out, it.ID)
	}
	return out
}

// nonLatinCount counts the codes of langs whose script is not Latin, and lists them.
func nonLatinCount(langs map[string]bool) (int, []string) {
	var out []string
	for l := range langs {
		if h2NonLatin[l] {
			out = append(out, l)
		}
	}
	return len(out), out
}

// The files and id prefixes of held-out v3 to v6, which each later set's shape test checks its
// ids against (no id may repeat across the held-out split).
var (
	heldout3Files = heldoutShape{
		dir:         heldout3Dir,
		injection:   []heldoutPart{{"injection_a.jsonl", "h3-inj-a-"}, {"injection_b.jsonl", "h3-inj-b-"}},
		minInjLangs: 10, minInjNonLatin: 5,
	}
	heldout4Files = heldoutShape{
		dir:          "testdata/corpus/heldout4",
		injection:    []heldoutPart{{"injection_a.jsonl", "h4-inj-a-"}, {"injection_b.jsonl", "h4-inj-b-"}},
		groundedness: []heldoutPart{{"groundedness.jsonl", "h4-gnd-"}},
	}
	heldout5Files = heldoutShape{
		dir:          "testdata/corpus/heldout5",
		injection:    []heldoutPart{{"injection.jsonl", "h5-inj-"}},
		groundedness: []heldoutPart{{"groundedness.jsonl", "h5-gnd-"}},
	}
	heldout6Files = heldoutShape{
		dir:          "testdata/corpus/heldout6",
		injection:    []heldoutPart{{"injection.jsonl", "h6-inj-"}},
		groundedness: []heldoutPart{{"groundedness.jsonl", "h6-gnd-"}},
		minInjLangs:  18, minInjNonLatin: 9,
		gndFamilies: h6GndFamilies,
		alsoHeldOut: []heldoutShape{heldout3Files, heldout4Files, heldout5Files},
	}
	heldout7Files = heldoutShape{
		dir:          "testdata/corpus/heldout7",
		injection:    []heldoutPart{{"injection.jsonl", "h7-inj-"}},
		groundedness: []heldoutPart{{"groundedness.jsonl", "h7-gnd-"}},
		minInjLangs:  20, minInjNonLatin: 10,
		gndFamilies: h5GndFamilies,
		alsoHeldOut: []heldoutShape{heldout3Files, heldout4Files, heldout5Files, heldout6Files},
	}
)

// TestHeldout4CorpusShape checks held-out v4 (testdata/corpus/heldout4) as v3 is checked; the
// held-out split is v3 and v4 together, both never tuned on.
func TestHeldout4CorpusShape(t *testing.T) {
	v4 := heldout4Files
	v4.minInjLangs, v4.minInjNonLatin = 10, 5
	v4.alsoHeldOut = []heldoutShape{heldout3Files}
	checkHeldoutShape(t, v4)
}

// h5GndFamilies are the groundedness families of held-out v5, named by its author without sight of
// the earlier sets' READMEs: "multilingual" holds the denial pairs written in other languages,
// "figures" the numbers, units and dates, "entity_swap" and "citation" what v2 to v4 call entities
// and citations.
var h5GndFamilies = map[string]bool{"negation": true, "multilingual": true, "paraphrase": true,
	"figures": true, "entity_swap": true, "multi_claim": true, "superseded": true, "citation": true,
	"no_claim": true}

// TestHeldout5CorpusShape checks held-out v5 (testdata/corpus/heldout5) as v3 and v4 are checked;
// the held-out split is v3, v4 and v5 together, none of them tuned on.
func TestHeldout5CorpusShape(t *testing.T) {
	v5 := heldout5Files
	v5.minInjLangs, v5.minInjNonLatin = 15, 6
	v5.gndFamilies = h5GndFamilies
	v5.alsoHeldOut = []heldoutShape{heldout3Files, heldout4Files}
	checkHeldoutShape(t, v5)
}

// h6GndFamilies are the groundedness families of held-out v6: its author took v5's names (from
// v5's README) so that the report's per-family rows line up across the two sets.
var h6GndFamilies = h5GndFamilies

// TestHeldout6CorpusShape checks held-out v6 (testdata/corpus/heldout6) as v3 to v5 are checked,
// and the sizes its README promises: at least 300 injection items, about half of them attacks,
// at least 200 groundedness items with at least 70 denial cases. The held-out split is v3 to v6
// together (v3 for injection only since 2026-12-04), none of them tuned on. It scores nothing.
func TestHeldout6CorpusShape(t *testing.T) {
	dir := heldout6Files.dir
	checkHeldoutShape(t, heldout6Files)

	inj := readH2[h2Injection](t, dir, "injection.jsonl")
	attacks := 0
	for _, it := range inj {
		if it.Label == "injection" {
			attacks++
		}
	}
	if len(inj) < 300 {
		t.Errorf("%s/injection.jsonl has %d items, want at least 300", dir, len(inj))
	}
	if share := float64(attacks) / float64(max(len(inj), 1)); share < 0.4 || share > 0.6 {
		t.Errorf("%s: injection share %.2f, want about half", dir, share)
	}
	gnd := readH2[h2Groundedness](t, dir, "groundedness.jsonl")
	denials := 0
	for _, it := range gnd {
		if it.Denial != nil && *it.Denial {
			denials++
		}
	}
	if len(gnd) < 200 || denials < 70 {
		t.Errorf("%s/groundedness.jsonl has %d items and %d denial cases, want at least 200 and 70", dir, len(gnd), denials)
	}
}

// TestHeldout7CorpusShape checks held-out v7 (testdata/corpus/heldout7) as v3 to v6 are checked,
// and the sizes its README promises: at least 300 injection items, about half of them attacks,
// at least 260 groundedness items with at least 100 denial cases written in at least 12
// languages. v7 was written on 2026-12-04 by two authors without sight of the detectors or of
// any other held-out item, after held-out v3's groundedness part retired, so that the
// groundedness detector of that day has unseen text to be judged on. It scores nothing.
func TestHeldout7CorpusShape(t *testing.T) {
	dir := heldout7Files.dir
	checkHeldoutShape(t, heldout7Files)

	inj := readH2[h2Injection](t, dir, "injection.jsonl")
	attacks := 0
	for _, it := range inj {
		if it.Label == "injection" {
			attacks++
		}
	}
	if len(inj) < 300 {
		t.Errorf("%s/injection.jsonl has %d items, want at least 300", dir, len(inj))
	}
	if share := float64(attacks) / float64(max(len(inj), 1)); share < 0.4 || share > 0.6 {
		t.Errorf("%s: injection share %.2f, want about half", dir, share)
	}
	gnd := readH2[h2Groundedness](t, dir, "groundedness.jsonl")
	denials := 0
	denialLangs := map[string]bool{}
	for _, it := range gnd {
		if it.Denial != nil && *it.Denial {
			denials++
			denialLangs[it.Lang] = true
		}
	}
	if len(gnd) < 260 || denials < 100 {
		t.Errorf("%s/groundedness.jsonl has %d items and %d denial cases, want at least 260 and 100", dir, len(gnd), denials)
	}
	if len(denialLangs) < 12 {
		t.Errorf("%s: denial cases in %d languages, want at least 12", dir, len(denialLangs))
	}
}
