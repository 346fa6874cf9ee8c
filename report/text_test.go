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
	return renderTextOpts(t, r, &Options{Color: color, Show: ShowAll})
}

func renderTextOpts(t *testing.T, r *Result, o *Options) string {
	t.Helper()
	rd, err := New(FormatText, o)
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
		"\n  MUST: 2 pass, 1 fail, 1 indeterminate, 1 n/a\n",
		"\n  SHOULD: 0 pass, 2 fail, 1 indeterminate, 0 n/a\n",
		"\n  evaluated: 5 of 8 rules (pass or fail); 3 findings break 3 rules\n",
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
		"[SHOULD NOT] " + undecided.Rule.Name,
		"why:          could not see it",
		"would settle: a code review",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if def := renderTextOpts(t, r, nil); strings.Contains(def, r.Rules[2].Rule.ID) || strings.Contains(def, undecided.Rule.ID) {
		t.Errorf("the default report (--show fail) lists a passing or an indeterminate rule by ID:\n%s", def)
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

// TestTextFitsTheWidth: every line of a real scan's report fits the width, except a line whose
// only long word is one that must not be broken (a URL).
func TestTextFitsTheWidth(t *testing.T) {
	r := loadCase(t, "testdata/fixture.result.json")
	for _, width := range []int{80, 120} {
		for _, show := range []Show{ShowFail, ShowAll} {
			out := renderTextOpts(t, r, &Options{Width: width, Show: show})
			for i, line := range strings.Split(out, "\n") {
				if n := len([]rune(line)); n > width {
					words := strings.Fields(line)
					long := words[len(words)-1]
					if len([]rune(long)) <= width-18 || len(words) > 3 { // the value column starts at 18
						t.Errorf("width %d, --show %s, line %d is %d columns: %q", width, show, i+1, n, line)
					}
				}
			}
		}
	}
}

func TestTextLeadsWithTheVerdict(t *testing.T) {
	fail := testResult(rules.Must, rules.Fail)
	pass := testResult(rules.Must, rules.Pass, rules.Should, rules.Fail)
	incomplete := testResult(rules.Must, rules.Fail)
	incomplete.Incomplete = &Incomplete{Unfinished: 3, Total: 41, Reason: "3 of 41 probes did not finish before --timeout 2s; raise --timeout"}
	couldNot := &Result{CouldNotRun: &CouldNotRun{Reason: "not an MCP endpoint: POST / → 501 text/html"}}
	tests := []struct {
		name string
		r    *Result
		want string
	}{
		{"failed", fail, "FAILED the must gate: 1 finding (1 rule) fail it"},
		{"passed, a SHOULD failure below the gate", pass, "PASSED the must gate: no finding fails it; 1 finding below the gate"},
		{"incomplete", incomplete, "INCOMPLETE: 3 of 41 probes did not finish before --timeout 2s; raise --timeout; 1 finding (1 rule) found in what finished"},
		{"could not run", couldNot, "COULD NOT RUN: not an MCP endpoint: POST / → 501 text/html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := renderTextOpts(t, tt.r, &Options{Width: 200})
			if first, _, _ := strings.Cut(out, "\n"); first != tt.want {
				t.Errorf("first line %q, want %q", first, tt.want)
			}
			quiet := renderTextOpts(t, tt.r, &Options{Width: 200, Quiet: true})
			if quiet != tt.want+"\n" {
				t.Errorf("--quiet wrote %q, want the verdict line alone", quiet)
			}
		})
	}
}

// TestTextDefaultShowsIndeterminateAsCounts: the default report says how many rules were not
// settled per area and points at --show all, instead of listing each.
func TestTextDefaultShowsIndeterminateAsCounts(t *testing.T) {
	r := loadCase(t, "testdata/fixture.result.json")
	def := renderTextOpts(t, r, nil)
	all := renderTextOpts(t, r, &Options{Show: ShowAll})
	if strings.Contains(def, "mrtr-allowed-methods") || !strings.Contains(def, "--show all") {
		t.Errorf("the default report lists indeterminate rules one by one, or gives no pointer to --show all")
	}
	_, section, _ := strings.Cut(all, "\nIndeterminate: ")
	section, _, _ = strings.Cut(section, "\nNot applicable: ")
	if n := strings.Count(section, "\n    ["); n != r.Tally().Indeterminate {
		t.Errorf("--show all lists %d indeterminate rules, want %d", n, r.Tally().Indeterminate)
	}
	if strings.Count(all, "name one with --allow-call") > 3 {
		t.Errorf("--show all repeats the --allow-call hint %d times; a reason shared by rules is said once", strings.Count(all, "name one with --allow-call"))
	}
}
