package report

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestColumnsMeasureAsANSIDid: the text report's width measure (displaywidth) gives what
// charmbracelet/x/ansi, which it replaced to keep ansi's initialisers out of start-up, gave for
// the text a report holds: ASCII, accents, combining marks, CJK, emoji with and without joiners,
// and the report's own colour escapes. Truncation is held to the same on each.
func TestColumnsMeasureAsANSIDid(t *testing.T) {
	texts := []string{
		"", "plain words", "naïve café", "e\u0301tude", "資料の参照", "잘못된 요청", "مرحبا بالعالم",
		"👍 ok", "👨‍👩‍👧 family", "🇫🇷 flag", "\x1b[31mFAIL\x1b[0m 12", "\x1b[1;33mMUST\x1b[0m naïve 資料",
		"tab\there", "zero\u200bwidth", "ｆｕｌｌｗｉｄｔｈ", "https://example.com/a/very/long/path?with=query&and=more",
	}
	for _, s := range texts {
		if got, want := columns.String(s), ansi.StringWidth(s); got != want {
			t.Errorf("width of %q: %d, ansi said %d", s, got, want)
		}
		for _, w := range []int{1, 3, 5, 8} {
			got := truncate(s, w)
			want := s
			if ansi.StringWidth(s) > w {
				want = ansi.Truncate(s, w, "…")
			}
			if columns.String(got) > w && columns.String(s) > w {
				t.Errorf("truncate(%q, %d) = %q is %d columns wide", s, w, got, columns.String(got))
			}
			if ansi.Strip(got) != ansi.Strip(want) {
				t.Errorf("truncate(%q, %d) = %q, ansi cut it to %q", s, w, got, want)
			}
		}
	}
}
