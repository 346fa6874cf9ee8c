package eval

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Signal kinds found by Normalize. Their presence is evidence in itself: honest text rarely hides
// characters or mixes alphabets inside one word.
const (
	SignalZeroWidth     = "zero_width"         // U+200B..U+200F, U+2060..U+2064, U+FEFF, U+00AD inside text
	SignalBidiControl   = "bidi_control"       // U+202A..U+202E, U+2066..U+2069 (Trojan-source reordering)
	SignalTagCharacter  = "tag_character"      // U+E0000..U+E007F: invisible ASCII ("ASCII smuggling")
	SignalConfusable    = "confusable"         // a word mixing Latin with look-alike Cyrillic/Greek letters
	SignalCompatibility = "compatibility_form" // NFKC changed a character (fullwidth, mathematical, ligature)
	SignalEncoded       = "encoded_payload"    // a base64 / hex / URL-encoded / ROT13 payload decoded to text
	SignalHiddenComment = "hidden_comment"     // an HTML or markdown comment, invisible when rendered
	SignalTruncated     = "truncated"          // the input exceeded MaxNormalizeBytes; the rest was not read
	SignalCombining     = "combining_mark"     // combining marks stacked on ASCII letters (strike-through, "zalgo")
)

// MaxNormalizeBytes bounds how much of one input Normalize reads, so hostile input costs bounded
// time and memory. Input beyond it is not scanned and the SignalTruncated signal says so.
const MaxNormalizeBytes = 1 << 20

// Signal is one kind of evasion evidence with its first position and how often it occurred.
type Signal struct {
	Kind   string `json:"kind"`
	Offset int    `json:"offset"` // byte offset of the first occurrence in the original text
	Count  int    `json:"count"`
}

// Payload is an encoded run that decoded to readable text. The decoded text is scanned like the
// original, because encoding instructions is how attackers slip them past keyword filters.
type Payload struct {
	Encoding string `json:"encoding"` // base64, hex, url, rot13 or tag
	Start    int    `json:"start"`    // original byte span of the encoded run
	End      int    `json:"end"`
	Decoded  string `json:"decoded"`
	// offsets maps each byte of Decoded to an original offset when decoding preserves positions
	// (rot13, tag characters); nil means every match maps to the whole span.
	offsets []int32
	// keep, when set, limits matches in Decoded to those overlapping these original spans (a
	// whole-text rewrite such as rejoined spaced letters must not re-report ordinary matches).
	keep [][2]int
}

// Extract is a comment or a link target pulled out of markup. Start and End are byte offsets in
// Normalized.Text (map them with OriginalSpan); Text is the folded text of the span.
type Extract struct {
	Kind  string `json:"kind"` // html_comment, md_comment, link, image
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}

// Normalized is text prepared for matching. Text is NFKC-normalised, stripped of invisible
// characters, confusable-folded (per word), lower-cased, with whitespace runs collapsed; offsets
// map every byte of it back to the original so evidence can quote what the attacker wrote.
type Normalized struct {
	Original string    `json:"-"`
	Text     string    `json:"text"`
	Signals  []Signal  `json:"signals,omitempty"`
	Payloads []Payload `json:"payloads,omitempty"`
	Comments []Extract `json:"comments,omitempty"`
	Links    []Extract `json:"links,omitempty"`

	offsets []int32 // len(Text)+1 original byte offsets (int32: input is capped at MaxNormalizeBytes)
	cased   string
	casedAt []int32 // cased text (NFKC, invisibles stripped, case kept) and its offsets (nil: identity), for decoders
	depth   int     // how many decodings deep this text is
	pooled  bool    // offsets and casedAt come from offsetPool; see release
}

// OriginalSpan maps a byte span of n.Text back to a span of n.Original. Out-of-range input is
// clamped, so a caller can never slice out of bounds with the result.
func (n *Normalized) OriginalSpan(start, end int) (int, int) {
	if len(n.offsets) == 0 {
		return 0, 0
	}
	start = clamp(start, 0, len(n.Text))
	end = clamp(end, start, len(n.Text))
	os, oe := int(n.offsets[start]), int(n.offsets[end])
	if end > start && oe <= os {
		oe = os + 1
	}
	// Extend the end to the end of the original rune it falls in.
	for oe < len(n.Original) && !utf8.RuneStart(n.Original[oe]) {
		oe++
	}
	return clamp(os, 0, len(n.Original)), clamp(oe, 0, len(n.Original))
}

// HasSignal reports whether Normalize found a signal of the given kind.
func (n *Normalized) HasSignal(kind string) bool {
	for _, s := range n.Signals {
		if s.Kind == kind {
			return true
		}
	}
	return false
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// Normalize prepares text for matching; see Normalized. It never fails: undecodable payloads are
// left alone and invalid UTF-8 is replaced rune by rune.
func Normalize(text string) Normalized {
	return normalize(text, 0, false)
}

// maxDecodeDepth bounds payload-in-payload decoding (base64 of hex of ...).
const maxDecodeDepth = 2

// normalize is Normalize at a decoding depth; with pooled set the offset tables come from
// offsetPool and the caller must release n when done with it.
func normalize(text string, depth int, pooled bool) Normalized {
	n := Normalized{Original: text, depth: depth, pooled: pooled}
	src := text
	if len(src) > MaxNormalizeBytes {
		src = src[:MaxNormalizeBytes]
		n.addSignal(SignalTruncated, MaxNormalizeBytes)
	}
	if isASCII(src) {
		n.buildASCII(src)
	} else {
		runes, ascii := n.foldRunes(src)
		if !ascii { // a look-alike is never ASCII: all-ASCII text has nothing to fold
			n.foldConfusables(runes)
		}
		n.buildText(runes)
		releaseRunes(runes)
	}
	n.extractMarkup()
	if depth < maxDecodeDepth {
		n.decodePayloads()
	}
	return n
}

// foldedRune is one rune after NFKC and stripping, with where it came from.
type foldedRune struct {
	r   rune
	off int32
}

// foldRunes applies NFKC segment by segment (keeping offsets), strips invisible characters and
// records them as signals, and decodes tag characters into a hidden payload. ascii reports
// whether every rune it kept is ASCII.
func (n *Normalized) foldRunes(src string) (out []foldedRune, ascii bool) {
	out = takeRunes(len(src))
	ascii = true
	var tags []byte
	var tagOffs []int32
	tagStart := -1
	var seg []byte
	for start := 0; start < len(src); {
		// Fast path: an ASCII byte not followed by a possible combining mark is its own
		// NFKC segment and normalises to itself.
		if c := src[start]; c < utf8.RuneSelf && (start+1 == len(src) || src[start+1] < utf8.RuneSelf) {
			out = append(out, foldedRune{r: rune(c), off: int32(start)})
			start++
			continue
		}
		var end int
		if r, size := utf8.DecodeRuneInString(src[start:]); size > 1 && !normalizeReference && nfkcInert(r) && segmentStartsAt(src, start+size) {
			// a letter NFKC leaves as it is, before the end or a rune that starts a segment
			// of its own: its own segment, normalised to itself
			end = start + size
			seg = append(seg[:0], src[start:end]...)
		} else {
			end = start + norm.NFKC.NextBoundaryInString(src[start:], true)
			if end <= start {
				end = start + size
			}
			seg = norm.NFKC.AppendString(seg[:0], src[start:end])
		}
		orig := src[start:end]
		changed := string(seg) != orig
		for i := 0; i < len(seg); {
			r, size := utf8.DecodeRune(seg[i:])
			i += size
			switch kind := invisibleKind(r); {
			case kind == SignalTagCharacter:
				n.addSignal(kind, start)
				if tagStart < 0 {
					tagStart = start
				}
				if c := r - 0xE0000; c >= 0x20 && c < 0x7F {
					tags = append(tags, byte(c))
					tagOffs = append(tagOffs, int32(start))
				}
				continue
			case kind == SignalZeroWidth && r == 0x200D && (len(out) == 0 || !unicode.IsLetter(out[len(out)-1].r)):
				continue // joiner inside an emoji sequence: ordinary text
			case kind == SignalZeroWidth && (r == 0x200C || r == 0x200D) && len(out) > 0 && joinerScript(out[len(out)-1].r):
				continue // (non-)joiner after an Arabic-script or Indic letter: how Persian, Urdu, Hindi, Bengali are spelt
			case kind != "":
				n.addSignal(kind, start)
				continue
			}
			if unicode.Is(unicode.Mn, r) && len(out) > 0 && out[len(out)-1].r < utf8.RuneSelf && isASCIILetterRune(out[len(out)-1].r) {
				// a combining mark NFKC could not compose onto an ASCII letter (strike-through,
				// "zalgo" text): it hides the word from matching, so it goes, and is a signal
				n.addSignal(SignalCombining, start)
				continue
			}
			if changed && orig != "" && orig[0] >= utf8.RuneSelf && r < utf8.RuneSelf && unicode.IsLetter(r) {
				n.addSignal(SignalCompatibility, start)
			}
			ascii = ascii && r < utf8.RuneSelf
			out = append(out, foldedRune{r: r, off: int32(start)})
		}
		start = end
	}
	if len(tags) > 0 {
		tagOffs = append(tagOffs, tagOffs[len(tagOffs)-1]+4)
		n.Payloads = append(n.Payloads, Payload{Encoding: "tag", Start: tagStart, End: int(tagOffs[len(tagOffs)-1]),
			Decoded: strings.ToLower(string(tags)), offsets: tagOffs})
	}
	return out, ascii
}

// normalizeReference turns foldRunes' inert-rune shortcut off, so that a test can compare it with
// the norm package's own segmentation. Only tests set it.
var normalizeReference bool

// inertCache remembers, two bits a rune of the Basic Multilingual Plane, whether nfkcInert holds
// (01 no, 11 yes, 00 not yet asked): the answer is the norm package's, asked once a rune and
// process, so a text in another script costs foldRunes one table read a letter instead of a
// segment search and a normalisation. Nothing is built in advance (the table is zero until asked).
var inertCache [1 << 16 / 32]atomic.Uint64

// nfkcInert reports whether r, before the end or a rune that starts a segment (segmentStartsAt),
// is its own NFKC segment and normalises to itself (TestNFKCInertRunesAreTheirOwnSegment checks every rune).
func nfkcInert(r rune) bool {
	return cachedRuneProperty(&inertCache, r, func(buf []byte) bool {
		n := utf8.EncodeRune(buf, r)
		buf[n] = 'a'
		return norm.NFKC.NextBoundary(buf[:n+1], true) == n && norm.NFKC.IsNormal(buf[:n])
	})
}

// segmentStartsAt reports whether an NFKC segment starts at src[i:] whatever precedes it: at the
// end, at an ASCII byte, or at a rune nfkcStarts accepts (the norm package ends a segment before
// a rune with no leading non-starters, whatever the rune before it is).
func segmentStartsAt(src string, i int) bool {
	if i == len(src) || src[i] < utf8.RuneSelf {
		return true
	}
	r, size := utf8.DecodeRuneInString(src[i:])
	return size > 1 && nfkcStarts(r)
}

// startsCache is inertCache for nfkcStarts.
var startsCache [1 << 16 / 32]atomic.Uint64

// nfkcStarts reports whether r, after any rune, starts an NFKC segment of its own
// (TestNFKCInertRunesAreTheirOwnSegment checks every rune after a sample of others).
func nfkcStarts(r rune) bool {
	return cachedRuneProperty(&startsCache, r, func(buf []byte) bool {
		n := utf8.EncodeRune(buf[1:], r)
		buf[0] = 'a'
		return norm.NFKC.NextBoundary(buf[:n+1], true) == 1
	})
}

// cachedRuneProperty answers prop for r from cache, asking prop (with a scratch buffer of
// utf8.UTFMax+1 bytes) the first time; runes outside the Basic Multilingual Plane, ASCII and
// U+FFFD are never accepted.
func cachedRuneProperty(cache *[1 << 16 / 32]atomic.Uint64, r rune, prop func(buf []byte) bool) bool {
	if r >= 1<<16 || r < utf8.RuneSelf || r == utf8.RuneError {
		return false
	}
	w, shift := &cache[r/32], uint(r%32)*2
	switch w.Load() >> shift & 3 {
	case 3:
		return true
	case 1:
		return false
	}
	var buf [utf8.UTFMax + 1]byte
	ok := prop(buf[:])
	bits := uint64(1)
	if ok {
		bits = 3
	}
	w.Or(bits << shift)
	return ok
}

// runePool keeps foldRunes' scratch slices: they live only until buildText has read them.
var runePool = sync.Pool{New: func() any { return new([]foldedRune) }}

func takeRunes(n int) []foldedRune {
	p := runePool.Get().(*[]foldedRune)
	if cap(*p) < n {
		return make([]foldedRune, 0, n)
	}
	return (*p)[:0]
}

func releaseRunes(r []foldedRune) {
	if cap(r) > 4*MaxNormalizeBytes/16 { // keep the pool's memory bounded
		return
	}
	runePool.Put(&r)
}

// joinerScript reports whether r is a letter or mark of a script whose spelling uses the
// zero-width (non-)joiner: Arabic (Persian writes "می‌خواهم" with one), Syriac, and the Indic
// scripts from Devanagari to Sinhala. A joiner there is orthography, not hidden text.
func joinerScript(r rune) bool {
	return r >= 0x0600 && r <= 0x08FF || r >= 0x0900 && r <= 0x0DFF
}

// invisibleKind classifies characters that render as nothing.
func invisibleKind(r rune) string {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return SignalTagCharacter
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x061C:
		return SignalBidiControl
	case r >= 0x200B && r <= 0x200F, r >= 0x2060 && r <= 0x2064, r == 0xFEFF, r == 0x00AD, r == 0x180E:
		return SignalZeroWidth
	}
	return ""
}

// foldConfusables maps look-alike letters to Latin inside words that mix them with Latin, or that
// consist only of look-alikes. Words wholly in another script (real Russian, real Greek) are kept,
// so multilingual patterns still see them.
func (n *Normalized) foldConfusables(runes []foldedRune) {
	table := confusables() // once, not per rune
	for i := 0; i < len(runes); {
		if !isWordRune(runes[i].r) {
			i++
			continue
		}
		j := i
		latin, conf, other := 0, 0, 0
		for ; j < len(runes) && isWordRune(runes[j].r); j++ {
			if runes[j].r < utf8.RuneSelf {
				latin++
				continue
			}
			r := unicode.ToLower(runes[j].r)
			isConf := false
			if r <= maxConfusable { // most text beyond it (Han, kana, Hangul, Thai) is asked no map
				_, isConf = table[r]
			}
			switch {
			case isConf:
				conf++
			case r < utf8.RuneSelf || unicode.Is(unicode.Latin, r):
				latin++
			case unicode.IsLetter(r):
				other++
			}
		}
		if conf > 0 && (latin > 0 || other == 0) {
			n.addSignal(SignalConfusable, int(runes[i].off))
			for k := i; k < j; k++ {
				if f, ok := table[unicode.ToLower(runes[k].r)]; ok {
					runes[k].r = f
				}
			}
		}
		i = j
	}
}

func isASCIILetterRune(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)
}

// buildText lower-cases, collapses whitespace, and records offsets; it also keeps a case-preserving
// copy for the decoders (base64 and hex are case-sensitive). The texts are built in place
// (strings.Builder hands its buffer over without a copy); the offset tables come from offsetPool
// when n is pooled.
func (n *Normalized) buildText(runes []foldedRune) {
	var b, c strings.Builder
	b.Grow(len(runes) + 8)
	c.Grow(len(runes) + 8)
	offs := n.takeOffsets(len(runes) + 1)
	cOffs := n.takeOffsets(len(runes) + 1)
	pendingSpace, pendingNL, spaceOff := false, false, int32(0)
	for _, fr := range runes {
		r := fr.r
		if r < utf8.RuneSelf {
			c.WriteByte(byte(r))
			cOffs = append(cOffs, fr.off)
			if asciiSpace[r] {
				if !pendingSpace {
					spaceOff = fr.off
				}
				pendingSpace = true
				pendingNL = pendingNL || r == '\n'
				continue
			}
		} else {
			start := c.Len()
			c.WriteRune(r)
			for range c.Len() - start {
				cOffs = append(cOffs, fr.off)
			}
			if unicode.IsSpace(r) {
				if !pendingSpace {
					spaceOff = fr.off
				}
				pendingSpace = true
				continue
			}
		}
		if pendingSpace {
			if pendingNL {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
			offs = append(offs, spaceOff)
			pendingSpace, pendingNL = false, false
		}
		if r < utf8.RuneSelf {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			offs = append(offs, fr.off)
			continue
		}
		start := b.Len()
		b.WriteRune(unicode.ToLower(r))
		for range b.Len() - start {
			offs = append(offs, fr.off)
		}
	}
	end := len(n.Original)
	if len(n.Original) > MaxNormalizeBytes {
		end = MaxNormalizeBytes
	}
	n.Text = b.String()
	n.offsets = append(offs, int32(end))
	n.cased = c.String()
	n.casedAt = append(cOffs, int32(end))
}

// isASCII reports whether s is all ASCII. It tests eight bytes at a time (the compiler reads
// them as one word): Normalize and the model each ask it of every text, byte by byte a tenth of
// Normalize's own time on a long ASCII tool result.
func isASCII(s string) bool {
	for ; len(s) >= 8; s = s[8:] {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// buildASCII is foldRunes and buildText for text that is all ASCII, where they change nothing but
// case and whitespace: every byte is its own NFKC segment and rune, nothing is invisible, a
// combining mark or a look-alike, so the case-kept text is src itself and its offsets are the
// byte positions, which casedAt left nil says (casedOffset). The folded text is written by index
// into a pooled scratch buffer and copied out once: a strings.Builder's WriteByte and an append
// per byte were most of Normalize's time on a long English tool result, and the identity
// offset table of the case-kept text a third of what it allocated.
func (n *Normalized) buildASCII(src string) {
	scratch := takeBytes(len(src))
	buf := *scratch
	offs := n.takeOffsets(len(src) + 1)[:len(src)+1]
	w := 0
	pendingSpace, pendingNL, spaceOff := false, false, 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c <= ' ' && asciiSpace[c] { // every space byte is at most ' ': one compare for the rest
			if !pendingSpace {
				spaceOff = i
			}
			pendingSpace = true
			pendingNL = pendingNL || c == '\n'
			continue
		}
		if pendingSpace {
			buf[w], offs[w] = ' ', int32(spaceOff)
			if pendingNL {
				buf[w] = '\n'
			}
			w++
			pendingSpace, pendingNL = false, false
		}
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		buf[w], offs[w] = c, int32(i)
		w++
	}
	offs[w] = int32(len(src))
	n.Text = string(buf[:w])
	n.offsets = offs[:w+1]
	n.cased = src
	n.casedAt = nil
	releaseBytes(scratch)
}

// casedOffset is the original byte offset of byte i of n.cased (i may be len(n.cased)): casedAt[i],
// or i itself when casedAt is nil because the case-kept text is the input (buildASCII).
func (n *Normalized) casedOffset(i int) int {
	if n.casedAt == nil {
		return i
	}
	return int(n.casedAt[i])
}

// bytePool keeps buildASCII's scratch buffers: each lives only until its text is copied out.
var bytePool = sync.Pool{New: func() any { return new([]byte) }}

// takeBytes is a scratch buffer of length size from bytePool, grown when it is too short. The
// pointer goes back to the pool with releaseBytes, so taking and returning allocate nothing.
func takeBytes(size int) *[]byte {
	p := bytePool.Get().(*[]byte)
	if cap(*p) < size {
		*p = make([]byte, size)
	}
	*p = (*p)[:size]
	return p
}

// releaseBytes returns a scratch buffer to bytePool, emptied when it is larger than any input
// Normalize reads (the pool's memory stays bounded).
func releaseBytes(p *[]byte) {
	if cap(*p) > MaxNormalizeBytes {
		*p = nil
	}
	bytePool.Put(p)
}

// asciiSpace marks the ASCII runes buildText collapses, the ones unicode.IsSpace reports: space,
// tab, newline, carriage return, vertical tab and form feed.
var asciiSpace = [utf8.RuneSelf]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true}

// offsetPool keeps the offset tables of texts normalised inside DetectInjection, which never lets
// them out of the call: they are most of what normalising allocates.
var offsetPool = sync.Pool{New: func() any { return new([]int32) }}

// takeOffsets is an empty offset table with room for size entries: from offsetPool when n is
// pooled, newly allocated otherwise (Normalize's callers own what it returns).
func (n *Normalized) takeOffsets(size int) []int32 {
	if n.pooled {
		if p := offsetPool.Get().(*[]int32); cap(*p) >= size {
			return (*p)[:0]
		}
	}
	return make([]int32, 0, size)
}

// release gives a pooled Normalized's offset tables back to offsetPool; n must not be used after.
func (n *Normalized) release() {
	if !n.pooled {
		return
	}
	for _, t := range []*[]int32{&n.offsets, &n.casedAt} {
		if s := *t; cap(s) > 0 && cap(s) <= MaxNormalizeBytes/4 { // keep the pool's memory bounded
			offsetPool.Put(&s)
		}
		*t = nil
	}
	n.pooled = false
}

// addSignal records one occurrence of a signal kind.
func (n *Normalized) addSignal(kind string, off int) {
	for i := range n.Signals {
		if n.Signals[i].Kind == kind {
			n.Signals[i].Count++
			return
		}
	}
	n.Signals = append(n.Signals, Signal{Kind: kind, Offset: off, Count: 1})
}
