package eval

import (
	"encoding/base64"
	"encoding/hex"
	"html"
	"math/bits"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Bounds on decoding, so one hostile input cannot make Normalize do unbounded work.
const (
	maxPayloads       = 16
	maxPayloadBytes   = 16 << 10
	minBase64Run      = 20
	minHexRun         = 16
	minURLEscapes     = 3
	maxExtracts       = 64
	minPrintableRatio = 0.9
)

// rot13Anchors are words whose ROT13 form in a text suggests the text is a ROT13 payload.
var rot13Anchors = []string{"ignore", "instruction", "previous", "system", "disregard", "prompt", "password", "secret", "assistant"}

// rot13AnchorsRotated are the anchors as they appear in a ROT13 payload, with the offsets of
// their rarest bytes for indexRare.
var rot13AnchorsRotated = sync.OnceValue(func() []rareNeedle {
	out := make([]rareNeedle, len(rot13Anchors))
	for i, w := range rot13Anchors {
		out[i] = newRareNeedle(rot13(w))
	}
	return out
})

// rareNeedle is a string searched for with indexRare, and the offset of its rarest byte.
type rareNeedle struct {
	s   string
	key int
}

func newRareNeedle(s string) rareNeedle { return rareNeedle{s, rareByteOffset(s)} }

// englishLetterOrder lists the lower-case letters from the most to the least frequent in English.
const englishLetterOrder = "etaoinshrdlcumwfgypbvkjxqz"

// rareByteOffset is the offset in needle of the byte least likely in (folded, English) text: the
// letter latest in englishLetterOrder, or before any letter a punctuation mark other than a space.
func rareByteOffset(needle string) int {
	best, rank := 0, -2
	for k := 0; k < len(needle); k++ {
		r := strings.IndexByte(englishLetterOrder, needle[k])
		switch {
		case needle[k] == ' ':
			r = -1
		case r < 0:
			r = len(englishLetterOrder)
		}
		if r > rank {
			best, rank = k, r
		}
	}
	return best
}

// indexRare is strings.Index(s, n.s), found by jumping with IndexByte between the occurrences of
// n's rarest byte. strings.Index jumps between those of the first byte, and when that is a
// common letter ("c" of "cebzcg", "s" of `src="`) it calls IndexByte every few dozen bytes: the
// ROT13 test and the markup attributes spent more on that than on the rest of Normalize's scans.
func indexRare(s string, n rareNeedle) int {
	c := n.s[n.key]
	for q := n.key; q < len(s); q++ {
		o := strings.IndexByte(s[q:], c)
		if o < 0 {
			return -1
		}
		q += o
		if p := q - n.key; p+len(n.s) <= len(s) && s[p:p+len(n.s)] == n.s {
			return p
		}
	}
	return -1
}

// decodePayloads finds base64, hex, URL-encoded and ROT13 runs that decode to readable text.
func (n *Normalized) decodePayloads() {
	n.scanAlphabetRuns()
	n.scanEscapedHex()
	n.scanURLEncoded()
	n.scanROT13()
	n.scanSpacedLetters()
	n.scanEntities()
	n.scanCodes()
	n.scanTransforms()
}

// minSpacedLetters is the shortest run of single letters ("i g n o r e") treated as one word.
const minSpacedLetters = 4

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// singleLetter reports whether t[i] is a letter standing alone between non-letters.
func singleLetter(t string, i int) bool {
	return isASCIILetter(t[i]) && (i == 0 || !isASCIILetter(t[i-1])) && (i+1 == len(t) || !isASCIILetter(t[i+1]))
}

// scanSpacedLetters rejoins words spelt out letter by letter, whatever sits between the letters
// ("i g n o r e", "i.g.n.o.r.e", "I-G-N-O-R-E", "s/e/n/d", "i🙂g🙂n"): an evasion that defeats
// word matching. It reads the case-kept text, where whitespace is not yet collapsed, so a wider
// gap between letter runs still separates words. A run is three letters or more with the same
// separator each time; runs count only when together they spell eight letters or more. The
// rejoined text is a payload whose offsets map back exactly.
func (n *Normalized) scanSpacedLetters() {
	t := n.cased
	var runs [][2]int
	letters := 0
	for i := 0; i < len(t); i++ {
		if !isASCIILetter(t[i]) {
			continue
		}
		// the byte before a letter reached here is not a letter (words are skipped whole), so
		// the letter stands alone unless another follows
		if i+1 < len(t) && isASCIILetter(t[i+1]) {
			// a word of two letters or more: none of its letters stands alone, so skip it whole
			// rather than test each (this loop reads every byte of the text)
			for i += 2; i < len(t) && isASCIILetter(t[i]); i++ {
			}
			continue
		}
		sep := letterSeparator(t, i+1)
		if sep == "" {
			continue
		}
		j, count := i, 1
		for j+1+len(sep) < len(t) && strings.HasPrefix(t[j+1:], sep) && singleLetter(t, j+1+len(sep)) {
			j += 1 + len(sep)
			count++
		}
		if count >= minSpacedLetters || count >= 3 && letters > 0 {
			runs = append(runs, [2]int{i, j + 1})
			letters += count
		}
		i = j
	}
	if letters < 8 || len(n.Payloads) >= maxPayloads {
		return
	}
	b := make([]byte, 0, len(t))
	offs := make([]int32, 0, len(t)+1)
	r := 0
	for i := 0; i < len(t); i++ {
		for r < len(runs) && i >= runs[r][1] {
			r++
		}
		if r < len(runs) && i > runs[r][0] && i < runs[r][1] && !isASCIILetter(t[i]) {
			continue
		}
		b = append(b, t[i])
		offs = append(offs, int32(n.casedOffset(i)))
	}
	offs = append(offs, int32(n.casedOffset(len(t))))
	keep := make([][2]int, len(runs))
	for i, run := range runs {
		keep[i] = [2]int{n.casedOffset(run[0]), n.casedOffset(run[1])}
	}
	n.addSignal(SignalEncoded, keep[0][0])
	n.Payloads = append(n.Payloads, Payload{Encoding: "spaced", Start: keep[0][0], End: keep[len(keep)-1][1],
		Decoded: string(b), offsets: offs, keep: keep})
}

// letterSeparator is the separator after a single letter at i: one space, one punctuation mark,
// or one symbol (an emoji), if a single letter follows it.
func letterSeparator(t string, i int) string {
	if i >= len(t) {
		return ""
	}
	r, size := utf8.DecodeRuneInString(t[i:])
	if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\n' || r == '\t' || size > 4 {
		return ""
	}
	if i+size < len(t) && singleLetter(t, i+size) {
		return t[i : i+size]
	}
	return ""
}

// decodeAnchors are words instructions are made of; a transformation of the text that makes two
// of them appear (rotation, reversal, leetspeak) is treated as a payload.
var decodeAnchors = []string{"ignore", "instruction", "previous", "system", "disregard", "prompt", "password", "secret",
	"assistant", "forget", "rules", "reveal", "delete", "transfer", "funds", "token", "admin", "export", "approve", "email",
	// model v7: the words of tool misuse and exfiltration (at most 32 anchors: they are bits of a uint32)
	"conversation", "history", "execute", "payment", "account", "credential", "override", "developer", "command",
	"upload", "forward", "environment"}

// anchorsIn is the set of decodeAnchors (bit i for decodeAnchors[i]) that s contains, found in
// the same single pass as transformAnchors.
func anchorsIn(s string) uint32 {
	rot, _ := transformAnchors(s)
	return rot[0]
}

// transformWord says what one word of transformIndex stands for: anchor number anchor, as the
// text holds it where its rotation by shift spells the anchor, or reversed (shift -1).
type transformWord struct {
	anchor uint8
	shift  int8
}

// transformIndex finds in one pass over a text every anchor that each Caesar rotation of the text
// and its reversal would spell. A rotation keeps every byte where it is and maps lower-case letters
// to lower-case letters only, so rotate(t, s) holds an anchor (all lower-case letters) exactly
// where t holds rotate(anchor, 26-s); an ASCII word reads backwards in the reversed runes exactly
// where t holds it reversed. This replaces building 25 rotations and the reversal of every short
// text and searching each for every anchor, which was half of DetectInjection's time on a small
// tool result.
//
// A function with a sync.Once rather than a sync.OnceValues variable: the latter allocates its
// closure at package initialisation, in every command (TestVersionInitialisersStayInBudget).
func transformIndex() ([]transformWord, *multiIndex) {
	transformOnce.Do(buildTransformIndex)
	return transformWho, transformFinder
}

var (
	transformOnce   sync.Once
	transformWho    []transformWord
	transformFinder *multiIndex
)

func buildTransformIndex() {
	var who []transformWord
	var words []string
	for i, w := range decodeAnchors {
		for shift := range 26 {
			who, words = append(who, transformWord{uint8(i), int8(shift)}), append(words, rotate(w, (26-shift)%26))
		}
		b := []byte(w)
		slices.Reverse(b)
		who, words = append(who, transformWord{uint8(i), -1}), append(words, string(b))
	}
	transformWho, transformFinder = who, newMultiIndex(words)
}

// transformAnchors is, for each shift, the set of anchors rotate(t, shift) contains (shift 0: t
// itself), and the set its reversal contains.
func transformAnchors(t string) (rot [26]uint32, rev uint32) {
	who, finder := transformIndex()
	finder.each(t, func(i, _ int) bool {
		w := who[i]
		if w.shift < 0 {
			rev |= 1 << w.anchor
		} else {
			rot[w.shift] |= 1 << w.anchor
		}
		return true
	})
	return rot, rev
}

// maxShiftScan bounds the text scanned for Caesar shifts, reversal and leetspeak.
const maxShiftScan = 4096

// scanTransforms tries the letter rotations other than ROT13 (a Caesar shift by any amount),
// reversal ("snoitcurtsni suoiverp erongi") and leetspeak ("1gn0r3 pr3v10u5"). A candidate that
// spells two instruction words the text does not is a payload; rotations and leetspeak keep byte
// positions, so their evidence maps back exactly. Which anchors the rotations and the reversal
// spell is found in one pass (transformAnchors); a candidate text is built only when it is a
// payload, or, for leetspeak and hyphenation, only when the text has a byte they would change.
func (n *Normalized) scanTransforms() {
	t := n.Text
	if len(t) == 0 || len(t) > maxShiftScan {
		return
	}
	rot, rev := transformAnchors(t)
	own := rot[0]
	for shift := 1; shift < 26 && len(n.Payloads) < maxPayloads; shift++ {
		if shift == 13 {
			continue
		}
		if bits.OnesCount32(rot[shift]&^own) >= 2 {
			n.addSignal(SignalEncoded, 0)
			n.Payloads = append(n.Payloads, Payload{Encoding: "caesar", Start: int(n.offsets[0]), End: int(n.offsets[len(t)]),
				Decoded: rotate(t, shift), offsets: n.offsets})
			break
		}
	}
	if bits.OnesCount32(rev&^own) >= 2 && len(n.Payloads) < maxPayloads {
		n.addSignal(SignalEncoded, 0)
		n.Payloads = append(n.Payloads, Payload{Encoding: "reversed", Start: int(n.offsets[0]), End: int(n.offsets[len(t)]), Decoded: reverseRunes(t)})
	}
	var spots [64][2]int // on the stack: a short text seldom has more rewritten words
	if strings.ContainsAny(t, leetBytes) {
		if leet, runs := unleet(t, spots[:0]); leet != t && bits.OnesCount32(anchorsNear(leet, runs)&^own) >= 2 && len(n.Payloads) < maxPayloads {
			n.addSignal(SignalEncoded, 0)
			n.Payloads = append(n.Payloads, Payload{Encoding: "leet", Start: int(n.offsets[0]), End: int(n.offsets[len(t)]),
				Decoded: leet, offsets: n.offsets})
		}
	}
	if strings.IndexByte(t, '-') >= 0 {
		if joined, joins := dehyphen(t, spots[:0]); joined != t && bits.OnesCount32(anchorsNear(joined, joins)&^own) >= 1 && len(n.Payloads) < maxPayloads {
			n.addSignal(SignalEncoded, 0)
			n.Payloads = append(n.Payloads, Payload{Encoding: "hyphenated", Start: int(n.offsets[0]), End: int(n.offsets[len(t)]), Decoded: joined})
		}
	}
}

func rotate(s string, shift int) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+byte(shift))%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+byte(shift))%26
		}
	}
	return string(b)
}

func reverseRunes(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// leetBytes are the bytes leetMap rewrites: unleet changes nothing in a text without them.
const leetBytes = "0134578@$"

// leetMap undoes the usual digit-for-letter substitutions.
var leetMap = map[byte]byte{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '@': 'a', '$': 's'}

// leetTable is leetMap as a table, for the per-byte loop of unleet.
var leetTable = func() (t [256]byte) {
	for k, v := range leetMap {
		t[k] = v
	}
	return t
}()

// anchorsNear is the set of decodeAnchors that s holds within reach of the spots, spans of s
// (in order) where s differs from a text t it was made from; for an anchor t does not hold that
// is anchorsIn(s). An occurrence of an anchor that t lacks must overlap a spot, so it lies
// within the anchor's length of one, and the rest of s is t's text: scanTransforms had read the
// whole of the leet and the dehyphenated text again for the few words those rewrite, two
// passes of a large index over every short tool result with a digit or a hyphen.
func anchorsNear(s string, spots [][2]int) uint32 {
	reach := 0
	for _, a := range decodeAnchors {
		reach = max(reach, len(a)-1)
	}
	var found uint32
	for i := 0; i < len(spots); {
		lo, hi := max(0, spots[i][0]-reach), min(len(s), spots[i][1]+reach)
		for i++; i < len(spots) && spots[i][0]-reach <= hi; i++ { // windows that overlap are read once
			hi = min(len(s), max(hi, spots[i][1]+reach))
		}
		found |= anchorsIn(s[lo:hi])
	}
	return found
}

// unleet rewrites words that mix letters with leet digits, keeping every byte position. It
// returns s itself, without copying, when no word needs rewriting, and appends the span of each
// word it rewrote to runs.
func unleet(s string, runs [][2]int) (string, [][2]int) {
	var b []byte
	for i := 0; i < len(s); {
		j := i
		letters, leet := 0, 0
		for j < len(s) && (isASCIILetter(s[j]) || leetTable[s[j]] != 0) {
			if isASCIILetter(s[j]) {
				letters++
			} else {
				leet++
			}
			j++
		}
		if j == i {
			i++
			continue
		}
		if leet > 0 && letters > 0 || leet >= 2 && j-i >= 3 {
			if b == nil {
				b = []byte(s)
			}
			for k := i; k < j; k++ {
				if m := leetTable[b[k]]; m != 0 {
					b[k] = m
				}
			}
			runs = append(runs, [2]int{i, j})
		}
		i = j
	}
	if b == nil {
		return s, runs
	}
	return string(b), runs
}

// dehyphen joins letters split by hyphens inside a word ("dis-re-gard"), and appends to joins
// an empty span at each place in the result where it removed one.
func dehyphen(s string, joins [][2]int) (string, [][2]int) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '-' && i > 0 && i+1 < len(s) && isASCIILetter(s[i-1]) && isASCIILetter(s[i+1]) {
			joins = append(joins, [2]int{len(b), len(b)})
			continue
		}
		b = append(b, s[i])
	}
	return string(b), joins
}

// scanEntities decodes runs of HTML character references ("&#105;&#103;&#110;"), also when the
// words of references are separated by plain spaces.
func (n *Normalized) scanEntities() {
	s := n.cased
	for i := 0; i < len(s) && len(n.Payloads) < maxPayloads; {
		k := strings.Index(s[i:], "&#")
		if k < 0 {
			return
		}
		start := i + k
		j, count := start, 0
		for j < len(s) && strings.HasPrefix(s[j:], "&#") {
			end := strings.IndexByte(s[j:min(len(s), j+10)], ';')
			if end < 0 {
				break
			}
			j += end + 1
			count++
			if j+2 < len(s) && s[j] == ' ' && strings.HasPrefix(s[j+1:], "&#") {
				j++ // words of references separated by plain spaces are one payload
			}
		}
		if count >= 3 {
			if d := html.UnescapeString(s[start:j]); readable([]byte(d)) {
				n.addPayload("html", start, j, d)
			}
		}
		i = max(j, start+2)
	}
}

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' ||
		c == '-' || c == '_' || c == '='
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// base64Bytes and hexBytes are isBase64Byte and isHexByte as tables, for scanRuns' per-byte loop.
var base64Bytes, hexBytes = byteTable(isBase64Byte), byteTable(isHexByte)

func byteTable(in func(byte) bool) (t [256]bool) {
	for c := range 256 {
		t[c] = in(byte(c))
	}
	return t
}

// scanAlphabetRuns finds the maximal runs of base64 bytes, then of hex digits, in the cased text
// and keeps those that decode, base64 payloads before hex ones. Every hex digit is a base64 byte
// and the bytes around a base64 run are not, so a maximal hex run of minHexRun digits lies in a
// base64 run at least as long: the text is read once, and only those base64 runs are searched
// for hex (two passes over every byte were a fifth of Normalize's time on ordinary text).
func (n *Normalized) scanAlphabetRuns() {
	var small [16][2]int
	long := small[:0] // base64 runs of at least minHexRun bytes
	s := n.cased
	// Only runs of minHexRun bytes or more matter, so the loop probes the byte minHexRun-1 past
	// i: when it is not a base64 byte no such run holds it, and none starts before it. i always
	// follows a byte that is not one (or is 0), so a run found from a probe starts at or after i.
	// On prose, where words are short, this reads one byte in a few.
	for i := 0; i+minHexRun-1 < len(s) && len(n.Payloads) < maxPayloads; {
		p := i + minHexRun - 1
		if !base64Bytes[s[p]] {
			i = p + 1
			continue
		}
		start, j := p, p+1
		for start > i && base64Bytes[s[start-1]] {
			start--
		}
		for j < len(s) && base64Bytes[s[j]] {
			j++
		}
		if i = start; j-i >= minHexRun {
			long = append(long, [2]int{i, j})
		}
		if j-i >= minBase64Run {
			if d, ok := decodeBase64(s[i:j]); ok {
				n.addPayload("base64", i, j, d)
			}
		}
		i = j + 1 // s[j] is not a base64 byte (or j is the end)
	}
	for _, run := range long {
		n.scanRuns(run[0], run[1], &hexBytes, minHexRun, "hex", decodeHex)
	}
}

// scanRuns finds maximal runs of alphabet bytes in the cased text between from and to and keeps
// those that decode.
func (n *Normalized) scanRuns(from, to int, in *[256]bool, minLen int, enc string, decode func(string) (string, bool)) {
	s := n.cased[:to]
	for i := from; i < len(s) && len(n.Payloads) < maxPayloads; {
		if !in[s[i]] {
			i++
			continue
		}
		j := i
		for j < len(s) && in[s[j]] {
			j++
		}
		if j-i >= minLen {
			if d, ok := decode(s[i:j]); ok {
				n.addPayload(enc, i, j, d)
			}
		}
		i = j
	}
}

func (n *Normalized) addPayload(enc string, casedStart, casedEnd int, decoded string) {
	if len(n.Payloads) >= maxPayloads {
		return
	}
	if len(decoded) > maxPayloadBytes {
		decoded = decoded[:maxPayloadBytes]
	}
	start, end := n.casedOffset(casedStart), n.casedOffset(casedEnd)
	n.addSignal(SignalEncoded, start)
	n.Payloads = append(n.Payloads, Payload{Encoding: enc, Start: start, End: end, Decoded: decoded})
}

// decodeBase64 decodes run as unpadded standard or URL-safe base64 and keeps it when it is
// readable. A short run, most of those in ordinary text (checksums, identifiers), is decoded in
// a stack buffer, so a run that does not decode to text costs no allocation (DecodeString made
// one per encoding tried, most of Normalize's allocations on a tool result with checksums).
func decodeBase64(run string) (string, bool) {
	run = strings.TrimRight(run, "=")
	var stack [128]byte
	src := append(stack[:0:64], run...) // a copy, as DecodeString makes, on the stack when short
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		dst := stack[64:]
		if n := enc.DecodedLen(len(src)); n > len(dst) {
			dst = make([]byte, n)
		}
		if n, err := enc.Decode(dst, src); err == nil && readable(dst[:n]) {
			return string(dst[:n]), true
		}
	}
	return "", false
}

func decodeHex(run string) (string, bool) {
	if len(run)%2 == 1 {
		run = run[:len(run)-1]
	}
	b, err := hex.DecodeString(run)
	if err != nil || !readable(b) {
		return "", false
	}
	return string(b), true
}

// scanEscapedHex decodes runs of \xHH escapes. It jumps from backslash to backslash: most text
// has none.
func (n *Normalized) scanEscapedHex() {
	s := n.cased
	for i := 0; i+3 < len(s) && len(n.Payloads) < maxPayloads; i++ {
		k := strings.IndexByte(s[i:], '\\')
		if k < 0 || i+k+3 >= len(s) {
			return
		}
		if i += k; s[i+1] != 'x' {
			continue
		}
		var b []byte
		j := i
		for j+3 < len(s)+0 && s[j] == '\\' && s[j+1] == 'x' && isHexByte(s[j+2]) && isHexByte(s[j+3]) {
			v, _ := hex.DecodeString(s[j+2 : j+4])
			b = append(b, v...)
			j += 4
		}
		if len(b) >= minHexRun/2 && readable(b) {
			n.addPayload("hex", i, j, string(b))
		}
		i = max(i, j-1)
	}
}

// scanURLEncoded decodes whitespace-separated tokens holding several %HH escapes. Only tokens
// with a '%' can, so it jumps from one to the next: reading every token of a text that has none
// cost as much as normalising it.
func (n *Normalized) scanURLEncoded() {
	s := n.cased
	for i := 0; i < len(s) && len(n.Payloads) < maxPayloads; {
		k := strings.IndexByte(s[i:], '%')
		if k < 0 {
			return
		}
		// the token holding that '%' starts after the last space, newline or tab before it
		start := i + k
		for start > i && s[start-1] != ' ' && s[start-1] != '\n' && s[start-1] != '\t' {
			start--
		}
		i = start
		j := i
		escapes := 0
		for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' {
			if s[j] == '%' && j+2 < len(s) && isHexByte(s[j+1]) && isHexByte(s[j+2]) {
				escapes++
			}
			j++
		}
		if escapes >= minURLEscapes {
			if d, err := url.QueryUnescape(s[i:j]); err == nil && readable([]byte(d)) {
				n.addPayload("url", i, j, d)
			}
		}
		i = j
	}
}

// scanROT13 treats the whole text as a ROT13 payload when its rotation spells two or more of the
// words instructions are made of. ROT13 keeps byte positions, so evidence maps back exactly.
func (n *Normalized) scanROT13() {
	if len(n.Payloads) >= maxPayloads || len(n.Text) == 0 {
		return
	}
	// the text holds rot13(w) exactly where rot13(text) holds w: search the rotated anchors in
	// the text itself, and rotate it only when it is a payload
	hits := 0
	for i, w := range rot13Anchors {
		if indexRare(n.Text, rot13AnchorsRotated()[i]) >= 0 && !strings.Contains(n.Text, w) {
			hits++
		}
	}
	if hits < 2 {
		return
	}
	rot := rot13(n.Text)
	n.addSignal(SignalEncoded, 0)
	n.Payloads = append(n.Payloads, Payload{Encoding: "rot13", Start: int(n.offsets[0]), End: int(n.offsets[len(n.Text)]),
		Decoded: rot, offsets: n.offsets})
}

func rot13(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

// readable reports whether decoded bytes look like natural-language text: valid UTF-8, mostly
// printable, with at least one letter and a space — or, for the scripts written without spaces
// (Chinese, Japanese, Thai), at least four of their characters and none of the control bytes
// binary has. Random binary almost never passes: it is seldom valid UTF-8 for long, let alone
// a run of such characters.
func readable(b []byte) bool {
	if len(b) < 8 || !utf8.Valid(b) {
		return false
	}
	printable, letters, spaces, unspaced, total := 0, 0, 0, 0, 0
	for _, r := range string(b) {
		total++
		switch {
		case r == ' ':
			spaces++
			printable++
		case unicode.IsLetter(r):
			letters++
			printable++
			if r >= 0x0E00 && isRunRune(r) {
				unspaced++
			}
		case unicode.IsPrint(r) || r == '\n' || r == '\t':
			printable++
		}
	}
	return (spaces > 0 || unspaced >= 4) && letters*2 >= total && float64(printable) >= minPrintableRatio*float64(total)
}

// extractMarkup pulls out HTML and markdown comments and link or image targets. Their text is
// already in n.Text and scanned there; extracting them lets the detector weigh text hidden from a
// rendered view, and lets the exfiltration family inspect URLs.
func (n *Normalized) extractMarkup() {
	t := n.Text
	n.findDelimited("<!--", "-->", "html_comment", &n.Comments)
	for _, marker := range []string{"[//]:", "[comment]:"} {
		for i := 0; len(n.Comments) < maxExtracts; {
			k := strings.Index(t[i:], marker)
			if k < 0 {
				break
			}
			s := i + k
			e := strings.IndexByte(t[s:], '\n')
			if e < 0 {
				e = len(t) - s
			}
			n.addExtract("md_comment", s, s+e, &n.Comments)
			i = s + e
		}
	}
	if len(n.Comments) > 0 {
		n.addSignal(SignalHiddenComment, n.Comments[0].Start)
	}
	for i := 0; len(n.Links) < maxExtracts; {
		k := strings.Index(t[i:], "](")
		if k < 0 {
			break
		}
		s := i + k + 2
		e := strings.IndexAny(t[s:], ") \n")
		if e < 0 {
			e = len(t) - s
		}
		kind := "link"
		if endsInImageText(t[max(0, i+k-512) : i+k]) {
			kind = "image"
		}
		n.addExtract(kind, s, s+e, &n.Links)
		i = s + e
	}
	for _, attr := range markupAttrs {
		for i := 0; len(n.Links) < maxExtracts; {
			k := indexRare(t[i:], attr)
			if k < 0 {
				break
			}
			s := i + k + len(attr.s)
			e := strings.IndexByte(t[s:], attr.s[len(attr.s)-1])
			if e < 0 {
				e = len(t) - s
			}
			kind := "link"
			if attr.s[0] == 's' {
				kind = "image"
			}
			n.addExtract(kind, s, s+e, &n.Links)
			i = s + e
		}
	}
}

// markupAttrs are the attributes whose values extractMarkup takes as link targets, each with the
// offset of its '=' (rareByteOffset's choice, TestMarkupAttrsKeyOnTheirRarestByte). An array
// literal, not built at start-up.
var markupAttrs = [...]rareNeedle{{`src="`, 3}, {`href="`, 4}, {`src='`, 3}, {`href='`, 4}}

// endsInImageText reports whether w ends inside an image's alt text: its last "![" is not
// followed by a ']'. One backward scan stops at whichever of the two comes last, where a
// strings.LastIndex of "![" read all of w for every link (and a search for ']' followed).
func endsInImageText(w string) bool {
	for j := len(w) - 1; j > 0; j-- {
		switch w[j] {
		case ']':
			return false
		case '[':
			if w[j-1] == '!' {
				return true
			}
		}
	}
	return false
}

func (n *Normalized) findDelimited(open, closer, kind string, into *[]Extract) {
	t := n.Text
	for i := 0; len(*into) < maxExtracts; {
		k := strings.Index(t[i:], open)
		if k < 0 {
			return
		}
		s := i + k
		e := strings.Index(t[s+len(open):], closer)
		end := len(t)
		if e >= 0 {
			end = s + len(open) + e + len(closer)
		}
		n.addExtract(kind, s, end, into)
		i = end
	}
}

// addExtract records a span of n.Text (Start/End are offsets into n.Text; Text is the folded text).
func (n *Normalized) addExtract(kind string, s, e int, into *[]Extract) {
	*into = append(*into, Extract{Kind: kind, Start: s, End: e, Text: n.Text[s:e]})
}
