package eval

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// InjectionMetricVersion is pinned in every flag_injection verdict so a score can be traced to the
// pattern set that produced it. Bump it whenever patterns or weights change.
const InjectionMetricVersion = "flag_injection/1"

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
	// Score in [0,1]: 1 - Π(1 - w) over independent matches (per family, the strongest match of
	// each pattern not overlapping a stronger one), raised by obfuscation signals when a family
	// matched. HEURISTIC: weights are hand-set, see docs/scoring.md.
	Score    float64  `json:"score"`
	Families []string `json:"families,omitempty"` // families that matched, sorted
	Evidence []Span   `json:"evidence,omitempty"` // spans in the original text
	Signals  []Signal `json:"signals,omitempty"`
}

// Band says where a score falls relative to a threshold: -1 clearly below (pass), 0 ambiguous
// (escalate to a judge), +1 clearly at or above (flag). Near the ends of [0,1] the band is cut:
// with a threshold above 1-AmbiguousMargin a score at or above the threshold is clear, and a
// score of exactly 0 (no evidence at all) is always clear, so a strict low threshold does not
// send every benign text to the judge.
func Band(score, threshold float64) int {
	switch {
	case score >= threshold+AmbiguousMargin || (score >= threshold && threshold+AmbiguousMargin > 1):
		return 1
	case score < threshold-AmbiguousMargin || score == 0 && threshold > 0:
		return -1
	}
	return 0
}

// obfuscationWeights is how much each signal raises a score that already has a family match.
var obfuscationWeights = map[string]float64{
	SignalConfusable:   0.25,
	SignalZeroWidth:    0.15,
	SignalBidiControl:  0.2,
	SignalTagCharacter: 0.3,
	SignalEncoded:      0.1,
}

// hit is one pattern match, already mapped to the original text.
type hit struct {
	family, name string
	weight       float64
	start, end   int
	encoding     string
	payload      string
}

// DetectInjection runs the deterministic tier of flag_injection: normalise, match every family
// on the folded text and on every decoded payload, and combine into a score with evidence. It is
// pure, allocation-light and linear in the input (capped at MaxNormalizeBytes), so the proxy can
// call it on every tool result and tool description.
func DetectInjection(text string) InjectionScan {
	n := Normalize(text)
	var hits []hit
	collectHits(&n, func(s, e int) (int, int) { return n.OriginalSpan(s, e) }, "", nil, &hits)
	if !slices.ContainsFunc(hits, func(h hit) bool { return h.family != FamilyObfuscation }) {
		if h, ok := agentDirectedHit(&n); ok {
			hits = append(hits, h)
		}
	}
	return summarize(text, &n, hits)
}

// collectHits matches n and, recursively, its payloads. mapSpan maps spans of n.Text to the
// original text of the top-level input.
func collectHits(n *Normalized, mapSpan func(s, e int) (int, int), encoding string, keep [][2]int, into *[]hit) {
	perPattern := map[*pattern]int{}
	matchPatterns(n.Text, func(p *pattern, s, e int) {
		if perPattern[p] >= maxPatternHits {
			return
		}
		perPattern[p]++
		w := p.weight * discussionFactor(n.Text, s, e)
		if inComment(n, s) {
			w = min(1, w+0.1)
		}
		os, oe := mapSpan(s, e)
		if keep != nil && !slices.ContainsFunc(keep, func(k [2]int) bool { return os < k[1] && k[0] < oe }) {
			return
		}
		h := hit{family: p.family, name: p.name, weight: w, start: os, end: oe}
		if encoding != "" {
			h.encoding, h.payload = encoding, n.Text[s:e]
			*into = append(*into, hit{family: FamilyEncoded, name: encoding + "/" + p.name,
				weight: min(0.95, w+0.2), start: os, end: oe, encoding: encoding, payload: h.payload})
		}
		*into = append(*into, h)
	})
	for _, p := range n.Payloads {
		sub := normalize(p.Decoded, n.depth+1)
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

// matchPatterns finds every anchor occurrence in t and runs the anchored patterns there. A
// pattern's need-words are first checked against the whole text once, so a pattern whose
// vocabulary is absent costs nothing per occurrence.
func matchPatterns(t string, emit func(p *pattern, s, e int)) {
	seen := make([]int, len(anchorList))
	present := map[*pattern]bool{}
	anchorFinder.each(t, func(ai, pos int) bool {
		a := anchorList[ai]
		if seen[ai] >= maxAnchorHits || !boundaryBefore(t, pos, a) {
			return true
		}
		seen[ai]++
		window := t[pos:min(len(t), pos+patternWindow)]
		for _, p := range anchorIndex[a] {
			if p.lineStart && !atLineStart(t, pos) {
				continue
			}
			if p.need != nil {
				ok, known := present[p]
				if !known {
					ok = containsAny(t, p.need)
					present[p] = ok
				}
				if !ok || !containsAny(window, p.need) {
					continue
				}
			}
			if loc := p.re.FindStringIndex(window); loc != nil {
				emit(p, pos, pos+loc[1])
			}
		}
		return true
	})
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// boundaryBefore reports whether an anchor that starts with a letter starts a word at pos.
// Scripts written without spaces (Han, kana, Hangul) have no word boundary to check.
func boundaryBefore(t string, pos int, anchor string) bool {
	first, _ := utf8.DecodeRuneInString(anchor)
	if !unicode.IsLetter(first) || unicode.In(first, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return true
	}
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
}

// discussionFactor damps a match that is quoted and/or surrounded by discussion cues: security
// write-ups quote attack strings all the time. Quoting alone is weak evidence, cues alone move a
// strong match into the ambiguous band (so an attacker who adds "for example" reaches the judge,
// not a pass), and both together damp most.
func discussionFactor(t string, s, e int) float64 {
	lo := max(0, s-discussionLook)
	before := t[lo:s]
	if nl := strings.LastIndexByte(before, '\n'); nl >= 0 && s-lo-nl > 40 {
		before = before[nl+1:]
	}
	quoted := strings.Count(before, `"`)%2 == 1 || strings.Count(before, "`")%2 == 1 ||
		strings.LastIndex(before, "“") > strings.LastIndex(before, "”") ||
		strings.LastIndex(before, "«") > strings.LastIndex(before, "»") ||
		insideSingleQuotes(before)
	window := t[lo:min(len(t), e+discussionAhead)]
	cue := false
	for _, c := range discussionCues {
		if containsWord(window, c) {
			cue = true
			break
		}
	}
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

// insideSingleQuotes reports whether text ends inside a single-quoted span. A ' after a space or
// an opening bracket opens, one before a space or punctuation closes, and one between letters is
// an apostrophe ("it's") and ignored.
func insideSingleQuotes(text string) bool {
	open := false
	for i := 0; i < len(text); i++ {
		if text[i] != '\'' {
			continue
		}
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
		obf = 1 - (1-obf)*(1-obfuscationWeights[s.Kind])
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
func independentWeights(hits []hit) []float64 {
	sorted := slices.Clone(hits)
	slices.SortStableFunc(sorted, func(a, b hit) int { return cmp.Compare(b.weight, a.weight) })
	var kept []hit
	var out []float64
	for _, h := range sorted {
		if h.family == FamilyObfuscation {
			continue
		}
		if slices.ContainsFunc(kept, func(k hit) bool {
			return k.family == h.family && (k.name == h.name || h.start < k.end && k.start < h.end)
		}) {
			continue
		}
		kept = append(kept, h)
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

// ScreenInjection is the deterministic tier of flag_injection over a whole input: the text and
// every context item it travels with are scanned, and the input scores as its worst part.
func ScreenInjection(in InjectionInput) InjectionScan {
	best := DetectInjection(in.Text)
	for _, c := range in.Context {
		if s := DetectInjection(c.Content); s.Score > best.Score {
			best = s
		}
	}
	return best
}
