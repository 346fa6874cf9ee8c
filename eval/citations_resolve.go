package eval

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Denial windows: how far around a mention ResolveCitations looks for words that deny the
// mentioned thing exists. Bounded by the sentence the mention is in.
const (
	denialBefore = 60
	denialAfter  = 80
)

var (
	// denialBeforeRe matches the end of the text just before a mention: "there is no", "without a".
	denialBeforeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:\bno|\bnot\s+(?:a|an|any)|\bthere\s+(?:is|are|was|were)\s+no|\bthere's\s+no|\bwithout(?:\s+an?)?|\blacks?(?:\s+an?)?|\b(?:does|did|do)\s+not\s+(?:have|contain|include)(?:\s+(?:a|an|any))?|\bdoesn't\s+(?:have|contain|include)(?:\s+(?:a|an|any))?|\bnever\s+had(?:\s+an?)?|\bnor|\bneither|\bnon-?existent|\bformer|\bdeleted|\bremoved|\brepealed|\bobsolete)\s*$`)
	})
	// denialAfterRe matches the start of the text just after a mention: "was removed", "does not exist".
	denialAfterRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:\([^)]{0,60}\)\s*)?,?\s*(?:(?:was|were|has|have|had|is|are)\s+(?:\w+\s+){0,2}?(?:removed|deleted|repealed|withdrawn|dropped|struck|rescinded|eliminated|retired|omitted|abolished|discontinued)|(?:does|do|did)\s+not\s+exist|doesn't\s+exist|no\s+longer\s+exists?|never\s+existed|(?:is|was)\s+not\s+(?:part\s+of|included|defined|present)|(?:is|was)\s+(?:intentionally\s+)?(?:left\s+)?blank|is\s+reserved|exists?\s+no\s+more)`)
	})
)

// ResolveCitations checks each citation against the context items. A citation that cites an item
// must be supported there; one that cites none may be supported by any. A mention counts as
// support only if no denial surrounds it in its sentence ("no section 9.2 exists", "section 9.2
// was removed"): a denial mentions the thing precisely to say it is not there.
func ResolveCitations(citations []Citation, context []ContextItem) []CitationStatus {
	if len(citations) > MaxCitations {
		citations = citations[:MaxCitations]
	}
	r := &resolver{context: context, lowered: make([]string, len(context)), res: map[string]*regexp.Regexp{}}
	if len(citations) > 0 { // a response that cites nothing (most) needs no folded context
		for i, c := range context {
			r.lowered[i] = foldSpaces(c.Content)
		}
	}
	out := make([]CitationStatus, 0, len(citations))
	for _, c := range citations {
		out = append(out, r.resolveOne(c))
	}
	return out
}

// resolver holds what ResolveCitations computes once per call: folded context texts, each item's
// figures by value and unit (built on first use), and compiled mention expressions per reference.
type resolver struct {
	context []ContextItem
	lowered []string
	figures []itemFigures
	res     map[string]*regexp.Regexp
}

type itemFigures struct {
	values map[string]bool
	units  map[string]bool
}

func (r *resolver) figuresOf(i int) itemFigures {
	if r.figures == nil {
		r.figures = make([]itemFigures, len(r.context))
		for k, text := range r.lowered {
			f := itemFigures{values: map[string]bool{}, units: map[string]bool{}}
			for _, m := range numberRe().FindAllStringIndex(text, -1) {
				if v, ok := canonicalNumber(text[m[0]:m[1]]); ok {
					f.values[v] = true
					if u := numberUnit(text, m[0], m[1]); u != "" {
						f.units[u] = true
					}
				}
			}
			r.figures[k] = f
		}
	}
	return r.figures[i]
}

// itemFor finds the item a source key names: by ID, else by 1-based position.
func itemFor(key string, context []ContextItem) int {
	for i, c := range context {
		if strings.EqualFold(c.ID, key) {
			return i
		}
	}
	if n, err := strconv.Atoi(key); err == nil && n >= 1 && n <= len(context) {
		return n - 1
	}
	return -1
}

func (r *resolver) resolveOne(c Citation) CitationStatus {
	context := r.context
	st := CitationStatus{Citation: c}
	if c.Kind == CitationSource {
		if i := itemFor(c.Key, context); i >= 0 {
			st.Status, st.ContextID, st.Reason = CitationResolved, context[i].ID, "names a context item"
		} else {
			st.Status, st.Reason = CitationUnresolved, fmt.Sprintf("no context item is named %q", c.Key)
		}
		return st
	}
	cited := -1
	if c.ContextID != "" {
		cited = itemFor(c.ContextID, context)
	}
	var seen support
	find := func(i int) bool {
		got := r.supports(c, i)
		seen = max(seen, got)
		return got == supFound
	}
	if cited >= 0 && find(cited) {
		st.Status, st.ContextID, st.Reason = CitationResolved, context[cited].ID, "found in the cited item"
		return st
	}
	citedSeen := seen
	for i := range context {
		if i == cited || !find(i) {
			continue
		}
		st.ContextID = context[i].ID
		if cited >= 0 {
			st.Status, st.Reason = CitationMismatched, fmt.Sprintf("cites %q but is found only in %q", context[cited].ID, context[i].ID)
		} else {
			st.Status, st.Reason = CitationResolved, "found in the context"
		}
		return st
	}
	if cited >= 0 {
		seen = citedSeen
	}
	st.Status = CitationUnresolved
	switch seen {
	case supContradicted:
		st.Status, st.Reason = CitationContradicted, fmt.Sprintf("the context gives a different figure for %q", c.Unit)
	case supDenied:
		st.Reason = "the context mentions it only inside a denial"
	default:
		st.Reason = "not found in the context"
	}
	return st
}

// support is how a text relates to a citation; larger values are stronger evidence against it
// when the citation is not found.
type support int

const (
	supNone         support = iota
	supDenied               // mentioned only inside a denial
	supContradicted         // the same unit with another value
	supFound                // affirmatively supported
)

// supports reports how context item i relates to c.
func (r *resolver) supports(c Citation, i int) support {
	text := r.lowered[i]
	switch c.Kind {
	case CitationQuote:
		if strings.Contains(text, c.Key) {
			return supFound
		}
	case CitationNumber:
		f := r.figuresOf(i)
		switch {
		case f.values[c.Key]:
			return supFound
		case c.Unit != "" && f.units[c.Unit]:
			return supContradicted
		}
	case CitationReference:
		spans, ok := scanMentions(c.Key, text)
		if !ok || groundednessReference {
			re, seen := r.res[c.Key]
			if !seen {
				re = mentionRe(c.Key)
				r.res[c.Key] = re
			}
			spans = mentions(re, c.Key, text)
		}
		denied := false
		for _, m := range spans {
			if !isDenied(text, m[0], m[1]) {
				return supFound
			}
			denied = true
		}
		if denied {
			return supDenied
		}
	case CitationSource:
		// Resolved by name in resolveOne; a marker is never looked for in an item's text.
	}
	return supNone
}

// mentionRe builds the expression that finds a reference in text: the label with its
// identifier ("section 9.2", "§ 9.2", "sec. 9.2"), not followed by more digits ("section 9.21" is
// another section).
func mentionRe(key string) *regexp.Regexp {
	label, id, _ := strings.Cut(key, " ")
	labels := []string{regexp.QuoteMeta(label)}
	for _, a := range labelAliases {
		if a.canon == label {
			labels = append(labels, regexp.QuoteMeta(a.alias))
		}
	}
	slices.Sort(labels)
	section := ""
	if label == "section" {
		section = "|§"
	}
	re, err := regexp.Compile(`(?:\b(?:` + strings.Join(labels, "|") + `)` + section + `)\s*` + regexp.QuoteMeta(id) + `(?:[^0-9a-z.]|\.(?:[^0-9]|$)|$)`)
	if err != nil {
		return nil
	}
	return re
}

// mentions finds where text names the reference key, as spans ending after its identifier.
func mentions(re *regexp.Regexp, key, text string) [][2]int {
	if re == nil {
		return nil
	}
	_, id, _ := strings.Cut(key, " ")
	if !strings.Contains(text, id) { // every match holds the identifier verbatim
		return nil
	}
	var out [][2]int
	for _, m := range re.FindAllStringIndex(text, maxMentions) {
		end := m[0] + strings.Index(text[m[0]:], id) + len(id)
		out = append(out, [2]int{m[0], end})
	}
	return out
}

// maxMentions bounds how many mentions of one reference are looked at in one item.
const maxMentions = 16

// scanMentions finds the mentions mentionRe's expression finds, with the spans mentions gives
// them, by string search instead of a compiled expression: compiling one expression per
// reference and running it over every item had been a fifth of check_groundedness's time. It
// handles the keys ExtractCitations makes (a label of lower-case ASCII letters and dots, an
// identifier of digits, letters and dots starting with a digit or letter) and reports false for
// any other key, whose expression mentions then runs. TestScanMentionsMatchesExpression holds
// it to the expression.
func scanMentions(key, text string) ([][2]int, bool) {
	label, id, ok := strings.Cut(key, " ")
	if !ok || !plainMentionPart(label) || !plainMentionPart(id) {
		return nil, false
	}
	if !strings.Contains(text, id) { // every match holds the identifier verbatim
		return nil, true
	}
	var labels [4]string
	labels[0] = label
	n := 1
	for _, a := range labelAliases {
		if a.canon == label && n < len(labels) {
			labels[n] = a.alias
			n++
		}
	}
	var out [][2]int
	for pos := 0; pos < len(text) && len(out) < maxMentions; {
		// the next place any label starts: the expression cannot match before it
		next := -1
		for _, l := range labels[:n] {
			if k := strings.Index(text[pos:], l); k >= 0 && (next < 0 || pos+k < next) {
				next = pos + k
			}
		}
		if next < 0 {
			break
		}
		if end, ok := mentionAt(text, next, labels[:n], id); ok {
			out = append(out, [2]int{next, next + strings.Index(text[next:], id) + len(id)})
			pos = end
			continue
		}
		pos = next + 1
	}
	return out, true
}

// plainMentionPart reports whether s is a label or identifier scanMentions handles: lower-case
// ASCII letters, digits and dots, starting with a letter or digit.
func plainMentionPart(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// isASCIIWordByte is the expression's \b class, ASCII word characters; a byte of a multi-byte rune
// is never one, as the rune is not.
func isASCIIWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// mentionAt matches mentionRe's expression at p and returns where the match ends: a label at a
// word boundary ("§" needs none), ASCII spaces, the identifier, and then a rune that is not a
// digit, letter or dot, a dot not followed by a digit, or the end of the text. No two labels of
// one reference start alike, so at most one label can match at p.
func mentionAt(text string, p int, labels []string, id string) (int, bool) {
	q := -1
	for _, l := range labels {
		if !strings.HasPrefix(text[p:], l) {
			continue
		}
		prevWord := p > 0 && isASCIIWordByte(text[p-1])
		if l == "§" || prevWord != isASCIIWordByte(l[0]) {
			q = p + len(l)
			break
		}
	}
	if q < 0 {
		return 0, false
	}
	for q < len(text) && (text[q] == ' ' || text[q] == '\t' || text[q] == '\n' || text[q] == '\f' || text[q] == '\r') {
		q++
	}
	if !strings.HasPrefix(text[q:], id) {
		return 0, false
	}
	q += len(id)
	if q == len(text) {
		return q, true
	}
	switch c := text[q]; {
	case c >= '0' && c <= '9' || c >= 'a' && c <= 'z':
		return 0, false
	case c != '.':
		_, size := utf8.DecodeRuneInString(text[q:])
		return q + size, true
	case q+1 == len(text):
		return q + 1, true
	case text[q+1] >= '0' && text[q+1] <= '9':
		return 0, false
	default:
		_, size := utf8.DecodeRuneInString(text[q+1:])
		return q + 1 + size, true
	}
}

// isDenied reports whether the sentence around text[s:e] denies what it mentions.
func isDenied(text string, s, e int) bool {
	lo := max(0, s-denialBefore)
	before := text[lo:s]
	if k := strings.LastIndexAny(before, ".!?;\n"); k >= 0 && (k+1 >= len(before) || before[k+1] == ' ') {
		before = before[k+1:]
	}
	after := text[e:min(len(text), e+denialAfter)]
	if k := strings.IndexAny(after, "!?;\n"); k >= 0 {
		after = after[:k]
	}
	if k := strings.Index(after, ". "); k >= 0 {
		after = after[:k]
	}
	return denialBeforeRe().MatchString(before) || denialAfterRe().MatchString(after)
}
