package eval

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// claim is one checkable statement of a response: a clause that asserts something, with the
// context items its sentence cites.
type claim struct {
	start, end int // byte span in the response
	text       string
	cites      []int // context items named by source markers in the claim's sentence
	st         statement
	// pastKnown marks the figures the claim itself reports as replaced ("cut the time from 8
	// hours to 6") that the context marks as replaced too: they agree with the context's history
	// and are not compared with the current value.
	pastKnown []bool
	keys      *claimKeys // made by the first alignment (claimKeysOf)
	// joined is the whole clause that splitConjuncts cut this claim from, as one claim, shared by
	// every claim cut from it; nil when the clause was not cut (checkClaims).
	joined *claim
}

// maxClaims bounds how many claims one response is checked for; the rest are not checked and the
// summary says so.
const maxClaims = 128

// extractClaims splits a response into claims. Questions, greetings and offers of help, and
// abstentions ("I could not find that in the documents") make no claim and are left out, so a
// response made only of them has none.
func extractClaims(response string, context []ContextItem) []claim {
	masked, markers := maskMarkers(response, context)
	var out []claim
	memo := statementMemo{}
	for _, sent := range splitStatements(masked, splitSentences) {
		sentence := masked[sent[0]:sent[1]]
		if strings.HasSuffix(sentence, "?") || strings.HasSuffix(sentence, "？") {
			continue
		}
		// The frame that names the claim's source is not part of the claim (attribution.go); the
		// markers it names are the sentence's citations all the same.
		if b := blankAttribution(sentence); b != sentence {
			masked = masked[:sent[0]] + b + masked[sent[1]:]
			sentence = b
		}
		var cites []int
		for _, m := range markers {
			if m.pos >= sent[0] && m.pos <= sent[1] && m.item >= 0 {
				cites = append(cites, m.item)
			}
		}
		if pleasantPhrases().any(scanWords(lowerSameLength(sentence))) {
			if st := memo.analyze(sentence); len(st.figs) == 0 && len(st.tokens) <= 4 {
				continue // "Thanks for your patience while I looked into this."
			}
		}
		first := len(out) // the sentence's first claim
		for _, cl := range splitStatements(sentence, splitClauses) {
			parts := splitConjuncts(sentence[cl[0]:cl[1]], memo)
			var joined *claim
			if len(parts) > 1 {
				s, e := sent[0]+cl[0]+parts[0][0], sent[0]+cl[0]+parts[len(parts)-1][1]
				joined = &claim{start: s, end: e, text: response[s:e], cites: cites, st: memo.analyze(masked[s:e])}
			}
			for _, part := range parts {
				s, e := sent[0]+cl[0]+part[0], sent[0]+cl[0]+part[1]
				c := claim{start: s, end: e, text: response[s:e], cites: cites, st: memo.analyze(masked[s:e]), joined: joined}
				if !makesClaim(c.st, scanWords(lowerSameLength(masked[s:e]))) {
					continue
				}
				if len(out) > first && isException(c.text) && !exceptionLeads(c.text) && !isException(out[len(out)-1].text) {
					// "…, bis auf die am Hauptbahnhof": the exception says the opposite of the
					// claim before it, as a context's exception does (mergeException)
					c.st.neg = !out[len(out)-1].st.neg
				}
				out = append(out, c)
				if len(out) == maxClaims {
					return out
				}
			}
		}
	}
	return out
}

// marker is a source marker ("[pricing]", "[2]") and the item it names (-1 for none).
type marker struct {
	pos, item int
	key       string
}

// maskMarkers blanks source markers so their names are not read as words, and says which item
// each names.
func maskMarkers(response string, context []ContextItem) (string, []marker) {
	b := []byte(response)
	var out []marker
	for _, m := range findSources(response, MaxCitations) {
		if m[1] < len(response) && response[m[1]] == '(' {
			continue
		}
		key := strings.ToLower(response[m[2]:m[3]])
		out = append(out, marker{pos: m[0], item: itemFor(key, context), key: key})
		for i := m[0]; i < m[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b), out
}

// statementMemo holds the analyses extractClaims has made of a response's texts: splitConjuncts
// analyses each piece as the left side and again as the right, and the claim it becomes once
// more. Nothing changes a claim's statement after analyze, so one analysis serves them all.
type statementMemo map[string]statement

func (m statementMemo) analyze(s string) statement {
	if groundednessReference {
		return analyze(s)
	}
	st, ok := m[s]
	if !ok {
		st = analyze(s)
		m[s] = st
	}
	return st
}

// splitConjuncts splits a clause at "and" (and its equivalents) when both sides assert something
// of their own: two content words or a figure each ("the deposit is two months' rent").
func splitConjuncts(clause string, memo statementMemo) [][2]int {
	pieces := splitStatements(clause, splitFine)
	if len(pieces) < 2 {
		return [][2]int{{0, len(clause)}}
	}
	var out [][2]int
	cur := [2]int{0, 0}
	for i, p := range pieces {
		if i == 0 {
			cur = [2]int{0, p[1]}
			continue
		}
		joiner := strings.ToLower(strings.TrimSpace(clause[cur[1]:p[0]]))
		word := leadingWord(clause[p[0]:])
		conj := joiner == "," && conjunction(word) || joiner == "" && conjunction(word) || joiner == ", and" || joiner == "和"
		left, right := memo.analyze(clause[cur[0]:cur[1]]), memo.analyze(clause[p[0]:p[1]])
		list := joiner == "," && len(left.figs) > 0 && len(right.figs) > 0 && len(right.tokens) > 0 && len(left.tokens) > 0
		// ", which are open until midnight" adds a fact of its own, and so does "and dinner too"
		relative := joiner == "," && relativeWords()[word] && weight(left) >= 2 && weight(right) >= 1
		also := conj && weight(left) >= 1 && weight(right) >= 1 && alsoPhrases().any(scanWords(lowerSameLength(clause[p[0]:p[1]])))
		// "Priya is in charge of payments, Oskar heads infrastructure": two clauses after a comma
		// are two claims, unless the second is the first's complement ("…, что бензин подорожает")
		clauses := joiner == "," && weight(left) >= 2 && weight(right) >= 2 && !complementizer(word) && !(cur[0] == 0 && frontedAdjunct(clause)) ||
			joiner == "，" && weight(left) >= 2 && weight(right) >= 1
		if conj && weight(left) >= 2 && weight(right) >= 2 || list || relative || also || clauses {
			out = append(out, cur)
			cur = p
			continue
		}
		cur[1] = p[1]
	}
	return append(out, cur)
}

// frontedAdjunct reports whether clause opens with a preposition ("Since January, …", "Depuis
// janvier, …", "Im März, …"): the words before its first comma are then a time, a place or a
// circumstance of the clause after it, with no predicate of their own to check, not a claim
// (check_groundedness/12).
func frontedAdjunct(clause string) bool {
	return adjunctOpener(leadingWord(strings.TrimLeft(clause, " \t\n\"'«“¿¡")))
}

// adjunctOpener reports whether w is a preposition that opens a fronted adjunct in the corpus
// languages. A switch, not a table built at start-up.
func adjunctOpener(w string) bool {
	switch w {
	case "in", "on", "at", "since", "from", "after", "before", "until", "during", "for", "by", "within", "between",
		"under", "over", "throughout", "as",
		"depuis", "dès", "en", "dans", "à", "au", "aux", "après", "avant", "pendant", "pour", "par", "sur", "sous", "jusqu",
		"desde", "a", "al", "tras", "después", "antes", "durante", "para", "por", "hasta", "sobre", "entre",
		"seit", "im", "am", "ab", "nach", "vor", "während", "für", "bei", "bis", "zum", "zur", "vom",
		"em", "no", "na", "nos", "nas", "após", "até",
		"da", "dal", "dalla", "nel", "nella", "dopo", "prima", "fino",
		"с", "со", "в", "во", "после", "до", "для", "по", "от":
		return true
	}
	return false
}

// complementizer reports whether w opens a clause that completes the one before it ("reported
// that…", "сообщения о том, что…"): not a claim of its own.
func complementizer(w string) bool {
	switch w {
	case "that", "que", "dass", "daß", "что", "чтобы", "che", "dat", "że", "ki", "як", "що", "if", "whether", "si", "ob", "ли":
		return true
	}
	return false
}

// weight is how much a piece asserts: its content words plus its figures.
func weight(st statement) int {
	return len(st.tokens) + len(st.figs)
}

// makesClaim reports whether a statement asserts anything: it has content, and it is not an
// abstention, a statement about the material itself, or a pleasantry.
func makesClaim(st statement, ws []word) bool {
	if len(st.tokens) == 0 && len(st.figs) == 0 {
		return false
	}
	if abstainPhrases().any(ws) {
		return false
	}
	if (sourcePhrases().any(ws) || mentionsSourceInWord(ws)) && (st.neg || metaVerbPhrases().any(ws)) {
		return false
	}
	if pleasantPhrases().any(ws) && len(st.figs) == 0 && len(st.tokens) <= 3 {
		return false
	}
	return utf8.RuneCountInString(strings.TrimSpace(st.text)) > 1
}

// relativeWords open a non-restrictive relative clause after a comma (", which are open until
// midnight"): a claim of its own about what precedes it.
var relativeWords = sync.OnceValue(func() map[string]bool {
	return setOf([]string{"which", "who", "where", "qui", "donde", "который", "которая", "которое", "которые", "wo"})
})

// alsoPhrases mark an elliptical conjunct that extends the claim to something new ("and dinner
// too", "y la cena también").
var alsoPhrases = sync.OnceValue(func() *phraseList {
	return newPhraseList([]string{"too", "also", "as well", "também", "también", "aussi", "auch", "тоже", "также"})
})

// sourceStems name the material in languages that write particles and articles onto the word
// ("문서에서는" "in the documents", "فالمستندات" "for the documents", "במסמכים"): they are found
// inside a word, so a negated sentence about the material is an abstention there too
// (check_groundedness/5).
var sourceStems = []string{"문서", "مستند", "وثائق", "وثيق", "מסמכ", "दस्तावेज"}

func mentionsSourceInWord(ws []word) bool {
	for _, w := range ws {
		if w.kind != 'w' || w.s == "" || w.s[0] < utf8.RuneSelf {
			continue
		}
		for _, c := range sourceStems {
			if strings.Contains(w.s, c) {
				return true
			}
		}
	}
	return false
}
