package report

import (
	"fmt"
	"html/template"
	"io"
	"unicode/utf8"
)

func init() {
	register(Format{Name: FormatBadge, Ext: ".svg", Help: `an SVG badge, "MCP 2026-07-28 | 78/78 MUST"`, order: 6,
		new: func(Options) Renderer { return badgeRenderer{} }})
}

// FormatBadge is the SVG badge's format name (`sentinel badge`, `--out-badge`).
const FormatBadge = "badge"

var _ Renderer = badgeRenderer{}

// badgeRenderer writes a shields-style SVG badge for a README: "MCP 2026-07-28" on the left, the
// MUST-level rules that passed out of those evaluated on the right ("78/78 MUST"), green when
// none failed, red when some did, grey with "incomplete" or "could not run" when the scan did not
// finish. Indeterminate rules are not in either number: they were not evaluated.
type badgeRenderer struct{}

// BadgeText is the badge's right-hand text and its colour class for r.
func BadgeText(r *Result) (text, color string) {
	tl := r.Tally()
	switch tl.Verdict {
	case VerdictCouldNotRun:
		return "could not run", "#9f9f9f"
	case VerdictIncomplete:
		return "incomplete", "#9f9f9f"
	case VerdictPassed, VerdictFailed:
	}
	text = fmt.Sprintf("%d/%d MUST", tl.Must.Pass, tl.Must.Evaluated())
	if tl.Must.Fail > 0 {
		return text, "#e05d44"
	}
	return text, "#4c1"
}

// Render writes the badge.
func (badgeRenderer) Render(w io.Writer, r *Result) error {
	if r == nil {
		return errNilResult
	}
	const label = "MCP 2026-07-28"
	text, color := BadgeText(r)
	// Verdana 11px averages about 6.5px a character; the badge is sized from it, as shields do.
	lw, rw := 10+utf8.RuneCountInString(label)*13/2, 10+utf8.RuneCountInString(text)*13/2
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">
<title>%s: %s</title>
<linearGradient id="s" x2="0" y2="100%%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="%d" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%d" y="14">%s</text>
<text x="%d" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%d" y="14">%s</text>
</g>
</svg>
`, lw+rw, label, esc(text), label, esc(text), lw+rw, lw, lw, rw, color, lw+rw,
		lw/2, label, lw/2, label, lw+rw/2, esc(text), lw+rw/2, esc(text))
	return writeAll(w, "badge", []byte(svg))
}

func esc(s string) string { return template.HTMLEscapeString(s) }
