package eval

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// CitationKind says what a citation points at.
type CitationKind string

// The kinds ExtractCitations finds.
const (
	CitationSource    CitationKind = "source"    // a marker naming a context item: [1], [doc-3]
	CitationReference CitationKind = "reference" // a named reference: section 9.2, Table 3, Appendix B, RFC 9110
	CitationQuote     CitationKind = "quote"     // a quoted span of three words or more
	CitationNumber    CitationKind = "number"    // a figure: 1,200, 15%, $3.50 (single-digit integers are ignored)
)

// Citation is one checkable claim in a response.
type Citation struct {
	Kind CitationKind `json:"kind"`
	Text string       `json:"text"` // as written in the response
	// Key is the canonical form matched against the context: "section 9.2", "1200", a lower-cased
	// quote, or a source ID.
	Key string `json:"key"`
	// ContextID is the item this claim cites (from a source marker in the same sentence); empty
	// means the claim cites no particular item and any item may support it.
	ContextID string `json:"contextId,omitempty"`
	// Unit is what a figure counts: "%", a currency sign, or the word after it ("days"). A figure
	// whose unit the context uses only with other values is contradicted, not merely unsupported.
	Unit  string `json:"unit,omitempty"`
	Start int    `json:"start"` // byte span in the response
	End   int    `json:"end"`
}

// CitationState is the outcome of resolving one citation.
type CitationState string

// The states. Only resolved counts as grounded.
const (
	CitationResolved   CitationState = "resolved"   // found, affirmatively, in the item it cites (or any item if it cites none)
	CitationMismatched CitationState = "mismatched" // found, but in a different item than the one cited
	CitationUnresolved CitationState = "unresolved" // not found, or found only inside a denial
	// CitationContradicted: a figure the context gives with another value for the same unit
	// ("21 days" where the context says "14 days").
	CitationContradicted CitationState = "contradicted"
)

// CitationStatus is the per-citation result of ResolveCitations.
type CitationStatus struct {
	Citation  Citation      `json:"citation"`
	Status    CitationState `json:"status"`
	ContextID string        `json:"contextId,omitempty"` // where support was found
	Reason    string        `json:"reason"`
}

var (
	sourceRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[\[【]\s*([0-9]{1,3}|[A-Za-z][\w.:-]{0,40})\s*[\]】]`)
	})
	referenceRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:\b(section|sec\.|clause|article|art\.|chapter|appendix|annex|table|figure|fig\.|paragraph|para\.|page|rule|step|item|rfc)\s*|(§)\s*)([0-9]+(?:\.[0-9]+)*[a-z]?\b|[a-z](?:\.[0-9]+)*\b)`)
	})
	quoteRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"([^"\n]{8,300})"|“([^”\n]{8,300})”`)
	})
	numberRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[$€£]?\s?\b\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|[$€£]?\s?\b\d+(?:\.\d+)?%?`)
	})
	sentenceEnd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[.!?](?:\s|$)|\n`)
	})
)

// MaxCitations bounds how many citations ExtractCitations returns and ResolveCitations checks,
// so hostile input ("%41%42 ..." repeated) costs bounded time. Citations beyond it are dropped in
// position order; the groundedness score then rests on the first MaxCitations.
const MaxCitations = 256

// labelAliases maps abbreviations to one canonical label. A list, not a map: a package-level map
// literal allocates at init, which every command pays for (TestVersionInitialisersStayInBudget).
var labelAliases = [...]struct{ alias, canon string }{
	{"sec.", "section"}, {"§", "section"}, {"art.", "article"}, {"fig.", "figure"}, {"para.", "paragraph"},
}

// canonicalLabel returns the canonical label for an abbreviation, or label itself.
func canonicalLabel(label string) string {
	for _, a := range labelAliases {
		if a.alias == label {
			return a.canon
		}
	}
	return label
}

// ExtractCitations finds source markers, named references, quotes and figures in a response, in
// order of position. A source marker binds every other claim in its sentence to the item it names.
func ExtractCitations(response string) []Citation {
	var out []Citation
	taken := func(s, e int) bool {
		return slices.ContainsFunc(out, func(c Citation) bool { return s < c.End && c.Start < e })
	}
	for _, m := range findSources(response, MaxCitations) {
		if m[1] < len(response) && response[m[1]] == '(' {
			continue // a markdown link, not a marker
		}
		out = append(out, Citation{Kind: CitationSource, Text: response[m[0]:m[1]], Key: strings.ToLower(response[m[2]:m[3]]), Start: m[0], End: m[1]})
	}
	for _, m := range findQuotes(response, MaxCitations) {
		gs, ge := m[2], m[3]
		if gs < 0 {
			gs, ge = m[4], m[5]
		}
		q := foldSpaces(response[gs:ge])
		if strings.Count(q, " ") < 2 {
			continue
		}
		out = append(out, Citation{Kind: CitationQuote, Text: response[m[0]:m[1]], Key: q, Start: m[0], End: m[1]})
	}
	for _, m := range findReferences(response, MaxCitations) {
		if taken(m[0], m[1]) {
			continue
		}
		if m[2] >= 0 && m[6] == m[3] && isASCIILetter(response[m[6]]) {
			// the label's word goes on ("pages", "rules", "tablet"): a word, not "page s"
			// (the expression's \s* lets a letter follow the label directly, as a digit may)
			continue
		}
		label := ""
		if m[2] >= 0 {
			label = strings.ToLower(response[m[2]:m[3]])
		} else {
			label = "§"
		}
		label = canonicalLabel(label)
		out = append(out, Citation{Kind: CitationReference, Text: response[m[0]:m[1]],
			Key: label + " " + strings.ToLower(response[m[6]:m[7]]), Start: m[0], End: m[1]})
	}
	for _, m := range findNumbers(response, MaxCitations) {
		s, e := m[0], m[1]
		for s < e && (response[s] == ' ' || response[s] == '\t') {
			s++
		}
		if taken(s, e) {
			continue
		}
		raw := response[s:e]
		key, ok := canonicalNumber(raw)
		unit := numberUnit(response, s, e)
		// A bare single digit ("step 3", "2 of them") carries too little to check; with a unit
		// ("6 tablets") it is a figure the context can contradict.
		if !ok || len(raw) == 1 && unit == "" {
			continue
		}
		out = append(out, Citation{Kind: CitationNumber, Text: raw, Key: key, Unit: unit, Start: s, End: e})
	}
	slices.SortFunc(out, func(a, b Citation) int { return a.Start - b.Start })
	if len(out) > MaxCitations {
		out = out[:MaxCitations]
	}
	bindSources(response, out)
	return out
}

// canonicalNumber strips currency, grouping and percent signs and formats the value.
func canonicalNumber(raw string) (string, bool) {
	t := strings.TrimSpace(raw)
	t = strings.TrimLeft(t, "$€£ ")
	plain := strings.TrimSuffix(strings.ReplaceAll(t, ",", ""), "%")
	f, err := strconv.ParseFloat(plain, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

// bindSources sets ContextID on claims that share a sentence with a source marker.
func bindSources(response string, cs []Citation) {
	bounds := findSentenceEnds(response)
	// sentenceOf is the index of the first sentence end at or after pos.
	sentenceOf := func(pos int) int {
		i, _ := slices.BinarySearchFunc(bounds, pos, func(b []int, p int) int { return cmp.Compare(b[0], p) })
		return i
	}
	marker := map[int]string{}
	for _, c := range cs {
		if c.Kind == CitationSource {
			if _, ok := marker[sentenceOf(c.Start)]; !ok {
				marker[sentenceOf(c.Start)] = c.Key
			}
		}
	}
	for i := range cs {
		if cs[i].Kind != CitationSource {
			cs[i].ContextID = marker[sentenceOf(cs[i].Start)]
		}
	}
}

// foldSpaces folds typographic quotes to ASCII, collapses runs of white space to one space
// (dropping them at the ends), and lower-cases s, so references and quotes are compared in one
// spelling. One pass: ResolveCitations folds every context item of every check, and a Replacer,
// strings.Fields, a join and strings.ToLower had been four. It gives what those give, an invalid
// byte coming out as U+FFFD as strings.ToLower writes it (TestFoldSpacesMatchesReference).
func foldSpaces(s string) string {
	b := make([]byte, 0, len(s))
	space := false // white space since the last rune written
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if c == ' ' || c >= '\t' && c <= '\r' {
				space = len(b) > 0
				continue
			}
			if space {
				b, space = append(b, ' '), false
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsSpace(r) {
			space = len(b) > 0
			continue
		}
		if space {
			b, space = append(b, ' '), false
		}
		switch r {
		case '’', '‘':
			b = append(b, '\'')
		case '“', '”':
			b = append(b, '"')
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r)) // an invalid byte is RuneError, written as U+FFFD
		}
	}
	return string(b)
}

// isUnitSkip reports whether w is one of the words between a figure and its unit ("14 of the days" is rare; "$5 per month" is
// already unit "$").
func isUnitSkip(w string) bool {
	switch w {
	case "per", "a", "an", "the", "of", "full", "calendar", "business", "working":
		return true
	}
	return false
}

// numberUnit names what the figure text[s:e] counts.
func numberUnit(text string, s, e int) string {
	raw := strings.TrimSpace(text[s:e])
	switch {
	case strings.HasSuffix(raw, "%"):
		return "%"
	case raw != "" && strings.ContainsAny(raw[:1], "$€£"):
		return raw[:1]
	case strings.HasPrefix(raw, "€") || strings.HasPrefix(raw, "£"):
		return raw[:len("€")]
	}
	rest := text[e:min(len(text), e+60)]
	for _, w := range strings.Fields(rest) {
		w = strings.ToLower(strings.TrimRight(w, ".,;:!?)\"'"))
		if w == "percent" {
			return "%"
		}
		if isUnitSkip(w) {
			continue
		}
		if w == "" || !isASCIILetter(w[0]) {
			return ""
		}
		return strings.TrimSuffix(w, "s")
	}
	return ""
}
