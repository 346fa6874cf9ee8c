package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/diff"
	"github.com/mcp-sentinel/sentinel/report"
)

func init() { register(newDiffCommand, "diff") }

func newDiffCommand() *cobra.Command {
	var gate string
	var o sentinelcmd.OutputOptions
	cmd := &cobra.Command{
		Use:   "diff OLD.json NEW.json",
		Short: "Compare two saved results: regressions, fixes, unchanged",
		Long: `Compare two results saved with --format json: NEW is judged with OLD as its baseline. A
regression is a failure NEW has and OLD had not (a new failing rule, or a new observation of a
failing rule); a fix is a rule that failed in OLD and passes in NEW; the rest is unchanged. The
report is NEW's, in any --format, with regressions first.

Exit codes: 0 no regression counts for --gate (default should: every regression), 1 there is
one, 2 a file could not be read or NEW's scan did not finish.`,
		Example: `  sentinel diff main.json pr.json
  sentinel diff main.json pr.json --format markdown >> "$GITHUB_STEP_SUMMARY"
  sentinel diff main.json pr.json --gate must --out-sarif regressions.sarif`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("diff takes two saved results, OLD.json and NEW.json (got %d argument(s)); save them with sentinel probe --out-json FILE", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := report.ParseGate(gate)
			if err != nil {
				return fmt.Errorf("--gate: %w", err)
			}
			outs, err := o.Plan()
			if err != nil {
				return err
			}
			older, err := readResult(args[0])
			if err != nil {
				return err
			}
			newer, err := readResult(args[1])
			if err != nil {
				return err
			}
			res, sum := diff.Compare(older, newer, args[0])
			res.Gate = g
			if err := sentinelcmd.OpenOutputs(outs); err != nil {
				return err
			}
			if err := o.Write(cmd.OutOrStdout(), outs, res, nil); err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			sentinelcmd.PrintSummary(stderr, res)
			fmt.Fprintf(stderr, "%s\n", sum.Line())
			return sentinelcmd.VerdictErr(stderr, res)
		},
	}
	cmd.Flags().StringVar(&gate, "gate", string(report.GateShould), "which regressions fail the diff: should (all), must or none")
	_ = cmd.RegisterFlagCompletionFunc("gate", sentinelcmd.FixedCompletion(string(report.GateMust), string(report.GateShould), string(report.GateNone)))
	sentinelcmd.AddOutputFlags(cmd, &o, report.FormatText)
	return cmd
}
