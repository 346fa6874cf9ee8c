package eval

import (
	"testing"
	"unicode/utf8"
)

// TestClassifierMemoIsTransparent checks that classifier.memo never changes a word's class: on
// every training text (and the benchmark's), each word is classified by the memoising classifier
// and by a copy of it with the memo cleared, which must agree.
func TestClassifierMemoIsTransparent(t *testing.T) {
	words, classed := 0, 0
	for _, s := range fastPathTexts(t) {
		text := Normalize(s).Text
		cl := newClassifier()
		start := -1
		classify := func(end int) {
			if start < 0 {
				return
			}
			fresh := cl
			clear(fresh.memo[:])
			want := fresh.of(text, start, end)
			if got := cl.of(text, start, end); got != want {
				t.Fatalf("class of %q in %.40q = %d, want %d", text[start:end], text, got, want)
			}
			words++
			if want != 0 {
				classed++
			}
			start = -1
		}
		for i, r := range text {
			if !isModelWordRune(r) {
				classify(i)
				continue
			}
			if start < 0 {
				start = i
			}
			if r >= utf8.RuneSelf && isRunRune(r) {
				classify(i + utf8.RuneLen(r))
			}
		}
		classify(len(text))
	}
	if words < 10000 || classed < 1000 {
		t.Fatalf("only %d words, %d with a class, checked", words, classed)
	}
}
