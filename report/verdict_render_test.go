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
		name  string
		r     *Result
		want  string
		badge string // a badge has room for the verdict only, not its reason
	}{
		{"incomplete", &Result{Target: "http://x/mcp", Incomplete: &Incomplete{Unfinished: 3, Total: 40, Reason: "3 of 40 probes did not finish before --timeout 2s; raise --timeout"}},
			"3 of 40 probes did not finish before --timeout 2s", "incomplete"},
		{"could not run", &Result{Target: "http://x/mcp", Rules: []RuleResult{}, CouldNotRun: &CouldNotRun{Reason: "not an MCP endpoint: POST / → 501 text/html"}},
			"not an MCP endpoint: POST / → 501 text/html", "could not run"},
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
				want := c.want
				if format == FormatBadge {
					want = c.badge
				}
				if !strings.Contains(b.String(), want) {
					t.Errorf("the %s report does not say %q:\n%s", format, want, b.String())
				}
			})
		}
	}
}

// TestAnUnfinishedResultRoundTrips: the JSON of an incomplete or could-not-run result decodes
// again (Decode's key check knew the top-level fields but not theirs).
func TestAnUnfinishedResultRoundTrips(t *testing.T) {
	for _, r := range []*Result{
		{Schema: SchemaVersion, Target: "http://x/mcp", Rules: []RuleResult{}, Incomplete: &Incomplete{Unfinished: 1, Total: 2, Reason: "r", Probes: []string{"p"}}},
		{Schema: SchemaVersion, Target: "http://x/mcp", Rules: []RuleResult{}, CouldNotRun: &CouldNotRun{Reason: "r"}},
	} {
		b, err := MarshalCanonical(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("Decode(%s): %v", b, err)
		}
		if (got.Incomplete == nil) != (r.Incomplete == nil) || (got.CouldNotRun == nil) != (r.CouldNotRun == nil) {
			t.Errorf("round trip lost the verdict: %s", b)
		}
	}
}
