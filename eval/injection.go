package eval

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// InjectionMetricVersion is pinned in every flag_injection verdict so a score can be traced to the
// pattern set that produced it. Bump it whenever patterns or weights change.
const InjectionMetricVersion = "flag_injection/10"

// AmbiguousMargin is the half-width of the band around a policy threshold inside which the
// deterministic tier does not decide alone: scores in [threshold-AmbiguousMargin,
// threshold+AmbiguousMargin) go to the judge. Outside it the heuristic verdict stands.
const AmbiguousMargin = 0.25

// Caps that keep DetectInjection bounded on hostile input.
const (
	maxAnchorHits   = 4096 // anchor occurrences examined per anchor
	maxPatternHits  = 8    // matches kept per pattern per text
	maxEvidence     = 32
	discussionLook  = 200 // bytes before a match searched for discussion cues
	discussionAhead = 120
)

// InjectionScan is the deterministic tier's result for one text.
type InjectionScan struct {
	// Score in [0,1]: the learned component's probability, which reads the pattern families'
	// matches among its features (ModelScore), or PatternScore when no model is embedded.
	Score float64 `json:"score"`
	// PatternScore is 1 - Π(1 - w) over independent pattern matches (per family, the strongest
	// match of each pattern not overlapping a stronger one), raised by obfuscation signals when a
	// family matched. HEURISTIC: weights are hand-set, see docs/scoring.md.
	PatternScore float64 `json:"patternScore"`
	// ModelScore is the learned component's probability for the most suspicious window.
	ModelScore float64  `json:"modelScore,omitempty"`
	Families   []string `json:"families,omitempty"` // families that matched, sorted
	Evidence   []Span   `json:"evidence,omitempty"` // spans in the original text
	Signals    []Signal `json:"signals,omitempty"`
}

// Band says where a score falls relative to a threshold: -1 clearly below (pass), 0 ambiguous
// (escalate to a judge), +1 clearly at or above (flag). Near the ends of [0,1] the band is cut:
// with a threshold above 1-AmbiguousMargin a score at or above the threshold is clear, and a
// score of exactly 0 (no evidence at all) is always clear, so a strict low threshold does not
// send every benign text to the judge.
//
// Band is flag_injection's band (and every metric's but check_groundedness); BandFor takes the
// metric's own margin.
func Band(score, threshold float64) int { return bandWithin(score, threshold, AmbiguousMargin) }

// GroundednessMargin is check_groundedness's half-width of the ambiguous band, narrower than
// AmbiguousMargin because its score is a fitted model's probability, which sits near 0 or 1 for
// most responses, so ±0.25 sent more of them to the judge than their accuracy called for (issue
// 14 asks for at least 90% decided without a judge). HEURISTIC, chosen on the groundedness
// training material alone (TestGroundednessBandMargins, leave-one-source-out cross-validation of
// the training recipe) as the widest margin that decides at least 90% while the accuracy of the
// decided responses stays within about a point of that at ±0.25. Under check_groundedness/7
// that was ±0.20 (0.946 decided at 0.940 accuracy, against 0.892 at 0.945); under /8, whose
// claims leave attribution frames out, ±0.25 itself decides 0.914 at 0.946 accuracy (0.947 at
// 0.944 for ±0.20), so the rule widens the band (the other candidates, the figures on the sources
// nearest new text and the held-out runs are in docs/scoring.md).
const GroundednessMargin = 0.25

// MarginFor is the half-width of metric's ambiguous band: GroundednessMargin for
// check_groundedness, AmbiguousMargin for every other metric.
func MarginFor(metric string) float64 {
	if metric == MetricGroundedness {
		return GroundednessMargin
	}
	return AmbiguousMargin
}

// BandFor is Band with metric's own margin (MarginFor): the band Evaluator uses to decide whether
// a score is clear or goes to the judge.
func BandFor(metric string, score, threshold float64) int {
	return bandWithin(score, threshold, MarginFor(metric))
}

// bandWithin is Band with a margin of the caller's: the cuts at the ends of [0,1] are the same.
func bandWithin(score, threshold, margin float64) int {
	switch {
	case score >= threshold+margin || (score >= threshold && threshold+margin > 1):
		return 1
	case score < threshold-margin || score == 0 && threshold > 0:
		return -1
	}
	return 0
}

// obfuscationWeight is how much each signal raises a score that already has a family match. A
// switch, not a map: a package-level map literal allocates at every command's start-up.
func obfuscationWeight(kind string) float64 {
	switch kind {
	case SignalConfusable:
		return 0.25
	case SignalZeroWidth:
		return 0.15
	case SignalBidiControl, SignalCombining:
		return 0.2
	case SignalTagCharacter:
		return 0.3
	case SignalEncoded:
		return 0.1
	}
	return 0
}

// hit is one pattern match, already mapped to the original text.
type hit struct {
	family, name string
	weight       float64
	raw          float64 // the pattern's weight before damping
	quoted, cued bool    // damped because quoted, or because discussion cues surround it
	start, end   int
	encoding     string
	payload      string
}

// DetectInjection runs the deterministic tier of flag_injection: normalise, match every family
// on the folded text and on every decoded payload, and combine into a score with evidence. It is
// pure, allocation-light and linear in the input (capped at MaxNormalizeBytes), so the proxy can
// call it on every tool result and tool description.
func DetectInjection(text string) InjectionScan {
	a := assessInjection(text)
	defer a.n.release()
	scan := summarize(text, &a.n, a.hits)
	scan.PatternScore = scan.Score
	if injectionModel() == nil {
		return scan
	}
	p, where := injectionModel().assess(a)
	scan.ModelScore = round3(p)
	scan.Score = round3(combineInjection(scan.PatternScore, p, dampedStrength(a.hits)))
	if p >= learnedEvidenceFloor && where[1] > where[0] && !slices.ContainsFunc(scan.Evidence, func(e Span) bool { return e.Start < where[1] && where[0] < e.End }) {
		scan.Evidence = append(scan.Evidence, Span{Start: where[0], End: where[1], Text: text[where[0]:where[1]], Family: FamilyLearned,
			Pattern: "learned model (" + modelName + ")", Weight: round3(p)})
		slices.SortStableFunc(scan.Evidence, func(x, y Span) int { return x.Start - y.Start })
		if !slices.Contains(scan.Families, FamilyLearned) {
			scan.Families = append(scan.Families, FamilyLearned)
			slices.Sort(scan.Families)
		}
	}
	return scan
}

// learnedEvidenceFloor is the model probability above which the most suspicious window is
// quoted as evidence when no pattern already covers it.
const learnedEvidenceFloor = 0.5

// assessment is what one text's scan is made of: the normalised text, the decoded payloads
// normalised in turn, the pattern hits, and the text-level features the learned component reads.
type assessment struct {
	n        Normalized
	payloads []string
	hits     []hit
	global   [numGlobal]float64
}

// assessInjection normalises text and runs every pattern family. a.n's offset tables are pooled:
// a caller that is done with a may release a.n (DetectInjection does).
func assessInjection(text string) assessment {
	a := assessment{n: normalize(text, 0, true)}
	n := &a.n
	collectHitsAndFeatures(n, func(s, e int) (int, int) { return n.OriginalSpan(s, e) }, "", nil, &a.hits, &a.global, &a.payloads)
	if !slices.ContainsFunc(a.hits, func(h hit) bool { return h.family != FamilyObfuscation }) {
		if h, ok := agentDirectedHit(n); ok {
			a.hits = append(a.hits, h)
		}
	}
	finishFeatures(n, &a.global)
	return a
}

// collectHits matches n and, recursively, its payloads. mapSpan maps spans of n.Text to the
// original text of the top-level input.
func collectHits(n *Normalized, mapSpan func(s, e int) (int, int), encoding string, keep [][2]int, into *[]hit) {
	collectHitsAndFeatures(n, mapSpan, encoding, keep, into, nil, nil)
}

// collectHitsAndFeatures is collectHits, recording the text-level features of n (not of its
// payloads) when features is set, and the folded text of each of n's payloads, in order, in
// payloadTexts when that is set (the learned component reads them).
func collectHitsAndFeatures(n *Normalized, mapSpan func(s, e int) (int, int), encoding string, keep [][2]int, into *[]hit, features *[numGlobal]float64, payloadTexts *[]string) {
	perPattern := map[*pattern]int{}
	matchPatternsAndFeatures(n.Text, func(p *pattern, s, e int, cues *cueIndex) {
		if perPattern[p] >= maxPatternHits {
			return
		}
		perPattern[p]++
		quoted, cued := discussionContextWith(n.Text, s, e, cues)
		w := p.weight * dampFactor(quoted, cued)
		if inComment(n, s) {
			w = min(1, w+0.1)
		}
		os, oe := mapSpan(s, e)
		if keep != nil && !slices.ContainsFunc(keep, func(k [2]int) bool { return os < k[1] && k[0] < oe }) {
			return
		}
		h := hit{family: p.family, name: p.name, weight: w, raw: p.weight, quoted: quoted, cued: cued, start: os, end: oe}
		if encoding != "" {
			h.encoding, h.payload = encoding, n.Text[s:e]
			*into = append(*into, hit{family: FamilyEncoded, name: encoding + "/" + p.name,
				weight: min(0.95, w+0.2), raw: min(0.95, p.weight+0.2), quoted: quoted, cued: cued, start: os, end: oe, encoding: encoding, payload: h.payload})
		}
		*into = append(*into, h)
	}, features)
	for _, p := range n.Payloads {
		sub := normalize(p.Decoded, n.depth+1, true)
		if payloadTexts != nil {
			*payloadTexts = append(*payloadTexts, sub.Text)
		}
		pm := payloadMapper(p, &sub, mapSpan, n)
		if p.Encoding == "tag" && len(p.Decoded) >= 8 && strings.Contains(p.Decoded, " ") {
			os, oe := p.Start, p.End
			if n.depth > 0 {
				os, oe = mapSpan(0, len(n.Text))
			}
			*into = append(*into, hit{family: FamilyObfuscation, name: "hidden-tag-text", weight: 0.45,
				start: os, end: oe, encoding: "tag", payload: p.Decoded})
		}
		enc := p.Encoding
		if encoding != "" {
			enc = encoding + "+" + enc
		}
		collectHits(&sub, pm, enc, p.keep, into)
		sub.release()
	}
}

// payloadMapper maps spans of a decoded payload's folded text back to the top-level original.
func payloadMapper(p Payload, sub *Normalized, parent func(s, e int) (int, int), n *Normalized) func(s, e int) (int, int) {
	whole := func(int, int) (int, int) {
		if n.depth == 0 {
			return p.Start, p.End
		}
		return parent(0, len(n.Text))
	}
	if p.offsets == nil || n.depth > 0 {
		return whole
	}
	return func(s, e int) (int, int) {
		ds, de := sub.OriginalSpan(s, e) // offsets in p.Decoded
		ds, de = clamp(ds, 0, len(p.offsets)-1), clamp(de, 0, len(p.offsets)-1)
		return int(p.offsets[ds]), int(max(p.offsets[de], p.offsets[ds]+1))
	}
}

// cueIndex holds where discussion cues occur in a text, found by the single scan, so that
// discussionContext need not search every cue around every match.
type cueIndex struct {
	at []int32 // start of each cue, in order
}

// within reports whether a cue starts in [lo, hi).
func (c *cueIndex) within(lo, hi int) bool {
	i, _ := slices.BinarySearch(c.at, int32(lo))
	return i < len(c.at) && int(c.at[i]) < hi
}

// scanWord is one word of the single index a text is scanned with: a pattern anchor, a need word
// or a text-level feature word.
type scanWord struct {
	kind byte // 'a' anchor, 'n' need word, 'f' feature word
	id   int
}

// scanIndex is the one-pass search index of every anchor, need word and feature word, built on
// first use.
var scanIndex = sync.OnceValue(func() scanIndexed {
	words, finder := buildScanIndex()
	bounded := make([]bool, len(finder.words))
	for i, w := range finder.words {
		bounded[i] = needsBoundary(w)
	}
	return scanIndexed{words, finder, bounded}
})

// scanIndexed is the built scan index: what each word found stands for, the finder, and which
// words must start a word (needsBoundary).
type scanIndexed struct {
	words   []scanWord
	finder  *multiIndex
	bounded []bool
}

func scanWords_() []scanWord  { return scanIndex().words }
func scanFinder() *multiIndex { return scanIndex().finder }

func buildScanIndex() ([]scanWord, *multiIndex) {
	var sw []scanWord
	var words []string
	for i, a := range anchorList() {
		sw, words = append(sw, scanWord{'a', i}), append(words, a)
	}
	for i, w := range needList() {
		sw, words = append(sw, scanWord{'n', i}), append(words, w)
	}
	for i, fw := range featureWords() {
		sw, words = append(sw, scanWord{'f', i}), append(words, fw.word)
	}
	return sw, newMultiIndex(words)
}

// matchPatternsAndFeatures matches every pattern family on t in one pass over it; with features
// set, the same pass also records the text-level features.
func matchPatternsAndFeatures(t string, emit func(p *pattern, s, e int, cues *cueIndex), features *[numGlobal]float64) {
	sc := takeMatchScratch()
	defer releaseMatchScratch(sc)
	seen, needAt, cues := sc.seen, sc.needAt, &sc.cues
	anchors := sc.anchors
	defer func() { sc.anchors = anchors[:0] }()
	// the tables, fetched once: the callback runs for every word found
	words, bounded, fWords := scanWords_(), scanIndex().bounded, featureWords()
	scanFinder().each(t, func(i, pos int) bool {
		switch w := words[i]; w.kind {
		case 'a':
			if seen[w.id] < maxAnchorHits && (!bounded[i] || wordStartsAt(t, pos)) {
				seen[w.id]++
				anchors = append(anchors, occurrence{int32(w.id), int32(pos)})
			}
		case 'n':
			if len(needAt[w.id]) < maxAnchorHits && (!bounded[i] || wordStartsAt(t, pos)) {
				if len(needAt[w.id]) == 0 {
					sc.touched = append(sc.touched, int32(w.id))
				}
				needAt[w.id] = append(needAt[w.id], int32(pos))
			}
		case 'f':
			fw := fWords[w.id]
			if features != nil {
				noteFeature(t, pos, fw, features)
			}
			if fw.feature == gfDiscussion && isCue(t, pos, fw.word) {
				cues.at = append(cues.at, int32(pos))
			}
		}
		return true
	})
	anchorWords, byAnchor := anchorList(), anchorsByID()
	for _, o := range anchors {
		a, pos := anchorWords[o.anchor], int(o.pos)
		var window string
		glued := wordContinues(t, pos+len(a), a) // "run" inside "runbook"
		for _, p := range byAnchor[o.anchor] {
			if p.lineStart && !atLineStart(t, pos) || glued && !p.suffixOK {
				continue
			}
			if p.needIDs != nil && !needWithin(needAt, p.needIDs, pos, pos+patternWindow) {
				continue
			}
			if p.alsoIDs != nil && !needWithinOrUncounted(needAt, p.alsoIDs, pos, pos+patternWindow) {
				continue
			}
			if p.notAfter != nil && negatedBefore(t, pos, p.notAfter) {
				continue
			}
			if window == "" {
				window = t[pos:min(len(t), pos+patternWindow)]
			}
			if p.pre != nil && !injectionReference && !p.pre(window) {
				continue // proven not to match (TestPrefiltersNeverStopAMatch)
			}
			if loc := p.re().FindStringIndex(window); loc != nil {
				emit(p, pos, pos+loc[1], cues)
			}
		}
	}
}

// injectionReference turns the patterns' prefilters off, so that the differential tests
// (TestInjectionMatchesReference, FuzzInjectionMatchesReference) can hold the fast path to the
// expressions alone. Only tests set it.
var injectionReference bool

// occurrence is an anchor found at a position of the text being matched.
type occurrence struct{ anchor, pos int32 }

// matchScratch is matchPatternsAndFeatures' working memory: how often each anchor was seen,
// where each need word and discussion cue occurs, and the anchors found. A call would otherwise
// allocate a table per anchor and per need word (some 12 KB) even for a 100-byte text, so the
// tables are pooled and cleared for reuse.
type matchScratch struct {
	seen    []int32
	needAt  [][]int32
	touched []int32 // the need words whose lists are not empty, so clearing skips the rest
	anchors []occurrence
	cues    cueIndex
}

var matchScratchPool = sync.Pool{New: func() any {
	return &matchScratch{seen: make([]int32, len(anchorList())), needAt: make([][]int32, len(needList()))}
}}

func takeMatchScratch() *matchScratch { return matchScratchPool.Get().(*matchScratch) }

// releaseMatchScratch clears sc and returns it to the pool; lists grown past
// maxPooledPositions are dropped rather than kept.
func releaseMatchScratch(sc *matchScratch) {
	clear(sc.seen)
	for _, id := range sc.touched {
		ps := sc.needAt[id]
		if cap(ps) > maxPooledPositions {
			ps = nil
		}
		sc.needAt[id] = ps[:0]
	}
	sc.touched = sc.touched[:0]
	if cap(sc.anchors) > maxPooledPositions {
		sc.anchors = nil
	}
	if cap(sc.cues.at) > maxPooledPositions {
		sc.cues.at = nil
	}
	sc.anchors, sc.cues.at = sc.anchors[:0], sc.cues.at[:0]
	matchScratchPool.Put(sc)
}

// maxPooledPositions bounds the position lists a pooled matchScratch keeps between calls.
const maxPooledPositions = 1024

// isCue reports whether the discussion cue found at pos stands as whole words, as containsWord
// requires (CJK cues match anywhere).
func isCue(t string, pos int, cue string) bool {
	if cue[0] >= 0x80 && isRunString(cue) {
		return true
	}
	lo := max(0, pos-1)
	return containsWord(t[lo:min(len(t), pos+len(cue)+2)], cue) && (pos == 0 || !isWordByte(t[pos-1]) || !isWordByte(cue[0]))
}

// wordContinues reports whether the anchor a, ending at end, is glued to the letters of a longer
// word. Scripts written without spaces have no such boundary.
func wordContinues(t string, end int, a string) bool {
	if end >= len(t) || !isASCIILetter(a[len(a)-1]) {
		return false
	}
	return isASCIILetter(t[end])
}

// needWithin reports whether any of the need words occurs starting in [lo, hi) (it must also end
// inside the window, which the pattern then checks).
func needWithin(needAt [][]int32, ids []int, lo, hi int) bool {
	for _, id := range ids {
		ps := needAt[id]
		if len(ps) == 0 || int(ps[len(ps)-1]) < lo { // most need words are nowhere, or all behind
			continue
		}
		i, _ := slices.BinarySearch(ps, int32(lo))
		if i < len(ps) && int(ps[i]) < hi-len(needList()[id])+1 {
			return true
		}
	}
	return false
}

// needWithinOrUncounted is needWithin, true also when a word occurs more than maxAnchorHits
// times (its positions past the cap were not recorded): a pattern's also words only spare work,
// and must never stop a match.
func needWithinOrUncounted(needAt [][]int32, ids []int, lo, hi int) bool {
	for _, id := range ids {
		if len(needAt[id]) >= maxAnchorHits {
			return true
		}
	}
	return needWithin(needAt, ids, lo, hi)
}

// needsBoundary reports whether an anchor or need word found in a text counts only where it
// starts a word (wordStartsAt): whether it starts with a letter of a script written with spaces
// (Han, kana and Hangul have no word boundary to check). It depends on the word alone, so the
// scan index keeps it per word (scanIndexed.bounded) rather than asking the Unicode tables per
// occurrence.
func needsBoundary(word string) bool {
	first, _ := utf8.DecodeRuneInString(word)
	return unicode.IsLetter(first) && !unicode.In(first, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// wordStartsAt reports whether no letter, digit or '_' ends just before pos.
func wordStartsAt(t string, pos int) bool {
	if pos == 0 {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(t[:pos])
	return !unicode.IsLetter(prev) && !unicode.IsDigit(prev) && prev != '_'
}

// atLineStart reports whether only spaces and markdown markers precede pos on its line.
func atLineStart(t string, pos int) bool {
	for i := pos - 1; i >= 0; i-- {
		switch t[i] {
		case '\n':
			return true
		case ' ', '#', '*', '>', '-', '[', '(':
			continue
		default:
			return false
		}
	}
	return true
}

// discussionCues mark text that talks about injection rather than performing it.
var discussionCues = []string{
	"prompt injection", "injection attack", "jailbreak attempt", "attacker", "attackers", "for example",
	"e.g.", "such as", "phrases like", "phrase like", "strings like", "detect", "classifier", "researchers",
	"malicious", "adversarial", "red team", "example of", "known attack", "an injection", "payloads like",
	"watch out for", "be wary", "warning:", "never run", "do not run", "security advisory", "filter for",
	"firewall", "blocklist", "denylist", "detector", "detection", "detects", "sanitize", "sanitise", "we block",
	"blocks requests", "we strip", "our filter", "is blocked", "are blocked", "flags inputs", "jailbreak prompts",
	// tutorials, documentation and forums that show attack-like strings to people
	"template", "tokenizer", "chat format", "markers", "special tokens", "to install", "install the", "installation",
	"to reproduce", "runbook", "exercise", "public key", "is it safe", "write-up", "incident", "postmortem",
	"threat model", "red-team", "eval set", "negative control", "training", "course", "lesson", "workshop",
	// flag_injection/6: SDK, CLI and agent-framework documentation, install pages and transcripts
	// (held-out v4's role and tool-misuse hard negatives were flagged one time in seven and five)
	"request body", "messages array", "client library", "sdk", "api reference", "cli reference", "install:",
	"quick start", "quickstart", "getting started", "usage:", "usability study",
	// French, Spanish, German, Russian
	"attaque", "attaques", "exemple", "par exemple", "comme", "formation", "atelier", "filtre", "ataque", "ataques", //nolint:misspell // French "exemple"
	"ejemplo", "frases como", "taller", "filtro", "curso", "angriff", "angriffe", "beispiel", "schulung", "wie",
	"атака", "атаки", "атак", "пример", "вроде", "курс", "курсе", "фильтр",
	// flag_injection/6: the words for an attack, an example and a lesson in the languages the
	// override patterns of injection_patterns_intl.go added (Thai, written without spaces, is in
	// discussionCuesCJK)
	"serangan", "penyerang", "contoh", "pelatihan", "shambulio", "mshambuliaji", "mfano", "mafunzo", "angriparen",
	"angripare", "angrepet", "angreb", "angriberen", "promptinjektion", "promptinjektionen", "aanval", "aanvaller", "promptinjectie",
	"cursus", "ataku", "atak", "napastnik", "szkolenie", "útok", "útočník", "atac", "atacului", "atacatorul",
	"támadás", "támadó", "hyökkäys", "hyökkääjä", "koulutus", "επίθεση", "επιθέσεις", "επιτιθέμενος", "атаці",
	"зловмисник", "מתקפה", "מתקפת", "התוקף", "हमला", "हमले", "इंजेक्शन", "আক্রমণ", "আক্রমণে", "ইনজেকশন",
	"தாக்குதல்", "தாக்குதலில்", "حمله", "حملهٔ", "مهاجم", "حملہ", "حملے", "tấn công", "kẻ tấn công",
	"saldiri", "saldirisi", "saldirisinda", "saldirgan", "pag-atake", "halimbawa", // Turkish "ı" folds to "i"
	// flag_injection/8: the plurals and the words of a lesson, a drill or a write-up the lists
	// above had in English only (a French blog post quoting « oublie tes instructions », a
	// Spanish security course quoting «envíe el historial», were flagged as attacks)
	"phishing", "red flags", "spot the", "quiz", "blog post", "exemples", "ejemplos", "beispiele", "примеры",
	"filtres", "filtros", "détecteur", "détection", "detección", "erkennung", "обнаружение", "article de blog",
	"la phrase", "les phrases", "formación", "capacitación", "entrenamiento", "treinamento", "formazione",
	"fortbildung", "обучение", "тренинг", "arnaque", "hameçonnage", "estafa", "suplantación", "golpe",
	"betrug", "мошенничество", "intento de", "tentative de", "versuch", "попытка", "exercice", "ejercicio",
	"übung", "упражнение", "repérez", "detecte", "erkennen sie", "réponse :", "respuesta:", "antwort:",
}

// discussionCuesCJK are discussion cues in Chinese and Japanese, matched as substrings.
var discussionCuesCJK = []string{"攻击", "例子", "例如", "培训", "检测器", "攻撃", "例として", "研修", "注入", "インジェクション", "공격", "예시",
	"การโจมตี", "ตัวอย่าง", "บทความความปลอดภัย",
	// manuals and documentation (flag_injection/6), as "runbook" and "to install" in English
	"操作手册", "使用手册", "用户手册", "文档", "教程", "安装步骤", "取扱説明書", "マニュアル", "ドキュメント", "手順書"}

// dampFactor damps a match that is quoted and/or surrounded by discussion cues: security
// write-ups quote attack strings all the time. Quoting alone is weak evidence, cues alone move a
// strong match into the ambiguous band (so an attacker who adds "for example" reaches the judge,
// not a pass), and both together damp most.
func dampFactor(quoted, cue bool) float64 {
	switch {
	case quoted && cue:
		return 0.25
	case cue:
		return 0.5
	case quoted:
		return 0.75
	}
	return 1
}

// discussionContextWith is discussionContext with the cues' positions known.
func discussionContextWith(t string, s, e int, cues *cueIndex) (quoted, cue bool) {
	quoted, _ = quotedAt(t, s)
	lo := max(0, s-discussionLook)
	return quoted, cues.within(lo, min(len(t), e+discussionAhead))
}

// quotedAt reports whether position s of t is inside quotes, and where the look-back starts.
func quotedAt(t string, s int) (bool, int) {
	lo := max(0, s-discussionLook)
	before := t[lo:s]
	if nl := strings.LastIndexByte(before, '\n'); nl >= 0 && s-lo-nl > 40 {
		before = before[nl+1:]
	}
	return strings.Count(before, `"`)%2 == 1 || strings.Count(before, "`")%2 == 1 ||
		!isASCII(before) && insideTypographicQuotes(before) || insideSingleQuotes(before), lo
}

// insideTypographicQuotes reports whether text ends inside typographic quotes: an opening mark
// after the last closing one. Every mark is non-ASCII, so quotedAt asks only when text holds a
// non-ASCII byte; ten backward searches of up to discussionLook bytes for each pattern match
// were a tenth of DetectInjection's time on an 8 KiB English tool result.
func insideTypographicQuotes(text string) bool {
	return strings.LastIndex(text, "“") > strings.LastIndex(text, "”") ||
		strings.LastIndex(text, "«") > strings.LastIndex(text, "»") ||
		strings.LastIndex(text, "„") > strings.LastIndex(text, "“") ||
		strings.LastIndex(text, "「") > strings.LastIndex(text, "」") ||
		strings.LastIndex(text, "『") > strings.LastIndex(text, "』")
}

// discussionContext reports whether the match t[s:e] is quoted and whether discussion cues
// surround it.
func discussionContext(t string, s, e int) (quoted, cue bool) {
	quoted, lo := quotedAt(t, s)
	window := t[lo:min(len(t), e+discussionAhead)]
	for _, c := range discussionCues {
		if containsWord(window, c) {
			cue = true
			break
		}
	}
	for _, c := range discussionCuesCJK {
		if !cue && strings.Contains(window, c) {
			cue = true
		}
	}
	return quoted, cue
}

// insideSingleQuotes reports whether text ends inside a single-quoted span. A ' after a space or
// an opening bracket opens, one before a space or punctuation closes, and one between letters is
// an apostrophe ("it's") and ignored.
func insideSingleQuotes(text string) bool {
	open := false
	for i := 0; i < len(text); i++ {
		k := strings.IndexByte(text[i:], '\'')
		if k < 0 {
			break
		}
		i += k
		prevWord := i > 0 && isWordByte(text[i-1])
		nextWord := i+1 < len(text) && isWordByte(text[i+1])
		switch {
		case !prevWord && (nextWord || i+1 == len(text)):
			open = true
		case prevWord && !nextWord:
			open = false
		}
	}
	return open
}

// containsWord reports whether cue occurs in s as whole words: not inside a longer word, a host
// name or a path ("attacker.test" is a host, not a discussion of attackers).
func containsWord(s, cue string) bool {
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], cue)
		if k < 0 {
			return false
		}
		pos, end := i+k, i+k+len(cue)
		i = pos + 1
		if pos > 0 && isWordByte(s[pos-1]) && isWordByte(cue[0]) {
			continue
		}
		if end < len(s) && isWordByte(cue[len(cue)-1]) {
			if isWordByte(s[end]) || (strings.IndexByte("./-_@", s[end]) >= 0 && end+1 < len(s) && isWordByte(s[end+1])) {
				continue
			}
		}
		return true
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

func inComment(n *Normalized, s int) bool {
	for _, c := range n.Comments {
		if s >= c.Start && s < c.End {
			return true
		}
	}
	return false
}

// summarize combines hits and signals into a scan.
func summarize(original string, n *Normalized, hits []hit) InjectionScan {
	best := map[string]float64{}
	for _, h := range hits {
		best[h.family] = max(best[h.family], h.weight)
	}
	keep := 1.0
	for _, w := range independentWeights(hits) {
		keep *= 1 - w
	}
	families := make([]string, 0, len(best))
	for f := range best {
		families = append(families, f)
	}
	slices.Sort(families)
	obf := best[FamilyObfuscation]
	for _, s := range n.Signals {
		obf = 1 - (1-obf)*(1-obfuscationWeight(s.Kind))
	}
	score := 1 - keep
	if score > 0 {
		score = 1 - (1-score)*(1-obf)
	} else {
		score = obf * 0.5
		if best[FamilyObfuscation] > 0 {
			score = max(score, best[FamilyObfuscation])
		}
	}
	return InjectionScan{Score: round3(score), Families: families, Evidence: evidence(original, hits), Signals: n.Signals}
}

// independentWeights picks the hits that count as separate evidence: within a family, the
// strongest hit of each pattern that does not overlap a stronger hit of that family. Two
// phrasings of one attack in different places add up; two patterns matching the same words, or
// one pattern repeated, do not.
//
// It sorts the hits' positions rather than a copy of the hits, and keeps positions, so a scan
// with a dozen hits allocates two small slices instead of three tables of hits.
func independentWeights(hits []hit) []float64 {
	order := make([]int32, len(hits))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(hits[b].weight, hits[a].weight) })
	kept := order[:0] // overwrites only positions already read
	var out []float64
	for _, i := range order {
		h := &hits[i]
		if h.family == FamilyObfuscation {
			continue
		}
		if slices.ContainsFunc(kept, func(j int32) bool {
			k := &hits[j]
			return k.family == h.family && (k.name == h.name || h.start < k.end && k.start < h.end)
		}) {
			continue
		}
		kept = append(kept, i)
		out = append(out, h.weight)
	}
	return out
}

// evidence turns hits into spans of the original text, strongest first within a start position,
// without repeating a family over an overlapping span.
func evidence(original string, hits []hit) []Span {
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return int((b.weight - a.weight) * 1000)
	})
	var out []Span
	if len(hits) > 0 { // room for every span and the learned model's, without regrowing
		out = make([]Span, 0, min(len(hits), maxEvidence)+1)
	}
	for _, h := range hits {
		if len(out) >= maxEvidence {
			break
		}
		dup := false
		for _, o := range out {
			if o.Family == h.family && h.start < o.End && o.Start < h.end {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		s, e := clamp(h.start, 0, len(original)), clamp(h.end, 0, len(original))
		out = append(out, Span{Start: s, End: e, Text: original[s:e], Family: h.family, Decoded: h.encoding,
			Pattern: h.name, Payload: h.payload, Weight: round3(h.weight)})
	}
	return out
}

func round3(f float64) float64 {
	return float64(int(f*1000+0.5)) / 1000
}

// ScreenInjection is the deterministic tier of flag_injection over a whole input: the text, every
// context item it travels with, and (when there are items) all of them joined, which is where a
// payload split across pieces shows. The input scores as its worst part; evidence in a context
// item names it (Span.ContextID) with offsets in that item.
func ScreenInjection(in InjectionInput) InjectionScan {
	best := DetectInjection(in.Text)
	for _, c := range in.Context {
		s := DetectInjection(c.Content)
		if s.Score > best.Score {
			for i := range s.Evidence {
				s.Evidence[i].ContextID = c.ID
			}
			best = s
		}
	}
	if len(in.Context) == 0 {
		return best
	}
	joined := joinedText(in.Text, in.Context)
	if s := DetectInjection(joined); s.Score > best.Score {
		for i := range s.Evidence {
			s.Evidence[i] = locateInParts(s.Evidence[i], in)
		}
		best = s
	}
	return best
}

// locateInParts maps a span of joinedText back to the text or the context item it starts in.
func locateInParts(sp Span, in InjectionInput) Span {
	if sp.Start < len(in.Text) {
		sp.End = min(sp.End, len(in.Text))
		return sp
	}
	at := len(in.Text)
	for _, c := range in.Context {
		at++ // the joining newline
		if sp.Start < at+len(c.Content) {
			sp.ContextID = c.ID
			sp.Start -= at
			sp.End = min(sp.End-at, len(c.Content))
			sp.Start = max(sp.Start, 0)
			return sp
		}
		at += len(c.Content)
	}
	return sp
}

// Combining the two tiers. HEURISTIC: every constant was chosen by cross-validation on the
// training material (TestInjectionModelCrossValidation, TestInjectionCombinationStack), never on
// a current held-out split.
const (
	// strongPatternScore: a damped match at least this strong keeps the score at dampedFloor.
	strongPatternScore = 0.75
	// calibrationCut, calibrationSlope and patternCut are the /6 rule's (combineInjectionV6):
	// the model probability and the pattern score mapped to 0.5, and the slope in logit space.
	calibrationCut   = 0.80
	calibrationSlope = 4.0
	patternCut       = 0.75
)

// The stacked combination (/7): a logistic rule over the model's logit, the pattern score's
// logit when a pattern matched, whether one matched, and whether a strong match was damped.
// Fitted by TestInjectionCombinationStack on leave-one-source-out scores of the training
// material (each file scored by a model fitted without it, the stand-in for a new author), its
// intercept moved so that 4% of those benign scores reach 0.5, and all of it doubled so about
// as many texts as before stay outside the ambiguous band. Where the /6 rule took the larger of
// two calibrations, this one adds the evidence: a pattern match of middling weight and a model
// probability of 0.7 together flag, and a strong pattern that the model puts near 0 (a person's
// "please ignore the previous message", a CI file's `rm -rf`) does not flag alone.
const (
	stackModel   = 2.15  // × logit(model probability)
	stackPattern = 1.43  // × logit(pattern score), when a pattern matched
	stackMatched = 3.25  // when a pattern matched
	stackDamped  = -2.50 // when a strong match was damped by quotes or discussion cues
	stackBias    = -2.45
)

// combineInjection joins the pattern score and the model's probability into the reported score
// by the stacked rule above. A strong phrasing that is only quoted or surrounded by discussion
// cues (damped) keeps the score at least at dampedFloor: inside the ambiguous band of the default
// threshold, so quoting an attack or adding "for example" sends it to the judge instead of
// passing it — unless the learned model, which was trained on such write-ups, gives the text
// less than dampedFloorModel.
func combineInjection(pattern, model, damped float64) float64 {
	z := stackBias + stackModel*clampedLogit(model)
	if pattern > 0 {
		// never below no match at all: a match is evidence for, not against (the fitted term is
		// negative only under a pattern score of about 0.09, which no single pattern gives)
		z += max(0, stackMatched+stackPattern*clampedLogit(pattern))
	}
	strong := damped >= strongPatternScore
	if strong {
		z += stackDamped
	}
	out := sigmoid(z)
	if strong && model >= dampedFloorModel {
		out = max(out, dampedFloor)
	}
	return out
}

// clampedLogit is logit(p) with p kept in [0.001, 0.999], so a probability of 0 or 1 (no
// n-gram, a saturated pattern score) counts as a strong vote, not an infinite one.
func clampedLogit(p float64) float64 {
	p = min(max(p, 1e-3), 1-1e-3)
	return math.Log(p / (1 - p))
}

// combineInjectionV6 is flag_injection/6's rule, kept for the cross-validation's comparison: each
// tier calibrated on its own (the model's calibrationCut and the patterns' patternCut become
// 0.5) and the larger counted, with the same damped floor.
func combineInjectionV6(pattern, model, damped float64) float64 {
	out := max(calibrate(model, calibrationCut, calibrationSlope), calibrate(pattern, patternCut, calibrationSlope))
	if damped >= strongPatternScore && model >= dampedFloorModel {
		out = max(out, dampedFloor)
	}
	return out
}

const (
	// dampedFloor is the least score of a text with a strong but damped match.
	dampedFloor = 0.3
	// dampedFloorModel: HEURISTIC, chosen by cross-validation on the training material. Below
	// this model probability a damped match is settled as benign without a judge. On the
	// training material it moved 17 hard negatives and 1 injection (already under the
	// threshold) out of the ambiguous band, raising the share decided without a judge from
	// 0.893 to 0.916 at the same precision and recall.
	dampedFloorModel = 0.10
)

// dampedStrength is the strongest undamped weight among matches that quotes or discussion cues
// damped.
func dampedStrength(hits []hit) float64 {
	s := 0.0
	for _, h := range hits {
		if (h.quoted || h.cued) && h.family != FamilyAgentDirected && h.family != FamilyObfuscation {
			s = max(s, h.raw)
		}
	}
	return s
}

// calibrate maps raw in [0,1] to σ(slope·(logit(raw) − logit(cut))): cut becomes 0.5, and 0 and 1
// stay put.
func calibrate(raw, cut, slope float64) float64 {
	raw = min(max(raw, 1e-6), 1-1e-6)
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	return sigmoid(slope * (logit(raw) - logit(cut)))
}

// patternScreen is the pattern families' score of a whole input, without the learned component.
func patternScreen(in InjectionInput) float64 {
	best := DetectInjection(in.Text).PatternScore
	for _, c := range in.Context {
		best = max(best, DetectInjection(c.Content).PatternScore)
	}
	return best
}

// joinedText is an input's text followed by its context items, as the learned component reads a
// payload split across them.
func joinedText(text string, context []ContextItem) string {
	for _, c := range context {
		text += "\n" + c.Content
	}
	return text
}
