package eval

import (
	"strings"
	"testing"
)

// TestSplitsBeforeMatchesLeadingWord holds splitsBefore to the lookups it replaces, on the
// leadingWord of the text after every space and comma of the training corpus and on edge texts.
func TestSplitsBeforeMatchesLeadingWord(t *testing.T) {
	texts := []string{"", "But", "HOWEVER it", "So,", "and", "And", "Während", "Но", "buté", "but-", "x" + strings.Repeat("a", 30),
		"Including", "thereforeé", "mais", "Y", "y,"}
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
				want := contrastSet()[w] || comma && consequenceWords()[w] || fine && conjunction(w)
				if got := splitsBefore(s, comma, fine); got != want {
					t.Fatalf("splitsBefore(%q, %v, %v) = %v, want %v", s, comma, fine, got, want)
				}
			}
		}
	}
}
