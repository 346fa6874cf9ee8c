package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func renderText(t *testing.T, r *Result, color bool) string {
	t.Helper()
	rd, err := New(FormatText, &Options{Color: color})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rd.Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestTextSummaryLines pins the three summary lines scripts grep for, with MUST NOT counted on
// the MUST line and SHOULD NOT on the SHOULD line.
func TestTextSummaryLines(t *testing.T) {
	r := testResult(
		rules.Must, rules.Pass, rules.MustNot, rules.Fail, rules.Must, rules.Indeterminate,
		rules.MustNot, rules.NotApplicable, rules.Must, rules.Pass,
		rules.Should, rules.Fail, rules.ShouldNot, rules.Fail, rules.ShouldNot, rules.Indeterminate,
	)
	out := renderText(t, r, false)
	for _, want := range []string{
		"\nMUST: 2 pass, 1 fail, 1 indeterminate, 1 n/a\n",
		"\nSHOULD: 0 pass, 2 fail, 1 indeterminate, 0 n/a\n",
		"\nevaluated: 5 of 8 rules (pass or fail)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

// TestTextListsEveryFailureAndIndeterminate: each failure shows ID, level, observed,
// remediation and spec; each indeterminate rule shows why and what would settle it.
func TestTextListsEveryFailureAndIndeterminate(t *testing.T) {
	r := testResult(rules.MustNot, rules.Fail, rules.ShouldNot, rules.Indeterminate, rules.Must, rules.Pass)
	r.Rules[1].Rule.Check = rules.CheckIndeterminate
	r.Rules[1].Rule.Indeterminacy = &rules.Indeterminacy{Reason: "hidden inside", WouldSettle: "a code review"}
	out := renderText(t, r, false)
	fail, undecided := r.Rules[0], r.Rules[1]
	for _, want := range []string{
		"FAIL [MUST NOT] " + fail.Rule.ID,
		"observed:     observed violation",
		"remediation:  " + fail.Rule.Remediation,
		"spec:         " + fail.Rule.SpecURL,
		"INDETERMINATE [SHOULD NOT] " + undecided.Rule.ID,
		"why:          could not see it",
		"would settle: a code review",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, r.Rules[2].Rule.ID) {
		t.Errorf("text report lists the passing rule %s; only failures and indeterminate rules are listed", r.Rules[2].Rule.ID)
	}
}

func TestTextColour(t *testing.T) {
	r := testResult(rules.Must, rules.Fail, rules.Should, rules.Fail, rules.Must, rules.Indeterminate)
	plain, coloured := renderText(t, r, false), renderText(t, r, true)
	if strings.Contains(plain, "\x1b") {
		t.Errorf("Color=false output carries ANSI escapes")
	}
	if !strings.Contains(coloured, ansiRed+"FAIL"+ansiReset) || !strings.Contains(coloured, ansiYellow+"FAIL"+ansiReset) {
		t.Errorf("Color=true output does not colour MUST failures red and SHOULD failures yellow")
	}
	if got := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(coloured, ""); got != plain {
		t.Errorf("stripping colour does not give the plain report: severity must not depend on colour")
	}
}

// TestTextNeutralisesHostileStrings: a server cannot drive the terminal through the report.
func TestTextNeutralisesHostileStrings(t *testing.T) {
	r := testResult(rules.Must, rules.Fail)
	r.Target = "http://127.0.0.1/\x1b]0;pwned\x07"
	r.Rules[0].Evidence[0].Observed = "name \x1b[2J\rcleared \u202eevil\u202c\ttab \xff bad"
	out := renderText(t, r, false)
	for _, bad := range []string{"\x1b", "\r", "\x07", "\u202e", "\t", "\xff"} {
		if strings.Contains(out, bad) {
			t.Errorf("text report carries raw %q", bad)
		}
	}
	if !strings.Contains(out, `name \u001b[2Jcleared \u202eevil\u202c tab `+"\uFFFD"+` bad`) {
		t.Errorf("hostile observed text not rendered visibly:\n%s", out)
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"日本語 ünïcödé 🚨", "日本語 ünïcödé 🚨"},
		{"line\nnext", "line\nnext"},
		{"a\x00b", `a\u0000b`},
		{"del\x7f", `del\u007f`},
		{"c1\u0085", `c1\u0085`},
		{"bidi\u2066x\u2069", `bidi\u2066x\u2069`},
		{"crlf\r\n", "crlf\n"},
		{"bad\xc3", "bad\uFFFD"},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestColorFor(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	if ColorFor(f) {
		t.Errorf("ColorFor(regular file) = true, want false")
	}
	if ColorFor(nil) {
		t.Errorf("ColorFor(nil) = true, want false")
	}
}
