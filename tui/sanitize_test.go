package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-sentinel/sentinel/internal/termtext"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want, wantBlock string
	}{
		{name: "plain text is unchanged", in: "tools/call", want: "tools/call", wantBlock: "tools/call"},
		{name: "escape sequences become visible", in: "a\x1b[31mred", want: `a\u001b[31mred`, wantBlock: `a\u001b[31mred`},
		{name: "newlines are spaces on one line, kept in blocks", in: "a\nb", want: "a b", wantBlock: "a\nb"},
		{name: "carriage return is dropped", in: "a\rb", want: "ab", wantBlock: "ab"},
		{name: "bidi override is escaped", in: "x\u202ey", want: `x\u202ey`, wantBlock: `x\u202ey`},
		{name: "C1 control is escaped", in: "x\u009bq", want: `x\u009bq`, wantBlock: `x\u009bq`},
		{name: "invalid UTF-8 becomes U+FFFD", in: "a\xffb", want: "a\ufffdb", wantBlock: "a\ufffdb"},
		{name: "non-ASCII letters stay", in: "café ✓", want: "café ✓", wantBlock: "café ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := CleanBlock(tt.in); got != tt.wantBlock {
				t.Errorf("CleanBlock(%q) = %q, want %q", tt.in, got, tt.wantBlock)
			}
		})
	}
}

// FuzzClean checks that nothing a server sends survives cleaning as a control character, that
// cleaning is idempotent, and that output grows at most six-fold (one \uXXXX per byte).
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "a\x1b]52;c;aGk=\x07", "\u202e\u2066", "\x00\x7f\x9b", "\xff\xfe", "line\nnext"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, got := range []string{Clean(s), CleanBlock(s)} {
			if !utf8.ValidString(got) {
				t.Fatalf("cleaned %q is not valid UTF-8: %q", s, got)
			}
			for _, r := range got {
				if r != '\n' && termtext.Unsafe(r) {
					t.Fatalf("cleaned %q still holds %U: %q", s, r, got)
				}
			}
			if len(got) > 6*len(s) {
				t.Fatalf("cleaned %q grew to %d bytes", s, len(got))
			}
		}
		if c := Clean(s); Clean(c) != c || strings.Contains(c, "\n") {
			t.Fatalf("Clean(%q) = %q is not a fixed point on one line", s, c)
		}
		if c := CleanBlock(s); CleanBlock(c) != c {
			t.Fatalf("CleanBlock(%q) = %q is not a fixed point", s, c)
		}
	})
}
