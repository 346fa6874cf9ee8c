package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/baseline"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/report"
)

// The output side of `sentinel probe`: what becomes of the scan's result before it is written.

// scanResult is the result to write: the scan's own, with the tools it did not call named once,
// or, when the scan failed before producing one, a could-not-run result that says why.
func scanResult(endpoint, tool string, out *active.Output, err error, secrets []string) *report.Result {
	if err != nil || out == nil || out.Result == nil {
		if err == nil {
			err = fmt.Errorf("the scan produced no result")
		}
		return sentinelcmd.CouldNotRun(endpoint, tool, err, secrets)
	}
	res := out.Result
	if note := uncalledToolsNote(out.Target); note != "" {
		res.Notes = append(res.Notes, note)
	}
	// The inventory counts months from the day the scan started, so a saved result re-renders
	// with the same dates.
	res.Deprecations = inventoryOf(out.Exchanges, res.Started.UTC().Truncate(24*time.Hour))
	return res
}

// uncalledToolsNote lists, once, the listed tools the scan did not call and why, instead of
// every rule that needed a call repeating "name one with --allow-call".
func uncalledToolsNote(t *active.Target) string {
	if t == nil {
		return ""
	}
	var names []string
	for _, tl := range t.Tools {
		if !slices.Contains(t.Callable, tl.Name) {
			names = append(names, tl.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return fmt.Sprintf("Tools not called: %s. They are not annotated readOnlyHint: true; name each the scan may call with --allow-call (and give arguments with --tool-args). Rules that need such a call are indeterminate.",
		strings.Join(names, ", "))
}

// judge records the gate the result is judged by and, with --baseline, the accepted failures.
func judge(res *report.Result, gate report.Gate, baselinePath string, known *baseline.File) {
	res.Gate = gate
	if known != nil {
		baseline.Apply(res, known, baselinePath)
	}
}

// loadBaseline reads --baseline before the scan, so a bad file costs a second, not a scan.
func loadBaseline(path string) (*baseline.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := baseline.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	return f, nil
}

func addBaselineFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "baseline", "", "file of accepted failures (from sentinel baseline write): they do not fail the gate, new ones do")
}

// registerProbeCompletions completes probe's flag values: gates, rules, areas (formats and
// --show are completed by sentinelcmd.AddOutputFlags).
func registerProbeCompletions(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("gate", sentinelcmd.FixedCompletion(string(report.GateMust), string(report.GateShould), string(report.GateNone)))
	_ = cmd.RegisterFlagCompletionFunc("rule", sentinelcmd.RuleCompletion)
	_ = cmd.RegisterFlagCompletionFunc("area", sentinelcmd.AreaCompletion)
}
