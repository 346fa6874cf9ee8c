package eval

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// trainingGroundedness is the groundedness corpus a differential test may read: the training
// files and the original set, never a held-out split.
func trainingGroundedness(t testing.TB) []groundednessItem {
	t.Helper()
	var items []groundednessItem
	for _, f := range []string{"groundedness.jsonl", "groundedness_train.jsonl", "groundedness_train_extra.jsonl", "groundedness_train_extra2.jsonl"} {
		items = append(items, readJSONL[groundednessItem](t, "testdata/corpus/"+f)...)
	}
	return items
}

// checkMentions compares scanMentions with the expression it replaces on one key and text.
func checkMentions(t *testing.T, key, text string) {
	t.Helper()
	got, ok := scanMentions(key, text)
	if !ok {
		return
	}
	want := mentions(mentionRe(key), key, text)
	if !slices.Equal(got, want) {
		t.Errorf("scanMentions(%q, %q) = %v, the expression finds %v", key, text, got, want)
	}
}

// TestScanMentionsMatchesExpression holds scanMentions to mentionRe's expression: on every
// reference of the training corpus against every item of its context (and every other item of
// the corpus), and on texts built to reach each branch of the expression.
func TestScanMentionsMatchesExpression(t *testing.T) {
	items := trainingGroundedness(t)
	var keys []string
	var texts []string
	for _, it := range items {
		for _, c := range ExtractCitations(it.Response) {
			if c.Kind == CitationReference {
				keys = append(keys, c.Key)
			}
		}
		for _, c := range it.Context {
			texts = append(texts, foldSpaces(c.Content))
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	slices.Sort(texts)
	texts = slices.Compact(texts)
	if len(keys) < 20 || len(texts) < 100 {
		t.Fatalf("corpus too small: %d keys, %d texts", len(keys), len(texts))
	}
	for _, k := range keys {
		if _, ok := scanMentions(k, ""); !ok {
			t.Errorf("scanMentions does not handle the extracted key %q", k)
		}
		for _, text := range texts {
			checkMentions(t, k, text)
		}
	}
	edge := []string{
		"section 3.1", "sec.3.1", "sec. 3.1", "§3.1", "§ 3.1", "x§3.1", "a section 3.1.", "section 3.1.2",
		"section 3.10", "section 3.1a", "section 3.1.x", "xsection 3.1", "_section 3.1", "section\t\n\f\r 3.1 ",
		"é section 3.1é", "ésection 3.1", "section 3.1", "section 3.1, section 3.1; section 3.1",
		"section 3.1section 3.1", "section 3.1-b", "section 3.1.\n", "section 3.1..", "section 3.1)",
		"appendix a", "appendix ab", "appendix a.", "appendix a.1", "art. 7", "article 7 and art.7", "fig. 2",
		"rfc 9110", "rfc9110", "rfc 91101", "table 3.", "table 3é", "page 12 page 12 page 12",
		strings.Repeat("section 3.1 ", 20), "section 3 section 3.1 section 3.1b section 3.1",
		"SECTION 3.1", "sections 3.1", "subsection 3.1", "§§3.1", "section  3.1", "section3.1",
	}
	edgeKeys := []string{"section 3.1", "section 3", "appendix a", "article 7", "figure 2", "rfc 9110",
		"table 3", "page 12", "section 3.1b", "item a"}
	for _, k := range edgeKeys {
		for _, text := range edge {
			checkMentions(t, k, text)
		}
	}
}

// FuzzScanMentions holds scanMentions to the expression on arbitrary texts.
func FuzzScanMentions(f *testing.F) {
	f.Add("section 3.1", "see section 3.1. and § 3.1a")
	f.Add("appendix b", "appendix b.2 appendix b")
	f.Add("article 7", "art.7é article 7.")
	f.Fuzz(func(t *testing.T, key, text string) {
		checkMentions(t, key, text)
	})
}

// TestGroundednessMatchesReference compares every result of ScoreGroundedness on the training
// corpus, and on each context item read as the response (long texts dense with figures and
// references), with the result of its straightforward paths (groundednessReference).
func TestGroundednessMatchesReference(t *testing.T) {
	items := trainingGroundedness(t)
	score := func(in GroundednessInput, reference bool) GroundednessScore {
		groundednessReference = reference
		defer func() { groundednessReference = false }()
		return ScoreGroundedness(in)
	}
	n := 0
	for _, it := range items {
		in := GroundednessInput{Response: it.Response, Context: it.Context}
		got, want := score(in, false), score(in, true)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ScoreGroundedness differs from its reference:\n got %+v\nwant %+v", it.ID, got, want)
		}
		// repeated boilerplate: every item written twice, and the first item's text again in a
		// context of its own after the others
		doubled := make([]ContextItem, 0, len(it.Context)+1)
		for _, c := range it.Context {
			doubled = append(doubled, ContextItem{ID: c.ID, Content: c.Content + " " + c.Content})
		}
		doubled = append(doubled, ContextItem{ID: "again", Content: it.Context[0].Content})
		in = GroundednessInput{Response: it.Response, Context: doubled}
		if got, want := score(in, false), score(in, true); !reflect.DeepEqual(got, want) {
			t.Errorf("%s with repeated context: ScoreGroundedness differs from its reference:\n got %+v\nwant %+v", it.ID, got, want)
		}
		// the context read as the response: long texts full of figures and references
		for _, c := range it.Context {
			in := GroundednessInput{Response: c.Content, Context: it.Context}
			if got, want := score(in, false), score(in, true); !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s as the response: ScoreGroundedness differs from its reference:\n got %+v\nwant %+v", it.ID, c.ID, got, want)
			}
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d items", n)
	}
}
