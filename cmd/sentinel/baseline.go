package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/baseline"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
)

func init() { register(newBaselineCommand, "baseline") }

func newBaselineCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Record the failures CI accepts for now, so only new ones fail the gate",
		Long: `A baseline is an expected-failures file: every failing observation of a saved result, keyed by
rule and a fingerprint of the observation (the request a probe sent, or the request kind and error
code a passive check read), never by message text. A scan run with --baseline FILE does not fail
the gate on recorded failures; new ones fail it, recorded ones that pass now are reported as
fixed, and entries that match nothing are stale (a warning: write the file again).`,
		Example: `  sentinel probe --endpoint URL --out-json result.json
  sentinel baseline write --from result.json
  sentinel probe --endpoint URL --baseline sentinel-baseline.json`,
	}
	var from, out string
	write := &cobra.Command{
		Use:   "write",
		Short: "Write a baseline from a saved JSON result",
		Long: `Write every failing (rule, observation) pair of a result saved with --format json or --out-json.
The file is sorted JSON with a note per entry saying what was observed, so a review shows what
is being accepted.

Exit codes: 0 written, 2 the result could not be read or the file not written.`,
		Example: `  sentinel baseline write --from result.json
  sentinel baseline write --from result.json --out ci/sentinel-baseline.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := readResult(from)
			if err != nil {
				return err
			}
			f := baseline.FromResult(res)
			if err := writeFileOrStdout(cmd.OutOrStdout(), out, func(w io.Writer) error { return baseline.Write(w, f) }); err != nil {
				return err
			}
			cmd.PrintErrf("sentinel: %d accepted failure(s) written to %s\n", len(f.Entries), orStdout(out))
			return nil
		},
	}
	write.Flags().StringVar(&from, "from", "", "the saved JSON result (required)")
	write.Flags().StringVar(&out, "out", baseline.DefaultPath, "the baseline file to write (- for standard output)")
	_ = write.MarkFlagRequired("from")
	cmd.AddCommand(write)
	return cmd
}

func writeFileOrStdout(stdout io.Writer, path string, render func(io.Writer) error) error {
	if path == "-" {
		path = ""
	}
	return sentinelcmd.WriteTo(stdout, path, render)
}

func orStdout(path string) string {
	if path == "" || path == "-" {
		return "standard output"
	}
	return path
}
