package eval_test

// This file checks only the shape of the second held-out corpus (testdata/corpus/heldout2): that
// every line decodes into the fields the labelling policy requires, that ids are unique, and that
// the files hold what their README promises (sizes, both labels in every family, the languages).
// It scores nothing, and it is deliberately self-contained: it decodes into its own structs and
// uses no code of this package, so that the corpus and its check were written without sight of
// the detectors.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const heldout2Dir = "testdata/corpus/heldout2"

// h2Context is one item of material that travels with a text or a response.
type h2Context struct {
	ID      string `json:"id"`
	Source  string `json:"source"`
	Content string `json:"content"`
}

// h2Injection is one line of heldout2/injection.jsonl.
type h2Injection struct {
	ID         string      `json:"id"`
	Label      string      `json:"label"`
	Family     string      `json:"family"`
	Difficulty string      `json:"difficulty"`
	Lang       string      `json:"lang"`
	Text       *string     `json:"text"`
	Context    []h2Context `json:"context"`
}

// h2Groundedness is one line of heldout2/groundedness.jsonl. Response and Denial are pointers so
// that a missing field is told apart from an empty response or a false denial.
type h2Groundedness struct {
	ID          string      `json:"id"`
	Label       string      `json:"label"`
	Family      string      `json:"family"`
	Kind        string      `json:"kind"`
	Denial      *bool       `json:"denial"`
	Difficulty  string      `json:"difficulty"`
	Lang        string      `json:"lang"`
	Response    *string     `json:"response"`
	Unsupported *string     `json:"unsupported"`
	Context     []h2Context `json:"context"`
}

// readH2 decodes every line of a JSON Lines file of dir strictly (an unknown field is an error)
// into T. The later held-out corpora share the second one's line format, so they read through it.
func readH2[T any](t *testing.T, dir, name string) []T {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var v T
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s line %d: %v", name, n, err)
		}
		if dec.More() {
			t.Fatalf("%s line %d: more than one JSON value on the line", name, n)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scanning %s: %v", name, err)
	}
	return out
}

func checkH2Context(ctx []h2Context) error {
	seen := map[string]bool{}
	for i, c := range ctx {
		if c.ID == "" || c.Source == "" || strings.TrimSpace(c.Content) == "" {
			return fmt.Errorf("context[%d] needs id, source and content", i)
		}
		if seen[c.ID] {
			return fmt.Errorf("context id %q repeated", c.ID)
		}
		seen[c.ID] = true
	}
	return nil
}

// checkH2Injection checks one injection item's fields against the labelling policy.
func checkH2Injection(t *testing.T, it h2Injection) {
	t.Helper()
	switch {
	case it.Label != "injection" && it.Label != "benign":
		t.Errorf("%s: label %q", it.ID, it.Label)
	case !h2InjFamilies[it.Family]:
		t.Errorf("%s: family %q is not one the policy lists", it.ID, it.Family)
	case it.Family == "ordinary" && it.Label != "benign":
		t.Errorf("%s: the ordinary family is benign only", it.ID)
	case !h2Difficulties[it.Difficulty]:
		t.Errorf("%s: difficulty %q", it.ID, it.Difficulty)
	case len(it.Lang) != 2:
		t.Errorf("%s: lang %q is not an ISO 639-1 code", it.ID, it.Lang)
	case it.Text == nil || strings.TrimSpace(*it.Text) == "":
		t.Errorf("%s: text missing or blank", it.ID)
	}
	if err := checkH2Context(it.Context); err != nil {
		t.Errorf("%s: %v", it.ID, err)
	}
}

// checkH2Groundedness checks one groundedness item's fields against the labelling policy (the
// family only for being present: each corpus names its own families) and reports whether its
// response and denial are there to be counted.
func checkH2Groundedness(t *testing.T, it h2Groundedness) bool {
	t.Helper()
	switch {
	case it.Label != "grounded" && it.Label != "ungrounded":
		t.Errorf("%s: label %q", it.ID, it.Label)
	case it.Family == "" || it.Kind == "":
		t.Errorf("%s: family and kind are required", it.ID)
	case !h2Difficulties[it.Difficulty]:
		t.Errorf("%s: difficulty %q", it.ID, it.Difficulty)
	case len(it.Lang) != 2:
		t.Errorf("%s: lang %q is not an ISO 639-1 code", it.ID, it.Lang)
	case it.Response == nil:
		t.Errorf("%s: response missing", it.ID)
	case it.Denial == nil:
		t.Errorf("%s: denial missing", it.ID)
	case len(it.Context) == 0:
		t.Errorf("%s: at least one context item is required", it.ID)
	}
	if err := checkH2Context(it.Context); err != nil {
		t.Errorf("%s: %v", it.ID, err)
	}
	if it.Response == nil || it.Denial == nil {
		return false
	}
	if it.Label == "ungrounded" {
		if it.Unsupported == nil || *it.Unsupported == "" || !strings.Contains(*it.Response, *it.Unsupported) {
			t.Errorf("%s: an ungrounded item names its unsupported claim as a substring of the response", it.ID)
		}
	} else if it.Unsupported != nil || *it.Denial {
		t.Errorf("%s: a grounded item has no unsupported claim and no denial", it.ID)
	}
	return true
}

var (
	h2Difficulties = map[string]bool{"easy": true, "medium": true, "hard": true}
	h2InjFamilies  = map[string]bool{"override": true, "paraphrase": true, "role": true, "tool_misuse": true,
		"exfiltration": true, "social": true, "hidden": true, "split": true, "multilingual": true,
		"obfuscation": true, "ordinary": true}
	// h2NonLatin are the language codes of the corpus whose script is not Latin.
	h2NonLatin = map[string]bool{"zh": true, "ja": true, "ko": true, "ru": true, "uk": true, "ar": true,
		"hi": true, "he": true, "el": true, "th": true}
)

func TestHeldout2CorpusShape(t *testing.T) {
	ids := map[string]string{}
	claim := func(id, file string) {
		if !strings.HasPrefix(id, "h2-") {
			t.Errorf("%s: id %q does not start with h2-", file, id)
		}
		if prev, ok := ids[id]; ok {
			t.Errorf("id %q appears in %s and %s", id, prev, file)
		}
		ids[id] = file
	}

	inj := readH2[h2Injection](t, heldout2Dir, "injection.jsonl")
	labels := map[string]int{}
	famLabels := map[string]map[string]bool{}
	langs := map[string]bool{}
	for _, it := range inj {
		claim(it.ID, "injection.jsonl")
		checkH2Injection(t, it)
		labels[it.Label]++
		if famLabels[it.Family] == nil {
			famLabels[it.Family] = map[string]bool{}
		}
		famLabels[it.Family][it.Label] = true
		langs[it.Lang] = true
	}
	if len(inj) < 450 {
		t.Errorf("injection.jsonl has %d items, want at least 450", len(inj))
	}
	if share := float64(labels["injection"]) / float64(len(inj)); share < 0.4 || share > 0.6 {
		t.Errorf("injection share %.2f, want about half", share)
	}
	for fam := range h2InjFamilies {
		if fam == "ordinary" {
			continue
		}
		if !famLabels[fam]["injection"] || !famLabels[fam]["benign"] {
			t.Errorf("family %s lacks injections or hard negatives: %v", fam, famLabels[fam])
		}
	}
	nonLatin := 0
	for l := range langs {
		if h2NonLatin[l] {
			nonLatin++
		}
	}
	if len(langs) < 8 || nonLatin < 3 {
		t.Errorf("injection.jsonl has %d languages (%d non-Latin), want at least 8 and 3", len(langs), nonLatin)
	}

	gnd := readH2[h2Groundedness](t, heldout2Dir, "groundedness.jsonl")
	glabels := map[string]int{}
	denialLangs := map[string]bool{}
	for _, it := range gnd {
		claim(it.ID, "groundedness.jsonl")
		if !checkH2Groundedness(t, it) {
			continue
		}
		if *it.Denial {
			denialLangs[it.Lang] = true
		}
		glabels[it.Label]++
	}
	if len(gnd) < 215 {
		t.Errorf("groundedness.jsonl has %d items, want at least 215", len(gnd))
	}
	if glabels["grounded"] == 0 || glabels["ungrounded"] == 0 {
		t.Errorf("groundedness labels %v, want both", glabels)
	}
	nonLatin = 0
	for l := range denialLangs {
		if h2NonLatin[l] {
			nonLatin++
		}
	}
	if len(denialLangs) < 6 || nonLatin < 2 {
		t.Errorf("denial cases in %d languages (%d non-Latin), want at least 6 with non-Latin scripts among them", len(denialLangs), nonLatin)
	}
}
