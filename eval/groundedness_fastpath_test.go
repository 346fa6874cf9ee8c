package eval

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// scoreBoth scores in on the fast paths and on the reference paths (groundednessReference).
func scoreBoth(in GroundednessInput) (fast, ref GroundednessScore) {
	fast = ScoreGroundedness(in)
	groundednessReference = true
	defer func() { groundednessReference = false }()
	return fast, ScoreGroundedness(in)
}

// shuffledGroundedness builds inputs the corpus does not hold: contexts of several training
// items' sentences, shuffled and cut at random places, and responses made of context sentences
// with a digit changed, a word dropped or a sentence of another item, so that every feature path
// (aligned, other item, changed figure, no alignment) runs on text no item has.
func shuffledGroundedness(t testing.TB, n int, seed uint64) []GroundednessInput {
	t.Helper()
	items := trainingGroundedness(t)
	r := rand.New(rand.NewPCG(seed, 1))
	var sentences []string
	for _, it := range items {
		for _, c := range it.Context {
			for _, sp := range splitStatements(c.Content, splitSentences) {
				sentences = append(sentences, c.Content[sp[0]:sp[1]])
			}
		}
		sentences = append(sentences, it.Response)
	}
	pick := func() string { return sentences[r.IntN(len(sentences))] }
	mutate := func(s string) string {
		b := []byte(s)
		switch r.IntN(4) {
		case 0:
			for i, c := range b {
				if c >= '0' && c <= '9' {
					b[i] = '0' + (c-'0'+1)%10
					break
				}
			}
		case 1:
			if ws := strings.Fields(s); len(ws) > 2 {
				k := r.IntN(len(ws))
				return strings.Join(append(ws[:k:k], ws[k+1:]...), " ")
			}
		case 2:
			return s[:r.IntN(len(s)+1)]
		}
		return string(b)
	}
	var out []GroundednessInput
	for range n {
		var ctx []ContextItem
		for k := range 1 + r.IntN(5) {
			var sb strings.Builder
			for range 1 + r.IntN(8) {
				sb.WriteString(pick())
				sb.WriteString([]string{" ", ". ", "\n", ", and ", "; "}[r.IntN(5)])
			}
			ctx = append(ctx, ContextItem{ID: "kb-" + string(rune('a'+k)), Content: sb.String()})
		}
		var resp strings.Builder
		for range r.IntN(4) {
			c := ctx[r.IntN(len(ctx))].Content
			s := c[r.IntN(len(c)):]
			if r.IntN(3) == 0 {
				s = pick()
			}
			resp.WriteString(mutate(s))
			if r.IntN(2) == 0 {
				resp.WriteString(" [" + ctx[r.IntN(len(ctx))].ID + "]")
			}
			resp.WriteString(". ")
		}
		out = append(out, GroundednessInput{Response: resp.String(), Context: ctx})
	}
	return out
}

// TestGroundednessFastPathsMatchReferenceOnShuffledText holds the fast paths (the claim's gram
// table, the shared cue-word lookup) to the reference paths on inputs no corpus item has.
func TestGroundednessFastPathsMatchReferenceOnShuffledText(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 80
	}
	for i, in := range shuffledGroundedness(t, n, 14) {
		if fast, ref := scoreBoth(in); !reflect.DeepEqual(fast, ref) {
			t.Fatalf("input %d differs from its reference:\nresponse %q\n got %+v\nwant %+v", i, in.Response, fast, ref)
		}
	}
}

// FuzzGroundednessMatchesReference holds the fast paths to the reference paths on arbitrary
// responses and contexts.
func FuzzGroundednessMatchesReference(f *testing.F) {
	for _, in := range shuffledGroundedness(f, 20, 7) {
		f.Add(in.Response, in.Context[0].Content, in.Context[len(in.Context)-1].Content)
	}
	f.Fuzz(func(t *testing.T, response, a, b string) {
		in := GroundednessInput{Response: response, Context: []ContextItem{{ID: "a", Content: a}, {ID: "b", Content: b}}}
		if fast, ref := scoreBoth(in); !reflect.DeepEqual(fast, ref) {
			t.Fatalf("differs from its reference:\n got %+v\nwant %+v", fast, ref)
		}
	})
}

// FuzzCharGrams holds charGramsRaw, sorted, to charGramsReference on arbitrary texts.
func FuzzCharGrams(f *testing.F) {
	for _, s := range []string{"", "Refunds are issued within 14 days.", "ÉCOLE ǅ ﬁ Ⅻ İ", "会议推迟到三月", "한국어 문장 123", "a\u0301b", "\xff\xfeab c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := charGramsRaw(s)
		slices.Sort(got)
		got = slices.Compact(got)
		if want := charGramsReference(s); !slices.Equal(got, want) {
			t.Fatalf("%q: charGramsRaw %v, reference %v", s, got, want)
		}
	})
}

// TestCharGramsMatchReference runs FuzzCharGrams's check on every training text.
func TestCharGramsMatchReference(t *testing.T) {
	for _, it := range trainingGroundedness(t) {
		texts := []string{it.Response}
		for _, c := range it.Context {
			texts = append(texts, c.Content)
		}
		for _, s := range texts {
			got := charGramsRaw(s)
			slices.Sort(got)
			if want := charGramsReference(s); !slices.Equal(slices.Compact(got), want) {
				t.Fatalf("%s: %q differs from its reference", it.ID, s)
			}
		}
	}
}
