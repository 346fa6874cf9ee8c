package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean makes a server-supplied string safe to draw on one line of a terminal: control
// characters (C0, DEL, C1), bidirectional overrides and invalid UTF-8 cannot move the cursor,
// change colours or reorder text. Newlines and tabs become spaces; other controls become a
// visible \u escape so that what the server sent is still shown, not hidden.
func Clean(s string) string { return clean(s, false) }

// CleanBlock is Clean for multi-line text (bodies, pretty JSON): newlines are kept, carriage
// returns dropped, tabs expanded to two spaces.
func CleanBlock(s string) string { return clean(s, true) }

func clean(s string, keepNewlines bool) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteByte(' ')
		case r == '\t':
			b.WriteString("  ")
		case r == '\r':
		case unsafeRune(r):
			b.WriteString(`\u`)
			const hex = "0123456789abcdef"
			b.WriteByte(hex[r>>12&0xf])
			b.WriteByte(hex[r>>8&0xf])
			b.WriteByte(hex[r>>4&0xf])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			return true
		}
	}
	return false
}

// unsafeRune reports the runes that change how a terminal draws what follows them.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return !unicode.IsPrint(r) && r != utf8.RuneError
}
