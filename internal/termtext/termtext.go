// Package termtext makes text that came from a server safe to draw on a terminal. Both the text
// report and the TUI print strings a peer chose (tool names, error messages, bodies); a control
// character or a bidirectional override in them could move the cursor, recolour the screen or
// reorder what the reader sees ("trojan source", CVE-2021-42574). One implementation serves both.
//
// It imports nothing of Sentinel's.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options says how the layout characters are kept. The zero value keeps newlines and turns a tab
// into one space.
type Options struct {
	// OneLine turns newlines into spaces, for a value drawn on one line.
	OneLine bool
	// Tab replaces each tab; empty means one space.
	Tab string
}

// Clean returns s with invalid UTF-8 as U+FFFD, carriage returns dropped, newlines and tabs laid
// out per o, and every other control character (C0, DEL, C1), bidirectional control and
// non-printable rune written as a visible \uXXXX escape, so what the server sent is shown, not
// hidden. Strings that need nothing are returned as they are, without allocating.
func Clean(s string, o Options) string {
	if !needsCleaning(s) {
		return s
	}
	tab := o.Tab
	if tab == "" {
		tab = " "
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' && o.OneLine:
			b.WriteByte(' ')
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString(tab)
		case r == '\r':
		case Unsafe(r):
			const hex = "0123456789abcdef"
			b.WriteString(`\u`)
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

// needsCleaning is the fast path: plain printable ASCII needs nothing.
func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			return true
		}
	}
	return false
}

// Unsafe reports the runes that change how a terminal draws what follows them: C0 and C1 controls,
// DEL, the bidirectional embedding, override, isolate and mark characters, and anything else that
// is not printable. U+FFFD is printable (it is what invalid UTF-8 becomes).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return !unicode.IsPrint(r) && r != utf8.RuneError
}
