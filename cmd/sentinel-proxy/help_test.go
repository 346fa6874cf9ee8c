package main

import (
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd/cmdtest"
	"github.com/mcp-sentinel/sentinel/report"
)

// runCLI runs the tree the binary builds for args, as main does (cmdtest.Main).
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cmdtest.Main(newRootFor(args), args...)
}

// TestNoFlagShowsAFakeArgument: see cmdtest.CheckNoFakeArgument.
func TestNoFlagShowsAFakeArgument(t *testing.T) { cmdtest.CheckNoFakeArgument(t, newRoot()) }

// TestFormatHelpComesFromTheRegistry: a format added to report is in findings' --format help.
func TestFormatHelpComesFromTheRegistry(t *testing.T) {
	for _, path := range [][]string{{"findings", "export"}, {"findings", "list"}} {
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
		{[]string{"findings", "list", "--level", ""}, []string{"MUST-NOT", "SHOULD"}},
		{[]string{"findings", "export", "--rule", "origin"}, []string{"origin-invalid-403"}},
		{[]string{"findings", "list", "--output", ""}, []string{"sarif="}},
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

func TestFindingsListAndExportHaveTheirOwnExamples(t *testing.T) {
	list, _, _ := newRoot().Find([]string{"findings", "list"})
	export, _, _ := newRoot().Find([]string{"findings", "export"})
	if list.Example == export.Example || !strings.Contains(list.Example, "findings list") || strings.Contains(list.Example, "findings export") {
		t.Errorf("findings list and export share or mix their examples:\n%s\n---\n%s", list.Example, export.Example)
	}
}
