package tui

import "github.com/mcp-sentinel/sentinel/internal/termtext"

// Clean makes a server-supplied string safe to draw on one line of a terminal: control
// characters (C0, DEL, C1), bidirectional overrides and invalid UTF-8 cannot move the cursor,
// change colours or reorder text. Newlines and tabs become spaces; other controls become a
// visible \u escape so that what the server sent is still shown, not hidden.
func Clean(s string) string { return clean(s, false) }

// CleanBlock is Clean for multi-line text (bodies, pretty JSON): newlines are kept, carriage
// returns dropped, tabs expanded to two spaces.
func CleanBlock(s string) string { return clean(s, true) }

func clean(s string, keepNewlines bool) string {
	return termtext.Clean(s, termtext.Options{OneLine: !keepNewlines, Tab: "  "})
}
