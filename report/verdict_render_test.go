package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestEveryFormatSaysAScanDidNotFinish: an incomplete scan and one that could not run can never
// read as a pass in any format, so every renderer carries the reason (the exit code says 2, but a
// SARIF upload or a JUnit dashboard sees only the file).
func TestEveryFormatSaysAScanDidNotFinish(t *testing.T) {
	cases := []struct {
		name string
		r    *Result
		want string
	}{
		{"incomplete", &Result{Target: "http://x/mcp", Incomplete: &Incomplete{Unfinished: 3, Total: 40, Reason: "3 of 40 probes did not finish before --timeout 2s; raise --timeout"}},
			"3 of 40 probes did not finish before --timeout 2s"},
		{"could not run", &Result{Target: "http://x/mcp", Rules: []RuleResult{}, CouldNotRun: &CouldNotRun{Reason: "not an MCP endpoint: POST / → 501 text/html"}},
			"not an MCP endpoint: POST / → 501 text/html"},
	}
	for _, c := range cases {
		for _, format := range Formats() {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				rd, err := New(format, nil)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := rd.Render(&b, c.r); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(b.String(), c.want) {
					t.Errorf("the %s report does not say %q:\n%s", format, c.want, b.String())
				}
			})
		}
	}
}
