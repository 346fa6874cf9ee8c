package eval

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// multiIndex.each reports exactly the occurrences a search for each word finds, in position
// order, whatever the word lengths (one, two, three to eight, more than eight bytes) and wherever
// a word meets the end of the text.
func TestMultiIndexFindsWhatIndexFinds(t *testing.T) {
	words := []string{"a", "é", "ig", "<|", "ign", "ignore", "ignore all", "ignore all previous", "the", "the previous",
		"them", "攻击", "注入", "aaaaaaaa", "aaaaaaaaa", "ab", "abc", "abcdefgh", "abcdefghi"}
	words = append(words, scanIndexWords()...)
	m := newMultiIndex(words)
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "c", "i", "g", "n", "o", "r", "e", " ", "the", "ignore all previous", "攻击", "注", "<|", "é", "\x00", "h", "m"}
	texts := []string{"", "a", "ig", "ignore", "abcdefgh", "abcdefghi", "aaaaaaaaa", "the previous", toolResult8KiB(true)}
	for range 2000 {
		var b strings.Builder
		for range rng.Intn(40) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	type occ struct{ word, pos int }
	for _, text := range texts {
		var got []occ
		m.each(text, func(w, pos int) bool { got = append(got, occ{w, pos}); return true })
		var want []occ
		for i, w := range words {
			for k := 0; k+len(w) <= len(text); k++ {
				if strings.HasPrefix(text[k:], w) {
					want = append(want, occ{i, k})
				}
			}
		}
		cmp := func(a, b occ) int {
			if a.pos != b.pos {
				return a.pos - b.pos
			}
			return a.word - b.word
		}
		if !slices.IsSortedFunc(got, func(a, b occ) int { return a.pos - b.pos }) {
			t.Errorf("%q: occurrences out of position order: %v", text, got)
		}
		slices.SortFunc(got, cmp)
		slices.SortFunc(want, cmp)
		if !slices.Equal(got, want) {
			t.Errorf("%q: each found %v, a search for each word finds %v", text, got, want)
		}
	}
}

// scanIndexWords are the words of the detector's own scan index.
func scanIndexWords() []string {
	var words []string
	words = append(words, anchorList()...)
	words = append(words, needList()...)
	for _, fw := range featureWords() {
		words = append(words, fw.word)
	}
	return words
}

// transformAnchors finds, in one pass, what building every rotation and the reversal of a text
// and searching each for every anchor would find.
func TestTransformAnchorsMatchesBuildingEachCandidate(t *testing.T) {
	naive := func(s string) uint32 {
		var set uint32
		for i, w := range decodeAnchors {
			if strings.Contains(s, w) {
				set |= 1 << i
			}
		}
		return set
	}
	rng := rand.New(rand.NewSource(2))
	pieces := []string{" ", "é", "攻击", ".", "-", "A", "Z", "\x00"}
	for _, w := range decodeAnchors {
		pieces = append(pieces, w, rotate(w, rng.Intn(26)), reverseRunes(w), strings.ToUpper(w))
	}
	for range 3000 {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		text := b.String()
		rot, rev := transformAnchors(text)
		for shift := range 26 {
			if want := naive(rotate(text, shift)); rot[shift] != want {
				t.Fatalf("%q shifted by %d: transformAnchors %b, building the rotation %b", text, shift, rot[shift], want)
			}
		}
		if want := naive(reverseRunes(text)); rev != want {
			t.Fatalf("%q reversed: transformAnchors %b, building the reversal %b", text, rev, want)
		}
		if anchorsIn(text) != naive(text) {
			t.Fatalf("%q: anchorsIn %b, a search for each anchor %b", text, anchorsIn(text), naive(text))
		}
	}
}
