package eval

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// injectionItem is one line of injection_{train,heldout}.jsonl (see testdata/corpus/LABELLING.md).
type injectionItem struct {
	ID         string        `json:"id"`
	Label      string        `json:"label"`
	Family     string        `json:"family"`
	Difficulty string        `json:"difficulty"`
	Lang       string        `json:"lang"`
	Text       string        `json:"text"`
	Context    []ContextItem `json:"context,omitempty"`
}

// groundednessItem is one line of groundedness_{train,heldout}.jsonl.
type groundednessItem struct {
	ID          string        `json:"id"`
	Label       string        `json:"label"`
	Family      string        `json:"family"`
	Kind        string        `json:"kind"`
	Denial      bool          `json:"denial"`
	Difficulty  string        `json:"difficulty"`
	Lang        string        `json:"lang"`
	Response    string        `json:"response"`
	Unsupported string        `json:"unsupported,omitempty"`
	Context     []ContextItem `json:"context"`
}

var (
	injectionFamilies = []string{"override", "paraphrase", "role", "tool_misuse", "exfiltration", "social", "hidden",
		"split", "multilingual", "obfuscation", "ordinary"}
	groundednessFamilies = []string{"negation", "figures", "supersession", "entities", "fabrication", "multi_claim",
		"no_claim", "citations"}
	difficulties = []string{"easy", "medium", "hard"}
	langCode     = regexp.MustCompile(`^[a-z]{2}$`)
)

// The corpus keeps the promises LABELLING.md makes: valid fields, unique ids, and no training
// item that near-copies the tool-text probe. Held-out v1 (*_heldout.jsonl) was retired after its
// first run and is training material now; the split invariants it was cut by (at least 40% held
// out, no group on both sides) are kept for it as a record of how it was made.
func TestCorpusSplit(t *testing.T) {
	injTrain := readJSONL[injectionItem](t, "testdata/corpus/injection_train.jsonl")
	injHeld := readJSONL[injectionItem](t, "testdata/corpus/injection_heldout.jsonl")
	gndTrain := readJSONL[groundednessItem](t, "testdata/corpus/groundedness_train.jsonl")
	gndHeld := readJSONL[groundednessItem](t, "testdata/corpus/groundedness_heldout.jsonl")
	injExtra := readJSONL[injectionItem](t, "testdata/corpus/injection_train_extra.jsonl")
	gndExtra := readJSONL[groundednessItem](t, "testdata/corpus/groundedness_train_extra.jsonl")
	injProbe := readJSONL[injectionItem](t, "testdata/corpus/injection_tooltext_probe.jsonl")
	injExtra2 := readJSONL[injectionItem](t, "testdata/corpus/injection_train_extra2.jsonl")
	injExtra3 := readJSONL[injectionItem](t, "testdata/corpus/injection_train_extra3.jsonl")
	injExtra4 := readJSONL[injectionItem](t, "testdata/corpus/injection_train_extra4.jsonl")
	injExtra4 = append(injExtra4, readJSONL[injectionItem](t, "testdata/corpus/injection_train_extra5.jsonl")...)

	ids := map[string]bool{}
	unique := func(id string) {
		if ids[id] {
			t.Errorf("id %s appears twice", id)
		}
		ids[id] = true
	}
	for _, c := range slices.Concat(injTrain, injHeld, injExtra, injProbe, injExtra2, injExtra3, injExtra4) {
		unique(c.ID)
		checkCommon(t, c.ID, c.Label, c.Family, c.Difficulty, c.Lang, []string{"injection", "benign"}, injectionFamilies)
		if strings.TrimSpace(c.Text) == "" {
			t.Errorf("%s: empty text", c.ID)
		}
		if c.Family == "ordinary" && c.Label != "benign" {
			t.Errorf("%s: family ordinary holds benign items only", c.ID)
		}
	}
	// groundedness_train_extra2.jsonl (check_groundedness/6) uses the family names of heldout2/
	gndExtra2 := readJSONL[groundednessItem](t, "testdata/corpus/groundedness_train_extra2.jsonl")
	// and so does groundedness_train_extra3.jsonl (check_groundedness/11)
	gndExtra2 = append(gndExtra2, readJSONL[groundednessItem](t, "testdata/corpus/groundedness_train_extra3.jsonl")...)
	// the groundedness probes (check_groundedness/7, never trained on) too
	gndProbes := readJSONL[groundednessItem](t, "testdata/corpus/groundedness_probe.jsonl")
	gndProbes = append(gndProbes, readJSONL[groundednessItem](t, "testdata/corpus/groundedness_probe2.jsonl")...)
	for _, c := range slices.Concat(gndTrain, gndHeld, gndExtra, gndExtra2, gndProbes) {
		unique(c.ID)
		families := groundednessFamilies
		switch {
		case strings.HasPrefix(c.ID, "gnd-x2-"):
			families = []string{"paraphrase", "multi_claim", "superseded", "negation"}
		case strings.HasPrefix(c.ID, "gnd-x3-"), strings.HasPrefix(c.ID, "gnd-x4-"), strings.HasPrefix(c.ID, "gnd-x5-"):
			families = []string{"paraphrase", "multi_claim", "superseded", "negation", "numbers", "entities", "no_claim", "citations"}
		}
		checkCommon(t, c.ID, c.Label, c.Family, c.Difficulty, c.Lang, []string{"grounded", "ungrounded"}, families)
		switch {
		case len(c.Context) == 0:
			t.Errorf("%s: no context", c.ID)
		case c.Label == "ungrounded" && (c.Unsupported == "" || !strings.Contains(c.Response, c.Unsupported)):
			t.Errorf("%s: unsupported %q is not a substring of the response", c.ID, c.Unsupported)
		case c.Label == "grounded" && (c.Unsupported != "" || c.Denial):
			t.Errorf("%s: a grounded item names no unsupported claim and is no denial case", c.ID)
		}
	}

	for _, s := range []struct {
		name        string
		train, held int
		min         int
	}{
		{"injection", len(injTrain), len(injHeld), 600},
		{"groundedness", len(gndTrain), len(gndHeld), 250},
	} {
		if total := s.train + s.held; total < s.min || float64(s.held) < 0.4*float64(total) {
			t.Errorf("%s: %d train + %d held-out items; want at least %d items and 40%% held out", s.name, s.train, s.held, s.min)
		}
	}

	heldContexts := map[string]string{}
	for _, c := range gndHeld {
		for _, x := range c.Context {
			heldContexts[x.Content] = c.ID
		}
	}
	for _, c := range gndTrain {
		for _, x := range c.Context {
			if h, ok := heldContexts[x.Content]; ok {
				t.Errorf("%s (train) and %s (held-out) share a context item", c.ID, h)
			}
		}
	}
	for _, a := range slices.Concat(injTrain, injExtra) {
		for _, b := range injHeld {
			if a.Family == b.Family && jaccard(itemWords(a), itemWords(b)) >= 0.4 {
				t.Errorf("%s (train) and %s (held-out v1) are near-copies and belong in one split", a.ID, b.ID)
			}
		}
	}
	// the tool-text probe is never trained on: no item the learned model is trained on may be its
	// near-copy
	for _, a := range injectionTrainingItems(t) {
		for _, b := range injProbe {
			if jaccard(itemWords(a), itemWords(b)) >= 0.4 {
				t.Errorf("%s (train) and %s (tool-text probe) are near-copies", a.ID, b.ID)
			}
		}
	}
}

func checkCommon(t *testing.T, id, label, family, difficulty, lang string, labels, families []string) {
	t.Helper()
	if !slices.Contains(labels, label) || !slices.Contains(families, family) || !slices.Contains(difficulties, difficulty) || !langCode.MatchString(lang) {
		t.Errorf("%s: label %q family %q difficulty %q lang %q: one is not in the policy", id, label, family, difficulty, lang)
	}
}

var wordRe = regexp.MustCompile(`[\p{L}\p{N}_]+`)

func itemWords(c injectionItem) map[string]bool {
	text := c.Text
	for _, x := range c.Context {
		text += " " + x.Content
	}
	out := map[string]bool{}
	for _, w := range wordRe.FindAllString(strings.ToLower(text), -1) {
		out[w] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
