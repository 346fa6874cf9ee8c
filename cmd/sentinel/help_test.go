package main

import (
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd/cmdtest"
	"github.com/mcp-sentinel/sentinel/report"
)

// TestNoFlagShowsAFakeArgument: see cmdtest.CheckNoFakeArgument.
func TestNoFlagShowsAFakeArgument(t *testing.T) { cmdtest.CheckNoFakeArgument(t, newRoot()) }

func TestVersionFlag(t *testing.T) {
	code, stdout, _ := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(stdout, "sentinel ") {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
}

// TestFormatHelpComesFromTheRegistry: a format added to report is in every --format's help.
func TestFormatHelpComesFromTheRegistry(t *testing.T) {
	for _, path := range [][]string{{"probe"}, {"diff"}, {"deprecations"}} {
		cmd, _, err := newRoot().Find(path)
		if err != nil {
			t.Fatal(err)
		}
		usage := cmd.Flags().Lookup("format").Usage
		for _, f := range report.Formats() {
			if !strings.Contains(usage, f+" (") {
				t.Errorf("%v --format help %q does not offer %s", path, usage, f)
			}
			if cmd.Flags().Lookup("out-"+f) == nil {
				t.Errorf("%v has no --out-%s", path, f)
			}
		}
	}
}

func TestCompletionCompletesFlagValues(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"probe", "--format", ""}, []string{"sarif", "markdown", "html"}},
		{[]string{"probe", "--gate", ""}, []string{"must", "should", "none"}},
		{[]string{"probe", "--rule", "origin"}, []string{"origin-invalid-403"}},
		{[]string{"probe", "--area", ""}, []string{"headers", "mrtr"}},
		{[]string{"rules", "list", "--check", ""}, []string{"indeterminate"}},
		{[]string{"rules", "explain", ""}, []string{"discover-implemented"}},
		{[]string{"diff", "--output", ""}, []string{"sarif="}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, stdout, _ := runCLI(t, append([]string{"__complete"}, tt.args...)...)
			for _, w := range tt.want {
				if !strings.Contains(stdout, w+"\n") {
					t.Errorf("completing %v does not offer %q:\n%.500s", tt.args, w, stdout)
				}
			}
		})
	}
}

// TestErrorsSayWhatToDo: each mistake gets a message that says how to fix it, never a Go type,
// never a possible secret.
func TestErrorsSayWhatToDo(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string
		notWant []string
	}{
		{"an endpoint without a scheme", []string{"probe", "--endpoint", "127.0.0.1:8080/mcp"}, "add http:// or https://, e.g. http://127.0.0.1:8080/mcp", nil},
		{"deprecations: an endpoint without a scheme", []string{"deprecations", "--endpoint", "127.0.0.1:8080/mcp"}, "add http://", nil},
		{"tool args that are not JSON", []string{"probe", "--endpoint", "http://127.0.0.1:1/mcp", "--tool-args", "get_weather={city:Paris}"},
			`--tool-args for tool "get_weather": not valid JSON at byte 2`, []string{"map[", "interface"}},
		{"tool args that are not an object", []string{"probe", "--endpoint", "http://127.0.0.1:1/mcp", "--tool-args", `get_weather=["Paris"]`},
			"must be a JSON object such as", []string{"map[", "interface"}},
		{"tool args that are null", []string{"probe", "--endpoint", "http://127.0.0.1:1/mcp", "--tool-args", "get_weather=null"},
			"not null", []string{"map[", "interface"}},
		{"a header without a colon", []string{"probe", "--endpoint", "http://127.0.0.1:1/mcp", "--header", "X-Ok: 1", "--header", "Bearer sk-live-SECRET"},
			`--header number 2 has no colon: want "Name: value"`, []string{"sk-live-SECRET", "<redacted>"}},
		{"rules explain without a rule", []string{"rules", "explain"}, "rules explain takes one rule ID or name, e.g. sentinel rules explain origin-invalid-403", nil},
		{"diff with one file", []string{"diff", "a.json"}, "two saved results", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			out := stdout + stderr
			if code != 2 || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, output %q; want exit 2 and %q", code, out, tt.want)
			}
			for _, bad := range tt.notWant {
				if strings.Contains(out, bad) {
					t.Errorf("the message carries %q: %q", bad, out)
				}
			}
		})
	}
}
