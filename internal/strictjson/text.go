package strictjson

import (
	"fmt"
	"unicode/utf8"
)

// TextError is a message that is not acceptable JSON text for a reason encoding/json would hide:
// bytes that are not UTF-8 (which it silently replaces with U+FFFD, shifting every offset a
// caller computes against its own bytes), an escape naming half a surrogate pair (replaced the
// same way), or nesting deeper than the limit. Offset is the byte position of the problem.
type TextError struct {
	Offset  int
	Problem string
}

func (e *TextError) Error() string {
	return fmt.Sprintf("%s at byte %d", e.Problem, e.Offset)
}

// CheckText scans data once and returns a *TextError for invalid UTF-8, a lone surrogate escape
// (\ud800-\udfff not forming a pair) or nesting deeper than maxDepth (0 means no limit). It does
// not check the JSON grammar; decoding does that afterwards.
func CheckText(data []byte, maxDepth int) error {
	if !utf8.Valid(data) {
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				return &TextError{Offset: i, Problem: "invalid UTF-8"}
			}
			i += n
		}
	}
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '"':
				inString = false
			case '\\':
				if i+1 < len(data) && data[i+1] == 'u' {
					n, err := surrogateEscape(data, i)
					if err != nil {
						return err
					}
					i += n - 1
				} else {
					i++
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if maxDepth > 0 && depth > maxDepth {
				return &TextError{Offset: i, Problem: fmt.Sprintf("nesting deeper than %d levels", maxDepth)}
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// surrogateEscape checks the \uXXXX escape at data[i] and returns how many bytes it (and, for a
// high surrogate, its low partner) spans. Malformed hex is left for the decoder to refuse.
func surrogateEscape(data []byte, i int) (int, error) {
	r, ok := hex4(data, i+2)
	if !ok {
		return 2, nil
	}
	switch {
	case r >= 0xdc00 && r <= 0xdfff:
		return 0, &TextError{Offset: i, Problem: "a lone low surrogate escape (text must be valid Unicode)"}
	case r >= 0xd800 && r <= 0xdbff:
		if i+12 <= len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
			if lo, ok := hex4(data, i+8); ok && lo >= 0xdc00 && lo <= 0xdfff {
				return 12, nil
			}
		}
		return 0, &TextError{Offset: i, Problem: "a lone high surrogate escape (text must be valid Unicode)"}
	}
	return 6, nil
}

func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
