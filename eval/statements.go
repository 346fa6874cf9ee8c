package eval

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// statement is one clause of a response or of a context item, analysed for alignment: its
// content tokens (stemmed), its figures, whether it is negated, and which of its values it marks
// as superseded.
type statement struct {
	text      string
	tokens    []token
	figs      []figure
	neg       bool
	refutes   bool // carries a refutation cue, whose scope is the whole reported proposition
	verdict   bool // says nothing but that a report is false ("That was wrong."): a verdict on the statement before
	conjStart bool // opens with "and" (or its equivalents): a new predicate, outside a refutation's scope
	anaphoric bool // opens with a pronoun whose referent is in the statement before
	history   bool // says it reports a past value ("used to", "previously", "was")
	past      bool // says so strongly ("used to", "previously", "formerly"): a retraction does not reverse it
	change    bool // reports a change of value ("rose from", "was replaced by")
	current   bool // says its value holds now ("it now costs", "desde enero", "теперь"): a same-kind value before it is retired
	instead   bool // names a value it replaces ("at 9:00 instead of 8:00", "au lieu de", "statt")
}

// token is one content word, stemmed so inflections meet.
type token struct {
	key     string
	pos     int  // byte offset in the lower-cased statement
	salient bool // capitalised inside the statement, or carries a digit: a name, a model, a place
	// initialCap: capitalised as the first word, which may be a name or just a sentence start;
	// lower: written in lower case (so not a name).
	initialCap, lower bool
	// noun: capitalised after a German article ("mit dem Bus", "im Jahr"): a common noun as
	// often as a name, so a claim's noun the context never uses is not a name it never mentions
	// (check_groundedness/10). Its salience is kept: "zum Flughafen" against "zum Hauptbahnhof"
	// is still another place.
	noun bool
	old  bool // inside the scope of a supersession cue
	cjk  bool // a character bigram of Han or kana text, which does not follow word boundaries
}

// Sets built once from the lexicon.
var (
	// stopOrPermissionSet is what isStopWord asks of every word: one lookup, not one per list
	stopOrPermissionSet = sync.OnceValue(func() map[string]bool {
		return setOf(append(slices.Clip(stopWords), permissionWords...))
	})
	negationSet = sync.OnceValue(func() map[string]bool {
		return setOf(negationCues)
	})
	negatorSet = sync.OnceValue(func() map[string]bool {
		return setOf(negators)
	})
	refutationSet = sync.OnceValue(func() map[string]bool {
		return setOf(refutationCues)
	})
	anaphorSet = sync.OnceValue(func() map[string]bool {
		return setOf(anaphors)
	})
	contrastSet = sync.OnceValue(func() map[string]bool {
		return setOf(contrastWords)
	})
)

func setOf(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func isStopWord(w string) bool { return stopOrPermissionSet()[w] }

// apostrophes folds typographic apostrophes so "can’t" is "can't".
var apostrophes = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'", "`", "'")
})

// Levels of splitStatements.
const (
	splitSentences = iota // sentence ends and line breaks only
	splitClauses          // also semicolons and contrastive conjunctions ("but", "mais", "但")
	splitFine             // also commas, brackets and "and": the pieces a sentence listing several facts is made of
)

// splitStatements splits text at the given level. Spans are byte offsets in text.
func splitStatements(text string, level int) [][2]int {
	fine := level == splitFine
	var out [][2]int
	start := 0
	emit := func(end int) {
		s, e := trimSpan(text, start, end)
		if e > s {
			if out == nil {
				out = make([][2]int, 0, splitEstimate(text[start:]))
			}
			out = append(out, [2]int{s, e})
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		cut, skip := 0, size
		switch {
		case r == '\n' || r == '。' || r == '！' || r == '？' || r == '!' || r == '?':
			cut = i + size
		case level > splitSentences && (r == ';' || r == '；'):
			cut = i + size
		case r == '.':
			if sentenceDot(text, i) {
				cut = i + size
			}
		case fine && (r == ',' || r == '，' || r == '、' || r == '(' || r == ')' || r == '（' || r == '）'):
			if r != ',' || !digitAround(text, i) {
				cut = i + size
			}
		case level > splitSentences && (r == ',' || r == ' ' || r == '，' || r == '、'):
			// a contrastive word after a comma or a space starts a new statement
			j := i + size
			for j < len(text) && text[j] == ' ' {
				j++
			}
			if splitsBefore(text[j:], r == ',', fine) {
				cut, skip = i, j-i
			} else if r == '，' || r == '、' {
				if cw := leadingCJKContrast(text[j:]); cw != "" {
					cut, skip = i, j-i+len(cw)
				}
			}
		case level > splitSentences && r >= 0x3000:
			if cw := leadingCJKContrast(text[i:]); cw != "" && i > 0 {
				cut, skip = i, len(cw)
			}
		}
		if cut > 0 {
			emit(cut)
			start = cut + (skip - size)
			if r != '.' && r != ',' && cut == i {
				start = i + skip
			}
		}
		i += skip
	}
	emit(len(text))
	return out
}

// splitEstimate bounds, for most texts, how many statements splitStatements finds in text: one
// more than its ASCII sentence ends, semicolons, commas and brackets. The slice is sized once from
// it instead of grown from one span (a contrastive word or a CJK end beyond it grows it as before).
func splitEstimate(text string) int {
	n := 1
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '.', '\n', ';', '!', '?', ',', '(':
			n++
		}
	}
	return n
}

// splitsBefore reports whether the word at the start of s starts a statement of its own after a
// space or comma (a comma when comma): a contrastive word, a consequence after a comma, or in a
// fine split a conjunction. splitStatements asks after every space: an ASCII word is lower-cased
// into a buffer on the stack, where leadingWord allocates for every capitalised word.
func splitsBefore(s string, comma, fine bool) bool {
	var buf [24]byte
	n := 0
	for n < len(s) && n < len(buf) {
		c := s[n]
		if c|0x20 < 'a' || c|0x20 > 'z' {
			break
		}
		buf[n] = c | 0x20
		n++
	}
	if n == len(buf) || n < len(s) && s[n] >= utf8.RuneSelf {
		w := leadingWord(s) // a long word, or one that goes on in another script
		return contrastSet()[w] || comma && consequenceWords()[w] || fine && (conjunction(w) || causal(w))
	}
	w := string(buf[:n]) // does not escape: converted on the stack
	if n > 0 && !groundednessReference {
		k := uint16(buf[0]) << 8
		if n > 1 {
			k |= uint16(buf[1])
		}
		if f := splitPrefixes(); !f.contrast.has(k) && (!comma || !f.consequence.has(k)) {
			return fine && (conjunction(w) || causal(w)) // no contrastive (or consequence) word starts so: no lookup
		}
	}
	return contrastSet()[w] || comma && consequenceWords()[w] || fine && (conjunction(w) || causal(w))
}

// prefixSet holds two-byte word prefixes (a one-byte word as its byte and 0).
type prefixSet [1 << 16 / 64]uint64

func (p *prefixSet) add(w string) {
	k := uint16(w[0]) << 8
	if len(w) > 1 {
		k |= uint16(w[1])
	}
	p[k/64] |= 1 << (k % 64)
}

func (p *prefixSet) has(k uint16) bool { return p[k/64]&(1<<(k%64)) != 0 }

// splitPrefixes are the first two bytes of the contrastive and the consequence words, so
// splitsBefore looks up only the words that may be one (splitStatements asks after every space).
var splitPrefixes = sync.OnceValue(func() *struct{ contrast, consequence prefixSet } {
	f := &struct{ contrast, consequence prefixSet }{}
	for w := range contrastSet() {
		if w != "" {
			f.contrast.add(w)
		}
	}
	for w := range consequenceWords() {
		if w != "" {
			f.consequence.add(w)
		}
	}
	return f
})

func conjunction(w string) bool {
	switch w {
	case "and", "et", "y", "und", "и", "e", "including", "y,":
		return true
	}
	return false
}

// causal reports whether w opens a cause ("because of a hamstring injury", "porque", "weil"),
// which a fine split makes a piece of its own: a negation before it does not reach it ("will not
// play because of an injury" says that there is an injury; check_groundedness/9).
func causal(w string) bool {
	switch w {
	case "because", "parce", "porque", "weil", "потому", "поскольку":
		return true
	}
	return false
}

// leadingWord is the lower-cased first word of s. splitStatements asks for it after every space,
// so ASCII letters are taken without decoding runes or asking unicode.IsLetter (which says yes to
// exactly these among ASCII).
func leadingWord(s string) string {
	end := 0
	for end < len(s) {
		if c := s[end]; c < utf8.RuneSelf {
			if c|0x20 < 'a' || c|0x20 > 'z' {
				break
			}
			end++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsLetter(r) || isCJK(r) {
			break
		}
		end += size
	}
	return strings.ToLower(s[:end])
}

func leadingCJKContrast(s string) string {
	for _, w := range contrastWordsCJK {
		if strings.HasPrefix(s, w) {
			return w
		}
	}
	return ""
}

// sentenceDot reports whether the '.' at i ends a sentence: followed by space or end, and not
// after an abbreviation, an initial or inside a number.
func sentenceDot(t string, i int) bool {
	if i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\n' && t[i+1] != '"' && t[i+1] != ')' {
		return false
	}
	if i > 0 && t[i-1] >= '0' && t[i-1] <= '9' && i+2 < len(t) && t[i+1] == ' ' {
		// a German ordinal ("zum 1. Juli", "am 3. März"): a day number before a month name
		if _, ok := months()[strings.ToLower(leadingWord(t[i+2:]))]; ok {
			return false
		}
	}
	j := i
	for j > 0 && isASCIILetter(t[j-1]) {
		j--
	}
	w := strings.ToLower(t[j:i])
	if _, month := months()[w]; month && len(w) <= 4 && i+2 < len(t) && t[i+2] >= '0' && t[i+2] <= '9' {
		return false // an abbreviated month before its day: "Mar. 15"
	}
	switch w {
	case "dr", "mr", "mrs", "ms", "st", "e.g", "i.e", "etc", "vs", "no", "nr", "fig", "sec", "art", "para", "approx", "inc", "ltd", "co", "jr", "sr", "prof", "z.b", "bzw", "ca", "ggf", "usw":
		return false
	}
	return i-j != 1 || j <= 0 || t[j-1] != ' ' || t[j] < 'A' || t[j] > 'Z'
}

func digitAround(t string, i int) bool {
	return i > 0 && i+1 < len(t) && t[i-1] >= '0' && t[i-1] <= '9' && t[i+1] >= '0' && t[i+1] <= '9'
}

// trimSpan trims spaces and closing punctuation from both ends of text[s:e].
func trimSpan(text string, s, e int) (int, int) {
	for s < e {
		r, size := utf8.DecodeRuneInString(text[s:])
		if !unicode.IsSpace(r) && !strings.ContainsRune(",;:-–—、，", r) {
			break
		}
		s += size
	}
	for e > s {
		r, size := utf8.DecodeLastRuneInString(text[s:e])
		if !unicode.IsSpace(r) && !strings.ContainsRune(",;:-–—、，", r) {
			break
		}
		e -= size
	}
	return s, e
}

// wordScratch holds the word slices analyze scans statements into.
var wordScratch = sync.Pool{New: func() any { ws := make([]word, 0, 64); return &ws }}

// analyze turns a statement's text into tokens, figures, polarity and supersession marks.
func analyze(raw string) statement {
	st := statement{text: raw}
	t := raw
	switch {
	case !groundednessReference && isASCII(raw):
		// valid, NFKC already and no digit of another script: only the backquote to fold
		if strings.IndexByte(t, '`') >= 0 {
			t = apostrophes().Replace(t)
		}
	default:
		t = strings.ToValidUTF8(raw, "\uFFFD")
		if strings.ContainsAny(t, "’‘ʼ`") { // the Replacer copies the text even when it replaces nothing
			t = apostrophes().Replace(t)
		}
		t = foldDigits(norm.NFKC.String(t))
	}
	lower := lowerSameLength(t)
	// the words live only while the statement is analysed (tokens and figures keep strings, not
	// words): one scratch slice, reused from statement to statement, instead of one or two each
	scratch := wordScratch.Get().(*[]word)
	defer func() { wordScratch.Put(scratch) }()
	figs, blanked, ws := extractFiguresInto(*scratch, lower)
	st.figs = figs
	masked := blanked
	if maskedPhrases().anyIn(blanked) {
		masked = maskFraming(maskExceptions(blanked))
	}
	if masked != lower { // a figure or a phrase blanked: its words are not the text's
		ws = scanWordsInto(ws, masked)
	}
	*scratch = ws[:0]
	lower = masked
	st.neg = hasNegation(lower, t, ws)
	var buf [64]uint16
	cues := scanCues(ws, buf[:0])
	st.refutes = cues.has(cueRefutation)
	st.conjStart = conjunction(leadingWord(lower))
	markSupersession(&st, lower, &cues)
	st.history = cues.has(cueHistory)
	st.past = cues.has(cuePast)
	st.tokens = contentTokens(t, ws)
	st.verdict = cues.has(cueVerdict) && bareVerdict(st)
	markOldTokens(&st, &cues)
	if w := leadingWord(lower); anaphorSet()[w] || proDropNegation(lower, w) {
		st.anaphoric = true
	}
	return st
}

// foldDigits writes every decimal digit of another script as its ASCII digit ("٤٥٠٠" and "४५००"
// are 4500; check_groundedness/7), which NFKC leaves as they are: a figure is the same figure in
// any script. Byte offsets after a folded digit move; the text is the statement's own analysis
// text, which every offset of its tokens and figures refers to.
func foldDigits(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r > unicode.MaxASCII && unicode.IsDigit(r) })
	if i < 0 {
		return s
	}
	b := []byte(s[:i])
	for _, r := range s[i:] {
		if r > unicode.MaxASCII && unicode.IsDigit(r) {
			if d := digitValue(r); d >= 0 {
				b = append(b, byte('0'+d))
				continue
			}
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// digitValue is the value of a decimal digit (Unicode category Nd, whose digits run in blocks of
// ten from zero), or -1.
func digitValue(r rune) int {
	for z := r; z >= r-9; z-- {
		if !unicode.IsDigit(z) {
			return int(r - z - 1)
		}
	}
	return -1
}

// lowerSameLength lower-cases s rune by rune, keeping a rune whose lower case has another UTF-8
// length, so byte offsets in the result are offsets in s.
func lowerSameLength(s string) string {
	// ASCII text (most statements) is lowered byte by byte, and returned as it is when it has no
	// capital
	ascii, upper := true, false
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < utf8.RuneSelf
		upper = upper || s[i] >= 'A' && s[i] <= 'Z'
	}
	if ascii && !upper {
		return s
	}
	// written once into a Builder, which hands its bytes over, rather than into a slice
	// converted (copied) to a string
	var b strings.Builder
	b.Grow(len(s))
	if ascii {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	for _, r := range s {
		l := unicode.ToLower(r)
		if utf8.RuneLen(l) != utf8.RuneLen(r) {
			l = r
		}
		b.WriteRune(l)
	}
	return b.String()
}

// maskedPhrases indexes every phrase maskExceptions and maskFraming blank: a statement that holds
// none of them (almost every one) is left as it is after one pass, instead of one search per
// phrase. When one occurs the two run as they are.
var maskedPhrases = sync.OnceValue(func() *multiIndex {
	phrases := slices.Concat(negationExceptions, negationExceptionsCJK, framingPhrases())
	return newMultiIndex(phrases)
})

// maskExceptions blanks phrases that contain a negation cue without negating ("not only").
func maskExceptions(s string) string {
	for _, e := range negationExceptions {
		if strings.Contains(s, e) {
			s = strings.ReplaceAll(s, e, strings.Repeat(" ", len(e)))
		}
	}
	for _, e := range negationExceptionsCJK {
		if strings.Contains(s, e) {
			s = strings.ReplaceAll(s, e, "□"+strings.Repeat("□", utf8.RuneCountInString(e)-1))
		}
	}
	return s
}

// framingPhrases introduce a claim by what people believe ("contrary to popular belief"): they are
// neither content nor polarity. "Myth" is not among them: it is the denial.
var framingPhrases = sync.OnceValue(func() []string {
	return []string{"contrary to popular belief", "contrary to a popular belief", "contrary to a common belief",
		"contrary to common belief", "contrary to what many people think", "contrary to what many believe",
		"contrary to the popular", "contrary to a popular", "contrary to popular", "contrary to a common",
		"contrary to the common", "contrary to", "despite popular belief", "despite the common belief",
		"contrairement à une idée reçue", "contrairement aux idées reçues", "contrairement à ce que l'on croit",
		"contrairement à", "entgegen der landläufigen meinung", "entgegen der verbreiteten annahme", "entgegen",
		"al contrario de lo que se cree", "contrariamente a lo que se cree", "contrariamente a", "a diferencia de lo que se cree",
		"вопреки распространённому мнению", "вопреки распространенному мнению", "вопреки"}
})

// maskFraming blanks framing phrases.
func maskFraming(s string) string {
	for _, e := range framingPhrases() {
		if strings.Contains(s, e) {
			s = strings.ReplaceAll(s, e, strings.Repeat(" ", len(e)))
		}
	}
	return s
}

// hasNegation reports whether a lower-cased statement carries a negation cue. A cue written as
// part of a name ("404 Not Found") does not count: capitalised inside the statement and followed
// by another capitalised word.
func hasNegation(s, cased string, words []word) bool {
	// the word cues, by word index: a word of denial that a negator just before it negates
	// ("not cancelled", "n'a pas interdit") affirms, and the pair says nothing (check_groundedness/9)
	var cueBuf [8]negCue
	cues := cueBuf[:0]
	for k, w := range words {
		switch w.kind {
		case 'w':
			if k > 0 && k+1 < len(words) && len(cased) == len(s) && titleCase(cased[w.start:w.end]) && titleCase(cased[words[k+1].start:words[k+1].end]) {
				continue
			}
			parts, n := elisions(w.s)
			for _, part := range parts[:n] {
				if hasArabicMarks(part) {
					part = stripArabicMarks(part) // "يُمنع" is "يمنع" with a vowel written
				}
				if part == "no" && portuguese(scanWords(lowerSameLength(cased))) { // every word: a figure ("18 anos") is blanked in words
					continue // "no clube": "in the"
				}
				if part == "no" && len(cased) == len(s) && numeroSign(cased, w.end) { // cased: figures are blanked in s
					continue // "Bus No. 24", "№ 24", "nº 24": the number sign
				}
				if negationSet()[part] || strings.HasSuffix(part, "n't") {
					cues = append(cues, negCue{at: k, negator: strings.HasSuffix(part, "n't") || negatorSet()[part], refutes: refutationSet()[part]})
				} else if k+1 < len(words) && ceases(part, words[k+1]) {
					cues = append(cues, negCue{at: k})
				}
			}
			if r, _ := utf8.DecodeRuneInString(w.s); unicode.Is(unicode.Hangul, r) {
				for _, c := range negationCuesHangul {
					if strings.Contains(w.s, c) {
						return true
					}
				}
			}
			for _, c := range negationInfixesTurkish {
				if len(w.s) >= len(c)+2 && strings.Contains(w.s, c) {
					return true
				}
			}
		case 'c':
			for _, c := range negationCuesCJK {
				if strings.Contains(w.s, c) {
					return true
				}
			}
		}
	}
	return polarityOf(cues)
}

// numeroSign reports whether the "no" that ends at end of statement s (its figures in place) is the
// number sign: followed by an optional full stop and a number ("Bus No. 24", "room no 5"), as
// "№" and "nº" read once folded. Before a number that begins a compound ("no 24-hour
// pharmacy") it is not the sign, and stays a negation. hasNegation and negationAt both ask it,
// so that the polarity and the place of the cue agree.
func numeroSign(s string, end int) bool {
	i := end
	if i < len(s) && s[i] == '.' {
		i++
	}
	for n := 0; n < 2 && i < len(s) && s[i] == ' '; n++ {
		i++
	}
	if i == end || i >= len(s) || s[i] < '0' || s[i] > '9' {
		return false // "no" must be set off from the number: "no24" is a code, not a sign
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == len(s) || s[i] != '-'
}

// ceases reports whether w, followed by the word next, is a word of denial that needs the word
// after it to be one: a verb of stopping, in the past or the future, before what stopped
// ("stopped serving", "dejó de prestar", "smesso di"), or a phrasal verb of exclusion or refusal
// ("ruled out", "turned down", "phased out", "dropped support"). Alone each has another sense
// ("the bus stopped", "turned the page", "prices dropped"), so only the pair denies; and the
// present tells a schedule, not an end ("the café stops serving food at 17:00"), so it is left
// out (check_groundedness/11).
func ceases(w string, next word) bool {
	if next.kind != 'w' {
		return false
	}
	switch w {
	case "stopped":
		return strings.HasSuffix(next.s, "ing") && len(next.s) > 5 && !ingFunctionWord(next.s)
	case "arrêté":
		return next.s == "de" || strings.HasPrefix(next.s, "d'") || strings.HasPrefix(next.s, "d’")
	}
	return cessationPair(w, next.s)
}

// ingFunctionWord reports whether w, ending in "ing", is a preposition or a pronoun rather than
// what stopped: "the train stopped during the strike" tells when it stopped, it denies nothing
// (check_groundedness/13).
func ingFunctionWord(w string) bool {
	switch w {
	case "during", "according", "including", "regarding", "concerning", "following", "pending", "excluding",
		"considering", "nothing", "something", "anything", "everything", "notwithstanding", "outstanding":
		return true
	}
	return false
}

// cessationPair reports whether next makes a pair with w that denies, for the words whose pair is
// fixed. A switch, not a table: a table would be built at start-up, in every command.
func cessationPair(w, next string) bool {
	switch w {
	case "ruled", "rules", "rule", "ruling", "phased", "phases", "phasing":
		return next == "out"
	case "turned", "turns", "turn", "turning":
		return next == "down"
	case "dropped", "drops", "dropping":
		return next == "support"
	case "dejó", "dejaron", "dejado", "dejará", "dejarán", "deixou", "deixaram", "parou", "pararam":
		return next == "de"
	case "smesso", "cessato":
		return next == "di"
	}
	return false
}

// portugueseMarkers are words that only Portuguese, of the languages whose "no" negates, uses.
var portugueseMarkers = map[string]bool{"anos": true, "em": true, "uma": true, "um": true, "ao": true, "aos": true,
	"pelo": true, "pela": true, "são": true, "é": true, "não": true, "também": true, "você": true, "o": true,
	"os": true, "do": true, "da": true, "das": true}

// portuguese reports whether a statement's words are Portuguese, where "no" and "na" mean "in
// the" ("no clube"), not "no" as in Spanish and English: a marker word, or ã, õ or ç in a word,
// and no English function word. HEURISTIC: a guess from a few words, not language detection.
func portuguese(words []word) bool {
	found := false
	for _, w := range words {
		if w.kind != 'w' {
			continue
		}
		if englishMarkers[w.s] {
			return false // "What do I do if no one answers": English "do", English "no"
		}
		found = found || portugueseMarkers[w.s] || strings.ContainsAny(w.s, "ãõç")
	}
	return found
}

// englishMarkers are English function words: a statement with one is not Portuguese.
var englishMarkers = map[string]bool{"the": true, "is": true, "are": true, "and": true, "of": true, "to": true,
	"you": true, "if": true, "one": true, "in": true, "with": true, "for": true}

// hasArabicMarks reports whether w carries Arabic vowel marks (harakat, U+064B–U+065F, U+0670),
// which a text may write or leave out: "يُمنع" and "يمنع" are one word.
func hasArabicMarks(w string) bool {
	return strings.ContainsFunc(w, isArabicMark)
}

func isArabicMark(r rune) bool { return r >= 0x064B && r <= 0x065F || r == 0x0670 }

// stripArabicMarks removes Arabic vowel marks.
func stripArabicMarks(w string) string {
	return strings.Map(func(r rune) rune {
		if isArabicMark(r) {
			return -1
		}
		return r
	}, w)
}

// negCue is one negation cue of a statement: its word's index, and whether it is a negator
// ("not", "ne", "pas", "nicht", "не") rather than a word of denial ("cancelled", "interdit").
type negCue struct {
	at      int
	negator bool
	refutes bool // a refutation cue ("denied", "debunked", "खंडन"), which reverses what it reports
}

// negatedDenialWindow is how many words before a word of denial a negator negates it: "was not
// cancelled", "n'a pas interdit", "não foi cancelada".
const negatedDenialWindow = 3

// polarityOf is a statement's polarity from its word cues: a word of denial with a negator at most
// negatedDenialWindow words before it takes every negator there with it and says nothing (negative
// concord and "ne … pas" are one negation); of the cues left, a negator negates, and otherwise a
// refutation reverses the word of denial it reports: "denied reports that it is closing the
// plant" affirms what "closing" denies. HEURISTIC: a negator's scope is not parsed, so beside a
// refutation it is taken to negate the statement ("contrary to the myth, it cannot be seen").
func polarityOf(cues []negCue) bool {
	var usedBuf [8]bool
	used := usedBuf[:0]
	for range cues {
		used = append(used, false)
	}
	for i, c := range cues {
		if c.negator {
			continue
		}
		for j := i - 1; j >= 0 && cues[j].at >= c.at-negatedDenialWindow; j-- {
			if cues[j].negator && !used[j] {
				used[i], used[j] = true, true
			}
		}
	}
	refuted, denial, negator := false, false, false
	for i, c := range cues {
		switch {
		case used[i]:
		case c.refutes:
			refuted = true
		case c.negator:
			negator = true
		default:
			denial = true
		}
	}
	if negator {
		return true // "contrary to the myth, it cannot be seen": a negator keeps its own scope
	}
	if refuted {
		return !denial
	}
	return denial
}

// germanArticles are the German articles and article-bearing prepositions after which a capital
// marks a common noun. Words shared with another corpus language's function words ("den", "des",
// "am", "das") are left out.
var germanArticles = sync.OnceValue(func() map[string]bool {
	return setOf([]string{"der", "die", "dem", "ein", "eine", "einer", "einem", "einen", "eines", "im", "zum", "zur",
		"vom", "beim", "ins", "kein", "keine", "keiner", "keinem", "keinen", "jede", "jeder", "jedem", "jeden"})
})

func germanArticle(w string) bool { return germanArticles()[w] }

// maxAttributives is how many lower-case words (adjectives, numerals) may stand between a German
// article and its noun: two, so that a relative pronoun's "die morgen in Köln" does not reach a name.
const maxAttributives = 2

func titleCase(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// elisions splits French and Italian elided articles and pronouns: "l'abonnement" is "l'" and
// "abonnement", "n'inclut" is "n'" and "inclut". The parts are parts[:n]: an array, not a slice,
// because every word of every statement is split, and a slice would be allocated for each.
func elisions(w string) (parts [2]string, n int) {
	if i := strings.IndexByte(w, '\''); i > 0 && i < 3 && i+1 < len(w) && !strings.HasSuffix(w, "n't") {
		return [2]string{w[:i+1], w[i+1:]}, 2
	}
	return [2]string{w}, 1
}

// skipWords are the stop, permission, negation and contrastive words in one set: contentTokens
// asks of every word, one lookup instead of three.
var skipWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, set := range []map[string]bool{stopOrPermissionSet(), negationSet(), contrastSet()} {
		for w, ok := range set {
			if ok {
				m[w] = true
			}
		}
	}
	return m
})

func skipWord(w string) bool {
	if groundednessReference {
		return isStopWord(w) || negationSet()[w] || contrastSet()[w]
	}
	return skipWords()[w]
}

// contentTokens stems the content words of t (case kept, for salience) using lower for the
// words, where figures and exceptions are already blanked.
func contentTokens(t string, words []word) []token {
	out := make([]token, 0, len(words)) // mostly fewer, seldom more (an elided word gives two)
	first := true
	// noun: the word follows a German article ("dem Bus", "im Jahr", "einer schriftlichen
	// Vereinbarung"), so its capital may mark a common noun rather than a name (token.noun)
	noun, reach := false, 0 // reach: how many more words an article's noun may be away
	skipDown := false       // the "down" of "turned down", a cue with the word before it
	for k, w := range words {
		if w.kind != 'w' {
			noun, reach = false, 0
		}
		if w.kind == 'w' && (skipDown && w.s == "down" || k+1 < len(words) && ceases(w.s, words[k+1])) {
			// a verb of stopping is a cue, not content, as a word of denial is; what stopped
			// ("serving", "support") stays content
			skipDown = !skipDown && words[k+1].s == "down"
			first = false
			continue
		}
		skipDown = false
		switch w.kind {
		case 'w':
			orig := t[w.start:min(len(t), w.end)]
			capital := titleCase(orig)
			noun = capital && reach > 0
			switch {
			case germanArticle(w.s):
				reach = 1 + maxAttributives
			case reach > 0 && !capital && len(w.s) > 1:
				reach-- // an adjective or a numeral between ("der neue Bus", "einer schriftlichen Vereinbarung")
			default:
				reach = 0
			}
			parts, n := elisions(w.s)
			for _, part := range parts[:n] {
				if (skipWord(part) || strings.HasSuffix(part, "n't") || strings.HasSuffix(part, "'")) && (len(part) != 1 || len(orig) != 1 || orig[0] < 'A' || orig[0] > 'Z') {
					continue
				}
				runes := utf8.RuneCountInString(part)
				if runes == 1 {
					// a letter that names something: Model X, Appendix D; not the article opening a
					// sentence ("A public garage ...")
					if capital && len(orig) == len(part) && part != "i" && (!first || !isStopWord(part)) {
						out = append(out, token{key: part, salient: true, pos: w.start})
					}
					continue
				}
				out = append(out, token{key: stem(part), salient: capital && !first, noun: noun, initialCap: capital && first, lower: !capital, pos: w.start})
			}
			first = false
		case 'c':
			for _, tk := range cjkTokens(w.s) {
				tk.pos, tk.salient, tk.cjk = w.start, true, true // no capitals to tell names by: every word may be one
				out = append(out, tk)
			}
			first = false
		case 'n':
			first = false
		}
	}
	if len(out) == 0 {
		return nil // as before it was sized: a statement without content words has none
	}
	return out
}

// cjkTokens turns a Han/kana run into tokens: hiragana (particles, endings) and negation cues
// split the run; each piece gives its character bigrams, or itself when it is one character.
func cjkTokens(s string) []token {
	if synonymIndexCJK().anyIn(s) { // the Replacer copies s even when it replaces nothing
		s = synonymReplacerCJK().Replace(s)
	}
	for _, list := range [][]string{negationCuesCJK, changeVerbsCJK, oldCuesCJK, newCuesCJK, permissionWordsCJK, {"现已", "現在", "以前"}} {
		for _, c := range list {
			s = strings.ReplaceAll(s, c, "・")
		}
	}
	var out []token
	var piece []rune
	flush := func() {
		switch {
		case len(piece) == 1:
			out = append(out, token{key: string(piece)})
		case len(piece) > 1:
			for i := 0; i+1 < len(piece); i++ {
				out = append(out, token{key: string(piece[i : i+2])})
			}
		}
		piece = piece[:0]
	}
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana) || r == '・' || r == '□' || !isCJK(r) || strings.ContainsRune(cjkNumerals, r) || strings.ContainsRune(cjkFunctionChars, r) {
			flush()
			continue
		}
		piece = append(piece, r)
	}
	flush()
	return out
}

// cjkFunctionChars are Chinese function characters (particles, copulas, demonstratives) that cut
// a run into words the way hiragana does in Japanese.
const cjkFunctionChars = "有是的了在与及也都就而或被把对为以于这那该其此之等将会能可要所"

// irregular maps English irregular forms to their base, so "taken" meets "take".
var irregular = sync.OnceValue(func() map[string]string {
	return map[string]string{"taken": "take", "took": "take", "given": "give", "gave": "give", "written": "write",
		"wrote": "write", "made": "make", "gone": "go", "went": "go", "done": "do", "seen": "see", "saw": "see",
		"known": "know", "shown": "show", "held": "hold", "built": "build", "sent": "send", "spent": "spend",
		"paid": "pay", "found": "find", "brought": "bring", "bought": "buy", "taught": "teach", "told": "tell",
		"sold": "sell", "kept": "keep", "lent": "lend", "ran": "run", "began": "begin", "begun": "begin",
		"chose": "choose", "chosen": "choose", "drove": "drive", "driven": "drive", "flew": "fly", "flown": "fly",
		"grew": "grow", "grown": "grow", "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall",
		"won": "win", "came": "come", "led": "lead", "met": "meet", "left": "leave", "cut": "cut", "lost": "lose",
		"children": "child", "people": "person", "staff": "staff", "employees": "employee", "women": "woman", "men": "man"}
})

// stem reduces a lower-case word to a key that its inflections and its synonyms share: stemWord,
// then the synonym group's key (synonymGroups), so "staff" meets "employees".
func stem(w string) string {
	k := stemWord(w)
	if s, ok := synonymKeys()[k]; ok {
		return s
	}
	return k
}

// stemWord reduces a lower-case word to a key that its inflections share: a light English suffix
// strip (a plural, then "-ing", "-ed" or "-ly", and a doubled final consonant: "rankings" and
// "ranked" are "rank", "running" is "run", "weekly" is "week") and a German ge- prefix strip,
// diacritics folded, then a prefix (five runes for Latin and Greek letters, four for Cyrillic,
// which inflects more).
func stemWord(w string) string {
	if b, ok := irregular()[w]; ok {
		w = b
	}
	w = foldDiacritics(w)
	r, _ := utf8.DecodeRuneInString(w)
	n := utf8.RuneCountInString(w)
	switch {
	case unicode.Is(unicode.Cyrillic, r):
		return prefixRunes(stripCyrillicEnding(w), 5)
	case unicode.Is(unicode.Latin, r):
		plural := false
		switch {
		case strings.HasSuffix(w, "ies") && n > 4:
			w = w[:len(w)-3] + "y"
		case strings.HasSuffix(w, "ing") && n > 5:
			w = undouble(w[:len(w)-3])
		case strings.HasSuffix(w, "ed") && n > 4:
			w = undouble(w[:len(w)-2])
		case strings.HasSuffix(w, "es") && n > 4:
			w = w[:len(w)-2]
		case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && n > 3:
			w, plural = w[:len(w)-1], true
		case strings.HasSuffix(w, "ly") && n > 5:
			w = w[:len(w)-2]
		}
		if n = len(w); plural && strings.HasSuffix(w, "ing") && n > 5 {
			w = undouble(w[:n-3]) // "rankings", "bookings", "listings"
		}
		if strings.HasPrefix(w, "ge") && utf8.RuneCountInString(w) >= 7 {
			w = w[2:]
		}
		if strings.HasSuffix(w, "e") && utf8.RuneCountInString(w) > 3 {
			w = w[:len(w)-1]
		}
		return prefixRunes(w, 5)
	case unicode.Is(unicode.Greek, r):
		return prefixRunes(w, 5)
	}
	return w
}

// undouble drops a doubled final consonant left by an English suffix strip ("runn", "stopp"),
// keeping "ll", "ss" and "zz", which the base word has too ("spell", "pass").
func undouble(w string) string {
	n := len(w)
	if n < 3 || w[n-1] != w[n-2] || strings.IndexByte("bdfgmnprt", w[n-1]) < 0 {
		return w
	}
	return w[:n-1]
}

func prefixRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// foldDiacritics removes combining marks from Latin letters ("é" is "e", "ä" is "a") and folds
// Cyrillic "ё" to "е".
func foldDiacritics(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(w) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r == 'ß':
			b.WriteString("ss")
		case r == 'ё':
			b.WriteRune('е')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markSupersession flags the figures and tokens a statement marks as superseded or current:
// "from X to Y" (X old, Y new), "previously X", "X (deprecated)", "now Y", "replaced X with Y".
func markSupersession(st *statement, lower string, cues *stmtCues) {
	st.change = reportsChange(cues)
	st.current = cues.has(cueNow)
	oldAt, newAt := cues.ends(cueOld), cues.ends(cueNew)
	// a cue marks the first figure after it
	for _, c := range oldAt {
		if i := firstFigureAfter(st.figs, c, 40); i >= 0 {
			st.figs[i].old = true
		}
	}
	for _, c := range newAt {
		if i := firstFigureAfter(st.figs, c, 24); i >= 0 {
			st.figs[i].new = true
		}
	}
	// from: the figures a change names after its "from" ("moved from 30 November to 15
	// December"): the old value, whatever comes before it; the pair rule below must not make one
	// of them the new value of a figure before it ("Update 12 Nov: … moved from 30 November to
	// 15 December" had 12 Nov old and 30 November new) (check_groundedness/17)
	var from uint64
	for i := range st.figs {
		f := &st.figs[i]
		before := strings.TrimSpace(lower[max(0, f.start-8):f.start])
		if st.change && hasLaterComparable(st.figs, i) && (strings.HasSuffix(before, "from") || strings.HasSuffix(before, "von") ||
			strings.HasSuffix(before, "de") || strings.HasSuffix(before, "с") || strings.HasSuffix(before, "从") || strings.HasSuffix(before, "原为")) {
			f.old = true
			if i < 64 {
				from |= 1 << i
			}
		}
	}
	for i := range st.figs {
		f := &st.figs[i]
		after := lower[f.end:min(len(lower), f.end+40)]
		if strings.HasPrefix(strings.TrimSpace(after), "(deprecated") || strings.HasPrefix(strings.TrimSpace(after), "(superseded") ||
			strings.Contains(after, "no longer") || strings.Contains(after, "ya no") || strings.HasPrefix(after, "でしたが") {
			f.old = true
		}
		if i > 0 && st.change && comparableFigures(st.figs[i-1], *f) && !st.figs[i-1].new && (i >= 64 || from&(1<<i) == 0) {
			st.figs[i-1].old = true
			f.new = true
		}
	}
	// a statement that calls itself old ("was 32 psi in the old manual") retires all its figures
	if len(oldAt) > 0 && len(newAt) == 0 {
		for i := range st.figs {
			st.figs[i].old = true
		}
	}
	for i := range st.figs {
		if st.figs[i].new {
			st.figs[i].old = false
		}
	}
	markInstead(st, cues)
}

// insteadCues name the value they are followed by as the one replaced: "opens at 9:00 instead of
// 8:00", "au lieu de 8 h", "en lugar de", "statt um 8 Uhr", "вместо 8:00". The figure after one is
// old even where "instead" alone would mark it current (check_groundedness/14).
var (
	insteadCues = []string{"instead of", "rather than", "in place of", "au lieu de", "au lieu du", "au lieu des",
		"en lugar de", "en vez de", "em vez de", "em lugar de", "invece di", "anstatt", "anstelle von", "statt",
		"вместо"}
	insteadCuesCJK = []string{"而不是", "代替", "ではなく"}
)

// insteadWindow is how many bytes after an instead cue its figure may start ("instead of the usual €25").
const insteadWindow = 24

// markInstead marks the figure after each instead cue as the replaced one.
func markInstead(st *statement, cues *stmtCues) {
	if len(st.figs) == 0 {
		return
	}
	cues.each(cueInstead, func(_, e int) {
		if f := firstFigureAfter(st.figs, e, insteadWindow); f >= 0 {
			st.figs[f].old, st.figs[f].new = true, false
			st.instead = true
		}
	})
}

// reportsChange reports whether a change cue of the statement reports a change. A participle
// used as an adjective does not: after a determiner ("the reduced fee", "an extended warranty",
// "the revised terms") or opening a heading before a noun ("Revised guidance (v3): …", "Updated
// schedule"). Read as changes, they retired the first of two same-kind figures ("2 tablets every
// 6 hours, up to 8 tablets") and kept a claim that names the "reduced fee" from being checked
// for a superseded value (check_groundedness/12).
func reportsChange(cues *stmtCues) bool {
	found := false
	cues.each(cueChange, func(s, _ int) {
		if found {
			return
		}
		k := slices.IndexFunc(cues.ws, func(w word) bool { return w.start == s })
		if k < 0 || !attributiveAt(cues.ws, k) {
			found = true
		}
	})
	return found
}

// attributiveAt reports whether word k stands as an adjective: first in the statement before
// another word (a heading), after an English determiner ("the reduced fee"; an English cue
// only, as French "a" is a verb: "le magasin a modifié"), or as a participle after a Romance
// determiner and the noun it opens ("le tarif réduit", "la cuota reducida"), where a verb would
// have an auxiliary before it ("le tarif est réduit", "a été réduit").
func attributiveAt(ws []word, k int) bool {
	isWord := func(i int) bool { return i >= 0 && i < len(ws) && ws[i].kind == 'w' }
	switch {
	case k == 0:
		return isWord(1)
	case isWord(k-1) && changeDeterminer(ws[k-1].s) && isASCII(ws[k].s):
		return isWord(k + 1)
	case k >= 2 && isWord(k-1) && isWord(k-2) && romanceDeterminer(ws[k-2].s) && !auxiliary(ws[k-1].s) && romanceParticiple(ws[k].s):
		return true
	}
	return false
}

// romanceParticiple reports whether w ends as a French, Spanish, Italian or Portuguese past
// participle does ("réduit", "prolongée", "reducida", "modificato"): only a participle follows its
// noun as an adjective; a finite verb there is the verb ("la cotisation passe de 40 € à 55 €").
func romanceParticiple(w string) bool {
	for _, end := range []string{"é", "ée", "és", "ées", "it", "ite", "its", "ites", "ido", "ida", "idos", "idas",
		"ado", "ada", "ados", "adas", "ato", "ata", "ati", "ate", "uto", "uta"} {
		if strings.HasSuffix(w, end) {
			return true
		}
	}
	return false
}

// changeDeterminer reports whether w is an English determiner after which a change verb's
// participle is an adjective ("the reduced fee").
func changeDeterminer(w string) bool {
	switch w {
	case "the", "a", "an", "this", "these", "that", "those", "our", "your", "its", "their", "his", "her", "my":
		return true
	}
	return false
}

// romanceDeterminer reports whether w opens a noun that a French, Spanish, Italian or Portuguese
// adjective follows.
func romanceDeterminer(w string) bool {
	switch w {
	case "le", "la", "les", "un", "une", "el", "los", "las", "una", "il", "lo", "gli", "o", "os", "as", "um", "uma",
		"ce", "cette", "ces", "este", "esta", "nuestro", "nuestra", "notre", "votre":
		return true
	}
	return false
}

// auxiliary reports whether w stands between a noun and a participle that is a verb ("le tarif
// est réduit").
func auxiliary(w string) bool {
	switch w {
	case "a", "est", "sont", "été", "ont", "ha", "han", "fue", "es", "está", "sido", "è", "stato", "é", "foi", "será",
		"sera", "ne", "se", "va", "vient":
		return true
	}
	return false
}

// firstFigureAfter is the index of the first figure starting within window bytes after pos.
func firstFigureAfter(figs []figure, pos, window int) int {
	for i, f := range figs {
		if f.start >= pos && f.start-pos <= window {
			return i
		}
	}
	return -1
}

func hasLaterComparable(figs []figure, i int) bool {
	for _, g := range figs[i+1:] {
		if comparableFigures(figs[i], g) {
			return true
		}
	}
	return false
}

// near reports whether a cue ends within window bytes before pos.
func near(cues []int, pos, window int) bool {
	for _, c := range cues {
		if c <= pos && pos-c <= window {
			return true
		}
	}
	return false
}

// endCues retire what comes before them in the statement ("Anna Berg stepped down").
var endCues = []string{"stepped down", "resigned", "left the company", "retired", "no longer in use", "is no longer",
	"was discontinued", "ist ausgeschieden", "a démissionné", "dimitió", "ушёл в отставку"}

// markOldTokens flags the words a statement marks as superseded: after "from" up to "to" ("moved
// from Baker Street to King's Road"), shortly after an old cue ("formerly John Smith"), and before
// an end cue ("Anna Berg stepped down").
func markOldTokens(st *statement, cues *stmtCues) {
	oldAt, newAt := cues.ends(cueOld), cues.ends(cueNew)
	from, to := -1, -1
	if f := cues.starts(cueFrom); len(f) > 0 {
		from = f[0]
		for _, t := range cues.starts(cueTo) {
			if t > from {
				to = t
				break
			}
		}
	}
	end := -1
	if e := cues.starts(cueEnd); len(e) > 0 {
		end = e[0]
	}
	for i := range st.tokens {
		tk := &st.tokens[i]
		switch {
		case from >= 0 && to > from && tk.pos > from && tk.pos < to && st.change:
			tk.old = true
		case near(oldAt, tk.pos, 30) && !near(newAt, tk.pos, 30):
			tk.old = true
		case end > 0 && tk.pos < end:
			tk.old = true
		}
	}
}

// cyrillicEndings are Russian case and verb endings, longest first.
var cyrillicEndings = []string{"ами", "ями", "ого", "его", "ому", "ему", "ыми", "ими", "ией", "ей", "ий", "ый", "ой", "ая",
	"яя", "ое", "ее", "ые", "ие", "ов", "ев", "ам", "ям", "ах", "ях", "ом", "ем", "ую", "юю", "ть", "ет", "ют", "ит",
	"ят", "а", "я", "о", "е", "и", "ы", "у", "ю", "ь"}

// stripCyrillicEnding removes one inflectional ending, keeping at least three letters.
func stripCyrillicEnding(w string) string {
	n := utf8.RuneCountInString(w)
	for _, e := range cyrillicEndings {
		if strings.HasSuffix(w, e) && n-utf8.RuneCountInString(e) >= 3 {
			return w[:len(w)-len(e)]
		}
	}
	return w
}

// proDropNegation reports whether a statement opens with a negated verb and no subject, as
// Spanish, Italian, Portuguese, Russian and French notes do ("No incluye soporte telefónico",
// "Не включает доставку", "N'inclut pas le petit-déjeuner"): its subject is in the statement
// before, like a pronoun's referent.
func proDropNegation(lower, first string) bool {
	switch first {
	case "no", "non", "não", "не":
		return true
	case "n":
		return strings.HasPrefix(lower, "n'")
	}
	return false
}

// bareVerdict reports whether st, which holds a falsity verdict, holds nothing else: no figure,
// and only the words of verdicts, their frames and the nouns that name a report ("The report is
// inaccurate.", "经核实，该消息不实。"). A statement with words of its own ("enter the wrong PIN")
// makes a claim of its own and is no verdict on another.
func bareVerdict(st statement) bool {
	if len(st.figs) > 0 || len(st.tokens) == 0 {
		return false
	}
	return onlyVerdictWords(st.tokens)
}

// onlyVerdictWords reports whether every token is a word a bare verdict is made of.
func onlyVerdictWords(tokens []token) bool {
	keys := verdictKeys()
	for _, tk := range tokens {
		if !keys[tk.key] {
			return false
		}
	}
	return true
}

// verdictKeys are the token keys of the words a bare verdict is made of, keyed as a statement's
// words are (contentTokens), so that inflection and CJK bigrams meet as they do in alignment.
var verdictKeys = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	for _, list := range [][]string{falsityVerdicts, falsityVerdictsCJK, verdictFrames, reportNouns} {
		for _, w := range list {
			t := foldDigits(norm.NFKC.String(w))
			for _, tk := range contentTokens(t, scanWords(lowerSameLength(t))) {
				keys[tk.key] = true
			}
		}
	}
	return keys
})
