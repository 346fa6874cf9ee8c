package report

import "bytes"

// indentJSON appends src, compact JSON as encoding/json writes it (valid, no insignificant
// space but a trailing newline), to dst indented as json.Indent(dst, src, "", "  ") indents it:
// members and elements one to a line, "key": value, an empty object or array kept as {} or [],
// trailing space preserved. json.Indent runs its validating state machine on every byte, three
// fifths of rendering a scan's 330 KB result; for input the encoder has just produced that
// validation is redundant, and this loop copies strings whole. TestIndentJSONMatchesIndent holds
// it to json.Indent's bytes.
func indentJSON(dst, src []byte) []byte {
	dst, _ = indentAt(dst, src, 0)
	return dst
}

// indentAt is indentJSON for a piece of a document that starts depth levels deep (members of an
// object or elements of an array that are nested in others), so that the pieces of one document
// can be indented apart and joined: it returns dst and the depth where the piece ends. A piece
// must not end with the '{' or '[' of an empty object or array, as what follows decides how that
// is written.
func indentAt(dst, src []byte, depth int) ([]byte, int) {
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			// Copy the string whole: to the first quote not escaped.
			j := i + 1
			for {
				k := bytes.IndexAny(src[j:], `"\`)
				if k < 0 {
					j = len(src)
					break
				}
				j += k
				if src[j] == '\\' {
					j += 2
					continue
				}
				j++
				break
			}
			dst = append(dst, src[i:min(j, len(src))]...)
			i = j - 1
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst, depth
}
