package eval

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestNFKCInertRunesAreTheirOwnSegment holds foldRunes' shortcut to the path it skips, for every
// rune of the Basic Multilingual Plane: a rune nfkcInert accepts, followed by any ASCII byte or by
// nothing, ends its NFKC segment where NextBoundaryInString says and normalises to itself, so
// the shortcut gives foldRunes the segment and the text the general path gives. Likewise a rune
// nfkcStarts accepts starts a segment after each of a sample of runes from across the plane.
func TestNFKCInertRunesAreTheirOwnSegment(t *testing.T) {
	inert := 0
	for r := rune(0); r < 1<<16; r++ {
		if !nfkcInert(r) {
			continue
		}
		inert++
		s := string(r)
		if !utf8.ValidString(s) || len(s) < 2 {
			t.Fatalf("nfkcInert(%U) for a rune that is not a valid multi-byte one", r)
		}
		if got := string(norm.NFKC.AppendString(nil, s)); got != s {
			t.Fatalf("nfkcInert(%U), but NFKC gives %q", r, got)
		}
		if got := norm.NFKC.NextBoundaryInString(s, true); got != len(s) {
			t.Fatalf("nfkcInert(%U), but its segment at the end of a text ends at %d", r, got)
		}
		followers := " a.\n\t0Z" // every ASCII byte after one rune in sixteen
		if inert%16 == 0 {
			followers = ""
			for c := range byte(utf8.RuneSelf) {
				followers += string(rune(c))
			}
		}
		for _, c := range []byte(followers) {
			if got := norm.NFKC.NextBoundaryInString(s+string(rune(c)), true); got != len(s) {
				t.Fatalf("nfkcInert(%U), but before %q its segment ends at %d", r, c, got)
			}
		}
		if !nfkcInert(r) { // asked again: from the cache
			t.Fatalf("nfkcInert(%U) changed its answer", r)
		}
	}
	// a rune nfkcStarts accepts ends the segment before it after any rune: after an inert one,
	// a combining mark, a Hangul syllable, a jamo (the sample spans the plane)
	var before []string
	for r := rune(0x80); r < 1<<16; r += 1999 {
		if utf8.ValidRune(r) {
			before = append(before, string(r))
		}
	}
	before = append(before, "\u0301", "\u3099", "\uAC00", "\u1100", "\u1161", "\u11A8", "e\u0301", "\u00e9", "\u0438")
	starts := 0
	for r := rune(0); r < 1<<16; r++ {
		if !nfkcStarts(r) {
			continue
		}
		starts++
		s := string(r)
		for _, b := range before {
			if got := norm.NFKC.NextBoundaryInString(b+s+"x", true); got != len(b) && norm.NFKC.NextBoundaryInString(b, true) == len(b) {
				t.Fatalf("nfkcStarts(%U), but after %+q the segment ends at %d", r, b, got)
			}
		}
	}
	if starts < 40000 {
		t.Fatalf("only %d runes start a segment", starts)
	}
	if inert < 40000 {
		t.Fatalf("only %d runes inert: the shortcut would seldom apply", inert)
	}
}

// TestNormalizeInertShortcutOnCorpus compares Normalize on texts in many scripts with the
// same texts normalised segment by segment through the norm package alone (the shortcut off):
// the folded text, offsets, signals and payloads must be the same.
func TestNormalizeInertShortcutOnCorpus(t *testing.T) {
	texts := fastPathTexts(t)
	checked := 0
	for _, s := range texts {
		if isASCII(s) {
			continue
		}
		checked++
		got := Normalize(s)
		normalizeReference = true
		want := Normalize(s)
		normalizeReference = false
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Normalize(%.60q) differs with the inert-rune shortcut", s)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d non-ASCII texts", checked)
	}
}
