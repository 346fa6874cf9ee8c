package eval

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// An attribution frame says where a claim comes from, not what is claimed: "According to the
// shipping notice, the container was loaded at Felixstowe", "Laut [satzung] tritt die
// Versammlung jährlich zusammen", "[規約3]によれば、…". Left in the claim, the frame was checked
// as a claim of its own ("According to the shipping notice" — no context statement says it, so
// unsupported) or its words counted against the claim's coverage ("laut", "según el acta"), and
// grounded responses that name their source were flagged for naming it. The source itself is
// still resolved as a citation (citations.go); blankAttribution only keeps the frame out of the
// claims.

// attributionMaxWords bounds the source a prefix frame names before its comma ("according to
// the March release notes,"): past it, the comma more likely ends a clause that asserts
// something, which stays a claim.
const attributionMaxWords = 6

// attributionPrefixes open a sentence with its source: the frame, the source's name, a comma (or
// a source marker, blanked already, in place of the name).
var attributionPrefixes = sync.OnceValue(func() *phraseList {
	return newPhraseList([]string{
		"according to", "as per", "as stated in", "as noted in", "as described in", "as shown in", "as set out in",
		"laut", "gemäß", "nach angaben", "según", "de acuerdo con", "conforme a", "selon", "d'après", "d’après",
		"secondo", "stando a", "segundo", "de acordo com", "volgens", "według", "zgodnie z", "согласно", "по данным",
		"судя по", "згідно з", "за даними", "відповідно до", "بحسب", "حسب", "وفقا ل", "وفقًا ل", "طبقا ل", "לפי",
		"theo", "menurut", "podle", "enligt", "ifølge", "ifolge", "mukaan",
		"根据", "根據", "依据", "依據", "据", "據", "按照",
	})
})

// perOpeners are the words after "per" that make it a frame ("per the lab report,"), not a rate
// ("per person, the fee is 5 euros").
var perOpeners = sync.OnceValue(func() map[string]bool {
	return setOf([]string{"the", "our", "your", "their", "its", "this", "that", "these", "those"})
})

// attributionSuffixes follow the source they name, in languages that put the frame after it:
// "[規約3]によれば", "[공지-7]에 따르면", "[सूचना-2] के अनुसार", "rapora göre".
var attributionSuffixes = []string{"によれば", "によると", "에 따르면", "에따르면", "के अनुसार", "'e göre", "'a göre", "’e göre", "’a göre", "e göre", "a göre"}

// attributionSuffixReach bounds how far into a sentence a suffix frame may end (bytes of the
// masked sentence, after its leading blanks): the source it follows is a name or a marker.
const attributionSuffixReach = 48

// blankAttribution returns the sentence with its attribution frame, and the source the frame
// names, replaced by spaces: byte offsets are unchanged, so the claims cut from it still map onto
// the response. A sentence without a frame is returned as it is.
func blankAttribution(sentence string) string {
	lower := lowerSameLength(sentence)
	if lower == "" || len(lower) != len(sentence) {
		return sentence
	}
	lead := len(lower) - len(strings.TrimLeft(lower, " \t"))
	if end := attributionPrefixEnd(lower, lead); end > lead {
		return blankSpan(sentence, lead, end)
	}
	if end := attributionSuffixEnd(lower, lead); end > lead {
		return blankSpan(sentence, lead, end)
	}
	if start := attributionTrailStart(lower); start >= 0 {
		return blankSpan(sentence, start, len(sentence))
	}
	return sentence
}

// attributionPrefixEnd is where a frame opening the sentence at lead ends, with the source it
// names and its comma; lead when there is none.
func attributionPrefixEnd(lower string, lead int) int {
	ws := scanWords(lower)
	if len(ws) == 0 || ws[0].start != lead {
		return lead
	}
	frameEnd := -1
	attributionPrefixes().each(ws, func(start, end int) {
		if start == lead && end > frameEnd {
			frameEnd = end
		}
	})
	if frameEnd < 0 && ws[0].s == "per" && len(ws) > 1 && perOpeners()[ws[1].s] {
		frameEnd = ws[0].end
	}
	if frameEnd < 0 {
		return lead
	}
	// The source runs to the first comma; a blanked marker right after the frame is the source
	// itself ("Laut [satzung] tritt …").
	rest := lower[frameEnd:]
	if k := len(rest) - len(strings.TrimLeft(rest, " ")); k > 2 {
		return frameEnd + k + commaAfter(rest[k:])
	}
	c := firstComma(rest)
	if c < 0 {
		return lead
	}
	if n := contentWords(rest[:c]); n == 0 || n > attributionMaxWords {
		return lead
	}
	return frameEnd + c + commaLen(rest[c:])
}

// attributionSuffixEnd is where a suffix frame near the start of the sentence ends, with its
// comma; lead when there is none.
func attributionSuffixEnd(lower string, lead int) int {
	best := -1
	for _, f := range attributionSuffixes {
		i := strings.Index(lower[lead:], f)
		if i < 0 || i+len(f) > attributionSuffixReach {
			continue
		}
		// the frame must follow a name or a marker: at most three words before it (a marker's
		// brackets are not words)
		if contentWords(lower[lead:lead+i]) > 3 {
			continue
		}
		if e := lead + i + len(f); e > best {
			best = e
		}
	}
	if best < 0 {
		return lead
	}
	return best + commaAfter(lower[best:])
}

// attributionTrails close a sentence with its source: ", according to the report."
var attributionTrails = []string{", according to ", ", as per ", ", laut ", ", según ", ", selon ", ", secondo ", ", segundo ", ", volgens ", ", согласно "}

// attributionTrailStart is where a trailing frame begins (its comma), or -1.
func attributionTrailStart(lower string) int {
	for _, f := range attributionTrails {
		i := strings.LastIndex(lower, f)
		if i < 0 {
			continue
		}
		if n := len(scanWords(lower[i+len(f):])); n > 0 && n <= attributionMaxWords {
			return i
		}
	}
	return -1
}

// firstComma is the byte offset of the first comma of s (any script's), or -1.
func firstComma(s string) int {
	for i, r := range s {
		switch r {
		case ',', '，', '、', '،':
			return i
		}
	}
	return -1
}

// commaLen is the length of the comma s starts with (0 when it starts with none).
func commaLen(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	switch r {
	case ',', '，', '、', '،':
		return n
	}
	return 0
}

// commaAfter is the length of the spaces and the one comma s starts with, if it starts with a
// comma after spaces; 0 otherwise.
func commaAfter(s string) int {
	k := len(s) - len(strings.TrimLeft(s, " "))
	if n := commaLen(s[k:]); n > 0 {
		return k + n
	}
	return 0
}

// blankSpan replaces s[from:to] by spaces.
func blankSpan(s string, from, to int) string {
	b := []byte(s)
	for i := from; i < to && i < len(b); i++ {
		b[i] = ' '
	}
	return string(b)
}

// contentWords counts the words, numbers and CJK runs of s, not its symbols.
func contentWords(s string) int {
	n := 0
	for _, w := range scanWords(s) {
		if w.kind != 's' {
			n++
		}
	}
	return n
}
