package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/report"
)

func init() { register(newBadgeCommand, "badge") }

func newBadgeCommand() *cobra.Command {
	var from, out string
	cmd := &cobra.Command{
		Use:   "badge",
		Short: `Write an SVG badge from a saved result: "MCP 2026-07-28 | 78/78 MUST"`,
		Long: `Read a result saved with --format json (or --out-json) and write a README badge: the MUST-level
rules that passed out of those evaluated, green when none failed, red when some did, grey when
the scan was incomplete or could not run. Indeterminate rules are in neither number. The same
badge is the "badge" report format (probe --out-badge badge.svg).

Exit codes: 0 the badge was written, 2 the result could not be read or the badge not written.`,
		Example: `  sentinel probe --endpoint http://127.0.0.1:8080/mcp --out-json result.json
  sentinel badge --from result.json --out docs/mcp-badge.svg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := readResult(from)
			if err != nil {
				return err
			}
			rd, err := report.New(report.FormatBadge, nil)
			if err != nil {
				return err
			}
			return sentinelcmd.WriteTo(cmd.OutOrStdout(), out, func(w io.Writer) error { return rd.Render(w, res) })
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the saved JSON result (required)")
	cmd.Flags().StringVar(&out, "out", "", "write the SVG to this file instead of standard output")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

// readResult decodes a result saved with --format json, saying what to do when it cannot.
func readResult(path string) (*report.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the result: %w (save one with sentinel probe --out-json FILE)", err)
	}
	defer func() { _ = f.Close() }()
	res, err := report.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}
