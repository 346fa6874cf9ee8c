package eval

import (
	"strings"
	"unicode/utf8"
)

// Hand-written scanners for the expressions ExtractCitations runs over every response. Go's
// regexp tries the expressions at every byte of the response (none has a literal prefix to skip
// to), which made them a fifth of check_groundedness's time. Each scanner finds exactly what its
// expression finds, with the same spans and submatches, in the same order and up to the same
// count; TestCitationScannersMatchExpressions and FuzzCitationScanners hold them to the
// expressions, which groundednessReference runs instead.

// referenceLabels are referenceRe's labels, in the expression's order.
var referenceLabels = [...]string{"section", "sec.", "clause", "article", "art.", "chapter", "appendix", "annex",
	"table", "figure", "fig.", "paragraph", "para.", "page", "rule", "step", "item", "rfc"}

// findReferences is referenceRe().FindAllStringSubmatchIndex(text, n). A match starts at a label
// after a word boundary or at "§", so only those places are tried. Under (?i) "ſ" and the Kelvin
// sign match "s" and "k", which a byte comparison does not see: a text holding either is left to
// the expression.
func findReferences(text string, n int) [][]int {
	if groundednessReference || strings.Contains(text, "ſ") || strings.Contains(text, "\u212a") {
		return referenceRe().FindAllStringSubmatchIndex(text, n)
	}
	return matchAll(text, n, referenceAt)
}

// matchAll is what FindAll does with an expression that at(text, p) matches at p (nil when it
// does not, else the submatch indexes of a match, never empty): the leftmost match, then the
// next from where it ends, up to n of them (all when n < 0).
func matchAll(text string, n int, at func(text string, p int) []int) [][]int {
	var out [][]int
	for p := 0; p < len(text) && (n < 0 || len(out) < n); {
		if m := at(text, p); m != nil {
			out = append(out, m)
			p = m[1]
			continue
		}
		p++
	}
	return out
}

// referenceAt matches referenceRe at p: `\b(label)\s*` or `(§)\s*`, then the identifier.
func referenceAt(text string, p int) []int {
	if strings.HasPrefix(text[p:], "§") {
		q := skipRESpace(text, p+len("§"))
		if end, ok := referenceIDAt(text, q); ok {
			return []int{p, end, -1, -1, p, p + len("§"), q, end}
		}
		return nil
	}
	if !isASCIILetter(text[p]) || p > 0 && isASCIIWordByte(text[p-1]) {
		return nil
	}
	for _, l := range referenceLabels {
		if len(text)-p < len(l) || !asciiFoldPrefix(text[p:p+len(l)], l) {
			continue
		}
		q := skipRESpace(text, p+len(l))
		if end, ok := referenceIDAt(text, q); ok {
			return []int{p, end, p, p + len(l), -1, -1, q, end}
		}
	}
	return nil
}

// asciiFoldPrefix reports whether s is label (lower-case ASCII letters and dots) in any case.
func asciiFoldPrefix(s, label string) bool {
	for i := 0; i < len(label); i++ {
		c, l := s[i], label[i]
		if l == '.' {
			if c != '.' {
				return false
			}
		} else if c|0x20 != l {
			return false
		}
	}
	return true
}

// skipRESpace skips the expressions' \s ([\t\n\f\r ]) from i.
func skipRESpace(text string, i int) int {
	for i < len(text) && isRESpace(text[i]) {
		i++
	}
	return i
}

func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// referenceIDAt matches referenceRe's identifier at q, `[0-9]+(?:\.[0-9]+)*[a-z]?\b` or
// `[a-z](?:\.[0-9]+)*\b` (any case), and returns its end. When the word boundary fails after the
// greedy match, the expression backs off to the end before its last ".digits" group (a dot
// after a digit is a boundary); backing off anywhere else leaves a digit or letter next.
func referenceIDAt(text string, q int) (int, bool) {
	if q >= len(text) {
		return 0, false
	}
	var e int
	switch c := text[q]; {
	case isASCIIDigit(c):
		e = q
		for e < len(text) && isASCIIDigit(text[e]) {
			e++
		}
	case isASCIILetter(c):
		e = q + 1
	default:
		return 0, false
	}
	digits := isASCIIDigit(text[q])
	last := -1 // the end before the last group
	for e+1 < len(text) && text[e] == '.' && isASCIIDigit(text[e+1]) {
		last = e
		e++
		for e < len(text) && isASCIIDigit(text[e]) {
			e++
		}
	}
	switch {
	case digits && e < len(text) && isASCIILetter(text[e]):
		if e+1 == len(text) || !isASCIIWordByte(text[e+1]) {
			return e + 1, true
		}
	case e == len(text) || !isASCIIWordByte(text[e]):
		return e, true
	}
	if last >= 0 {
		return last, true
	}
	return 0, false
}

// findNumbers is numberRe().FindAllStringIndex(text, n). A match is made only of currency signs,
// \s, digits, commas, dots and percent signs, so the expression runs only on the runs of those
// that hold a digit, with the rune before each run for its \b; nothing in it looks past a run.
func findNumbers(text string, n int) [][]int {
	if groundednessReference {
		return numberRe().FindAllStringIndex(text, n)
	}
	var out [][]int
	runStart, before, digit := -1, 0, false
	flush := func(end int) {
		if runStart >= 0 && digit && (n < 0 || len(out) < n) {
			left := -1
			if n >= 0 {
				left = n - len(out)
			}
			for _, m := range numberRe().FindAllStringIndex(text[before:end], left) {
				out = append(out, []int{before + m[0], before + m[1]})
			}
		}
		runStart, digit = -1, false
	}
	prev := 0
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if numberRune(r) {
			if runStart < 0 {
				runStart, before = i, prev
				if i == 0 {
					before = 0
				}
			}
			digit = digit || r >= '0' && r <= '9'
		} else {
			flush(i)
		}
		prev = i
		i += size
	}
	flush(len(text))
	return out
}

// numberRune reports whether numberRe's match can hold r.
func numberRune(r rune) bool {
	switch {
	case r >= '0' && r <= '9':
		return true
	case r < utf8.RuneSelf:
		return isRESpace(byte(r)) || r == '$' || r == ',' || r == '.' || r == '%'
	}
	return r == '€' || r == '£'
}

// findSentenceEnds is sentenceEnd().FindAllStringIndex(text, -1): `[.!?](?:\s|$)|\n`.
func findSentenceEnds(text string) [][]int {
	if groundednessReference {
		return sentenceEnd().FindAllStringIndex(text, -1)
	}
	var out [][]int
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '.', '!', '?':
			switch {
			case i+1 == len(text):
				out = append(out, []int{i, i + 1})
			case isRESpace(text[i+1]):
				out = append(out, []int{i, i + 2})
				i++
			}
		case '\n':
			out = append(out, []int{i, i + 1})
		}
	}
	return out
}

// minQuoteRunes and maxQuoteRunes bound a quote's text, as quoteRe's {8,300} does.
const (
	minQuoteRunes = 8
	maxQuoteRunes = 300
)

// findQuotes is quoteRe().FindAllStringSubmatchIndex(text, n): `"([^"\n]{8,300})"` or the same
// between “ and ”. The expression's counted repetition compiles to hundreds of instructions that
// run at every byte; here only an opening mark starts a look. Its text is the run of runes up to
// the first closing mark or line break, and it is a quote when that run is 8 to 300 runes long
// and ends at the closing mark (backing off leaves a rune that is not the mark next).
func findQuotes(text string, n int) [][]int {
	if groundednessReference {
		return quoteRe().FindAllStringSubmatchIndex(text, n)
	}
	var out [][]int
	for p := 0; p < len(text) && (n < 0 || len(out) < n); {
		open, closing, group := "", "", 0
		switch {
		case text[p] == '"':
			open, closing, group = `"`, `"`, 2
		case strings.HasPrefix(text[p:], "“"):
			open, closing, group = "“", "”", 4
		default:
			p++
			continue
		}
		s := p + len(open)
		e, runes := s, 0
		for e < len(text) && runes <= maxQuoteRunes && text[e] != '\n' && !strings.HasPrefix(text[e:], closing) {
			_, size := utf8.DecodeRuneInString(text[e:])
			e += size
			runes++
		}
		if runes < minQuoteRunes || runes > maxQuoteRunes || !strings.HasPrefix(text[e:], closing) {
			p++
			continue
		}
		m := []int{p, e + len(closing), -1, -1, -1, -1}
		m[group], m[group+1] = s, e
		out = append(out, m)
		p = m[1]
	}
	return out
}

// findSources is sourceRe().FindAllStringSubmatchIndex(text, n):
// `[\[【]\s*([0-9]{1,3}|[A-Za-z][\w.:-]{0,40})\s*[\]】]`. Only an opening bracket starts a look;
// the name is the whole run of digits (at most 3) or of name characters after a letter (at most
// 41 in all), since backing off leaves a digit or name character where a space or the closing
// bracket must be.
func findSources(text string, n int) [][]int {
	if groundednessReference {
		return sourceRe().FindAllStringSubmatchIndex(text, n)
	}
	return matchAll(text, n, sourceAt)
}

// sourceAt matches sourceRe at p.
func sourceAt(text string, p int) []int {
	var q int
	switch {
	case text[p] == '[':
		q = p + 1
	case strings.HasPrefix(text[p:], "【"):
		q = p + len("【")
	default:
		return nil
	}
	s := skipRESpace(text, q)
	e := s
	switch {
	case e < len(text) && isASCIIDigit(text[e]):
		for e < len(text) && isASCIIDigit(text[e]) {
			e++
		}
		if e-s > 3 {
			return nil
		}
	case e < len(text) && isASCIILetter(text[e]):
		e++
		for e < len(text) && (isASCIIWordByte(text[e]) || text[e] == '.' || text[e] == ':' || text[e] == '-') {
			e++
		}
		if e-s > 41 {
			return nil
		}
	default:
		return nil
	}
	c := skipRESpace(text, e)
	switch {
	case c < len(text) && text[c] == ']':
		return []int{p, c + 1, s, e}
	case strings.HasPrefix(text[c:], "】"):
		return []int{p, c + len("】"), s, e}
	}
	return nil
}
