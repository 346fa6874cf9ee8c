package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name string
		in   string
		o    Options
		want string
	}{
		{"plain text is untouched", "tools/call search", Options{}, "tools/call search"},
		{"escape sequences become visible", "a\x1b[31mred", Options{}, `a\u001b[31mred`},
		{"bidi override is escaped", "abc\u202edef", Options{}, `abc\u202edef`},
		{"newlines kept in blocks", "a\nb", Options{}, "a\nb"},
		{"newlines folded on one line", "a\nb", Options{OneLine: true}, "a b"},
		{"carriage returns dropped", "a\r\nb", Options{}, "a\nb"},
		{"tab as one space by default", "a\tb", Options{}, "a b"},
		{"tab as configured", "a\tb", Options{Tab: "  "}, "a  b"},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", Options{}, "a\ufffdb"},
		{"C1 control escaped", "a\u0085b", Options{}, `a\u0085b`},
		{"printable unicode kept", "naïve ☃", Options{}, "naïve ☃"},
	}
	for _, tt := range tests {
		if got := Clean(tt.in, tt.o); got != tt.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// FuzzClean asserts the property that matters: nothing unsafe survives, the output is valid
// UTF-8, and cleaning twice changes nothing more than cleaning once.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x1b[2Jb", "\u202e\u2066x", "\xff\xfe", "a\tb\r\nc", "\u0085"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, oneLine bool) {
		o := Options{OneLine: oneLine}
		got := Clean(s, o)
		if !utf8.ValidString(got) {
			t.Fatalf("Clean(%q) = %q is not valid UTF-8", s, got)
		}
		for _, r := range got {
			if r == '\n' && !oneLine {
				continue // blocks keep their newlines
			}
			if Unsafe(r) || r == '\r' || r == '\t' {
				t.Fatalf("Clean(%q) = %q still holds %U", s, got, r)
			}
		}
		if again := Clean(got, o); again != got && !strings.Contains(got, `\u`) {
			t.Fatalf("Clean is not idempotent on %q: %q then %q", s, got, again)
		}
	})
}
