package eval

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitsBeforeMatchesLeadingWord holds splitsBefore to the lookups it replaces, on the
// leadingWord of the text after every space and comma of the training corpus and on edge texts.
func TestSplitsBeforeMatchesLeadingWord(t *testing.T) {
	texts := []string{"", "But", "HOWEVER it", "So,", "and", "And", "Während", "Но", "buté", "but-", "x" + strings.Repeat("a", 30),
		"Including", "thereforeé", "mais", "Y", "y,", "Because", "weil"}
	for _, it := range trainingGroundedness(t) {
		for _, s := range append([]string{it.Response}, it.Context[0].Content) {
			for i := range len(s) {
				if s[i] == ' ' || s[i] == ',' {
					texts = append(texts, s[i+1:])
				}
			}
		}
	}
	for _, s := range texts {
		for _, comma := range []bool{false, true} {
			for _, fine := range []bool{false, true} {
				w := leadingWord(s)
				want := contrastSet()[w] || comma && consequenceWords()[w] || fine && (conjunction(w) || causal(w))
				if got := splitsBefore(s, comma, fine); got != want {
					t.Fatalf("splitsBefore(%q, %v, %v) = %v, want %v", s, comma, fine, got, want)
				}
			}
		}
	}
}

// TestMaskedPhrasesGateMasks checks that analyze's gate leaves to maskExceptions and maskFraming
// every text they would change: on the training corpus (lower-cased, by clause and whole), on
// every phrase itself, and on phrases inside other text.
func TestMaskedPhrasesGateMasks(t *testing.T) {
	texts := slices.Concat(negationExceptions, negationExceptionsCJK, framingPhrases())
	for _, p := range slices.Clone(texts) {
		texts = append(texts, "x "+p+" y", strings.ToUpper(p))
	}
	for _, it := range trainingGroundedness(t) {
		for _, s := range append([]string{it.Response}, it.Context[0].Content) {
			low := lowerSameLength(s)
			texts = append(texts, low)
			for _, sp := range splitStatements(low, splitClauses) {
				texts = append(texts, low[sp[0]:sp[1]])
			}
		}
	}
	gated := 0
	for _, s := range texts {
		changed := maskFraming(maskExceptions(s)) != s
		if changed && !maskedPhrases().anyIn(s) {
			t.Fatalf("maskedPhrases misses %q, which the masks change", s)
		}
		if changed {
			gated++
		}
	}
	if gated < 20 {
		t.Fatalf("only %d texts are masked", gated)
	}
}

// TestCJKUnitLongestFirst checks that cjkUnit finds the unit the longest-match search over the
// whole unit table finds, at every position of every CJK run of the training corpus and at the
// start of every unit word.
func TestCJKUnitLongestFirst(t *testing.T) {
	longest := func(s string) string {
		best := ""
		for w := range units() {
			if w != "" && strings.HasPrefix(s, w) && len(w) > len(best) && isCJKString(w) {
				best = w
			}
		}
		return best
	}
	var texts []string
	for w := range units() {
		texts = append(texts, w, w+"后", w+w)
	}
	for _, it := range trainingGroundedness(t) {
		for _, s := range append([]string{it.Response}, it.Context[0].Content) {
			for _, w := range scanWords(s) {
				if w.kind != 'c' {
					continue
				}
				for i := range w.s {
					texts = append(texts, w.s[i:])
				}
			}
		}
	}
	for _, s := range texts {
		want := longest(s)
		if want == "" {
			continue
		}
		if _, _, n, ok := cjkUnit(s); !ok || n != len(want) {
			t.Fatalf("cjkUnit(%q) reads %d bytes, the longest unit is %q", s, n, want)
		}
	}
}
