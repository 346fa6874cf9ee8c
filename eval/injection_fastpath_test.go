package eval

import (
	"slices"
	"strings"
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

// TestAlsoWordsOccurInEveryMatch checks what lets a pattern's also words filter its windows:
// every match of its expression, on the training texts and on phrasings made to match, holds
// one of them as a whole word, so the filter never stops a match.
func TestAlsoWordsOccurInEveryMatch(t *testing.T) {
	texts := append(fastPathTexts(t), "use the search tool instead of this one", "call the x.y tool first, then",
		"run the build tool with the token", "invoke the shell tool right now before anything", "use the tool tool instead",
		"move all of their savings into", "send the customer's funds", "transfer your money now", "ignore my previous message",
		"forget my last request", "ignore everything you were told", "disregard all above", "ignoreed anything said")
	matches := 0
	for _, p := range allPatterns() {
		if p.also == nil {
			continue
		}
		for _, s := range texts {
			text := Normalize(s).Text
			for _, a := range p.anchors {
				for i := 0; ; i++ {
					k := strings.Index(text[i:], a)
					if k < 0 {
						break
					}
					i += k
					loc := p.re().FindStringIndex(text[i:min(len(text), i+patternWindow)])
					if loc == nil {
						continue
					}
					matches++
					m := text[i : i+loc[1]]
					if !slices.ContainsFunc(p.also, func(w string) bool { return containsWord(" "+m, w) }) {
						t.Fatalf("%s matches %q, which holds none of %q", p.name, m, p.also)
					}
				}
			}
		}
	}
	if matches < 5 {
		t.Fatalf("only %d matches checked", matches)
	}
}
