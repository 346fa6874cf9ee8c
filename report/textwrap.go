package report

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// columns measures display width as a terminal shows it: wide East Asian characters and emoji
// take two columns, combining marks none, and escape sequences (the report's own colours) none.
// It is displaywidth rather than charmbracelet/x/ansi, which measures the same way but builds
// its parser's tables and runewidth's at initialisation: about 0.9 ms of every command's
// start-up, for a function the text report calls on a few hundred words
// (docs/performance.md).
var columns = displaywidth.Options{ControlSequences: true, ControlSequences8Bit: true}

// wrap breaks s into lines of at most width display columns. Each line of s is wrapped on its
// own; runs of spaces collapse. A word wider than the line (a URL) is kept whole on a line of
// its own: breaking it would make it useless.
func wrap(s string, width int) []string {
	width = max(width, 1)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		line, lineW := words[0], columns.String(words[0])
		for _, w := range words[1:] {
			ww := columns.String(w)
			if lineW+1+ww > width {
				out = append(out, line)
				line, lineW = w, ww
				continue
			}
			line += " " + w
			lineW += 1 + ww
		}
		out = append(out, line)
	}
	return out
}

// truncate cuts s to at most width display columns, ending it with "…" when it was cut.
func truncate(s string, width int) string {
	if columns.String(s) <= width {
		return s
	}
	return columns.TruncateString(s, max(width, 1), "…")
}

// field writes "indent label value" with value wrapped to the width and continuation lines
// aligned under the value.
func (t *textRenderer) field(ew *errWriter, indent int, label string, labelW int, value string) {
	pad := strings.Repeat(" ", indent)
	head := pad + padRight(label, labelW)
	cont := pad + strings.Repeat(" ", labelW)
	for i, line := range wrap(clean(value), t.width-indent-labelW) {
		if i == 0 {
			ew.printf("%s%s\n", head, line)
		} else {
			ew.printf("%s%s\n", cont, line)
		}
	}
}

// para writes value wrapped to the width, every line indented.
func (t *textRenderer) para(ew *errWriter, indent int, value string) {
	pad := strings.Repeat(" ", indent)
	for _, line := range wrap(clean(value), t.width-indent) {
		ew.printf("%s%s\n", pad, line)
	}
}

func padRight(s string, w int) string {
	if s == "" && w == 0 {
		return ""
	}
	if n := columns.String(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s + " "
}
