package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd/cmdtest"
	"github.com/mcp-sentinel/sentinel/rules"
)

// runSentinel runs the whole command tree in process with args (cmdtest.Execute).
func runSentinel(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return cmdtest.Execute(t, newRoot(), args...)
}

func TestRulesListFilters(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantIn    []string
		wantNotIn []string
	}{
		{"level, any case", []string{"--level", "must-not"},
			[]string{"MCP/2026-07-28/MUST-NOT/retired-codes", "MUST 0, MUST NOT "},
			[]string{"/MUST/discover-implemented", "/SHOULD/"}},
		{"area", []string{"--area", "headers"},
			[]string{"/MUST/mcp-method-match", "/MUST/intermediary-forwards-param-headers"},
			[]string{"/discover-implemented"}},
		{"check active includes both", []string{"--check", "active"},
			[]string{"/MUST/origin-invalid-403", "/MUST/cache-hints-present"},
			[]string{"/MUST/jsonrpc-envelope", "/MUST/token-audience-validated"}},
		{"check passive includes both", []string{"--check", "passive"},
			[]string{"/MUST/jsonrpc-envelope", "/MUST/cache-hints-present"},
			[]string{"/MUST/origin-invalid-403"}},
		{"check indeterminate", []string{"--check", "INDETERMINATE"},
			[]string{"/MUST/token-audience-validated", "active 0, passive 0, both 0"},
			[]string{"/MUST/origin-invalid-403"}},
		{"filters combine", []string{"--level", "should_not", "--area", "caching", "--check", "passive"},
			[]string{"/SHOULD-NOT/no-hints-on-input-required", "\n1 rules: "},
			[]string{"/MUST/cache-hints-present"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runSentinel(t, append([]string{"rules", "list"}, tt.args...)...)
			if code != cli.ExitPass {
				t.Fatalf("exit %d: %s", code, out)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.wantNotIn {
				if strings.Contains(out, s) {
					t.Errorf("output has %q:\n%s", s, out)
				}
			}
		})
	}
}

func TestRulesListSummaryCountsEveryRule(t *testing.T) {
	out, code := runSentinel(t, "rules", "list")
	if code != cli.ExitPass {
		t.Fatalf("exit %d: %s", code, out)
	}
	want := len(rules.All())
	if !strings.Contains(out, "\n"+itoa(want)+" rules: MUST ") {
		t.Errorf("summary does not count %d rules:\n%s", want, out[max(0, len(out)-300):])
	}
	// The binary links active and passive (implemented.go), so the line counts the union of
	// their rule IDs, which must match the registries and reach the floor of 150.
	impl := implementedRuleIDs()
	n := 0
	for _, r := range rules.All() {
		if impl[r.ID] {
			n++
		}
	}
	if n < 150 {
		t.Errorf("only %d rules have an implemented check; want at least 150", n)
	}
	if line := "implemented checks: " + itoa(n) + " of " + itoa(want) + " rules"; !strings.Contains(out, line) {
		t.Errorf("output lacks %q:\n%s", line, out[max(0, len(out)-300):])
	}
}

func TestRulesListCountsImplementedChecksWhenLinked(t *testing.T) {
	saved := implementedRuleIDs
	t.Cleanup(func() { implementedRuleIDs = saved })
	implementedRuleIDs = func() map[string]bool {
		return map[string]bool{rules.IDOf("retired-codes"): true, rules.IDOf("origin-invalid-403"): true}
	}
	out, _ := runSentinel(t, "rules", "list", "--area", "errors")
	if !strings.Contains(out, "implemented checks: 1 of ") {
		t.Errorf("want one implemented check among the error rules:\n%s", out)
	}
}

func TestRulesListJSON(t *testing.T) {
	out, code := runSentinel(t, "rules", "list", "--format", "json", "--area", "discover")
	if code != cli.ExitPass {
		t.Fatalf("exit %d: %s", code, out)
	}
	var doc struct {
		Revision string       `json:"revision"`
		Rules    []rules.Rule `json:"rules"`
		Summary  struct {
			Total       int  `json:"total"`
			Implemented *int `json:"implemented"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if doc.Revision != rules.Revision || len(doc.Rules) == 0 || doc.Summary.Total != len(doc.Rules) {
		t.Fatalf("revision %q, %d rules, total %d", doc.Revision, len(doc.Rules), doc.Summary.Total)
	}
	impl := implementedRuleIDs()
	wantImpl := 0
	for _, r := range doc.Rules {
		if impl[r.ID] {
			wantImpl++
		}
	}
	switch {
	case doc.Summary.Implemented == nil:
		t.Errorf("implemented = null, want %d: the binary links the probe and passive registries", wantImpl)
	case *doc.Summary.Implemented != wantImpl:
		t.Errorf("implemented = %d, want %d (the discover rules with a probe or passive check)", *doc.Summary.Implemented, wantImpl)
	}
	for _, r := range doc.Rules {
		if !r.HasArea(rules.AreaDiscover) {
			t.Errorf("rule %s is not in the discover area", r.ID)
		}
	}
}

func TestRulesListRejectsUnknownFilterValues(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"level", []string{"--level", "MAY"}, "MUST-NOT"},
		{"area", []string{"--area", "gossip"}, "headers"},
		{"check", []string{"--check", "manual"}, "indeterminate"},
		{"format", []string{"--format", "xml"}, "json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runSentinel(t, append([]string{"rules", "list"}, tt.args...)...)
			if code != cli.ExitCannotRun {
				t.Fatalf("exit %d, want %d: %s", code, cli.ExitCannotRun, out)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("error does not list the valid values (%q): %s", tt.want, out)
			}
		})
	}
}

func TestRulesExplain(t *testing.T) {
	tests := []struct {
		name   string
		arg    string
		wantIn []string
	}{
		{"full ID", "MCP/2026-07-28/MUST/origin-invalid-403",
			[]string{"Requirement:", "#security-&-endpoint", "Remediation:", "Check:", "active", "Areas:", "security"}},
		{"bare name with deprecation", "no-log-without-loglevel",
			[]string{"MCP/2026-07-28/MUST-NOT/no-log-without-loglevel", "Deprecation:", "2027-07-28"}},
		{"indeterminate rule", "token-audience-validated",
			[]string{"Why not:", "Would settle:", "auth (n/a when the server lacks it)"}},
		{"rule added from the spec", "tool-outputs-sanitized", []string{"added from the spec", "Note:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runSentinel(t, "rules", "explain", tt.arg)
			if code != cli.ExitPass {
				t.Fatalf("exit %d: %s", code, out)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}

func TestRulesExplainJSON(t *testing.T) {
	out, code := runSentinel(t, "rules", "explain", "--format", "json", "get-delete-405")
	if code != cli.ExitPass {
		t.Fatalf("exit %d: %s", code, out)
	}
	var doc struct {
		ID       string          `json:"id"`
		Removals []rules.Removal `json:"removals"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if doc.ID != rules.IDOf("get-delete-405") || len(doc.Removals) == 0 {
		t.Fatalf("id %q, %d removals; want the GET stream and session removals", doc.ID, len(doc.Removals))
	}
}

func TestRulesExplainUnknownSuggestsClosest(t *testing.T) {
	out, code := runSentinel(t, "rules", "explain", "origin-invalid-404")
	if code != cli.ExitCannotRun {
		t.Fatalf("exit %d, want %d", code, cli.ExitCannotRun)
	}
	if !strings.Contains(out, "did you mean origin-invalid-403") {
		t.Errorf("no suggestion: %s", out)
	}
}

func TestRulesHelpHasExamples(t *testing.T) {
	for _, args := range [][]string{{"rules", "list", "--help"}, {"rules", "explain", "--help"}} {
		out, code := runSentinel(t, args...)
		if code != cli.ExitPass || !strings.Contains(out, "Examples:") {
			t.Errorf("%v: exit %d, examples missing:\n%s", args, code, out)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRulesListSaysNotLinkedWithoutRegistries(t *testing.T) {
	var b strings.Builder
	if err := runRulesList(&b, listOptions{format: "text"}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "implemented checks: not linked") {
		t.Errorf("a build without the registries does not say so:\n%s", b.String())
	}
}

// TestRulesTableAlignsAsTabwriter: the table writer pads its columns as text/tabwriter did
// (minwidth 0, padding 2, spaces), the oracle here, on every rule and on a cell wider than
// any rule's.
func TestRulesTableAlignsAsTabwriter(t *testing.T) {
	rs := rules.All()
	rs = append(rs, rules.Rule{ID: "MCP/x/MUST/" + strings.Repeat("é", 90), Level: rules.Must, Check: rules.CheckBoth})
	var got bytes.Buffer
	if err := writeRulesTableTo(&got, rs, listSummary{}); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tCHECK\tAREAS")
	for _, r := range rs {
		areas := make([]string, len(r.Areas))
		for i, a := range r.Areas {
			areas[i] = string(a)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Level, r.Check, strings.Join(areas, ","))
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	table, _, _ := strings.Cut(got.String(), "\n\n") // the summary follows a blank line
	if table+"\n" != want.String() {
		t.Errorf("the table differs from tabwriter's:\n%s\nwant:\n%s", table, want.String())
	}
}
