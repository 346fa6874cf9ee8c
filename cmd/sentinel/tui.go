package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/tui"
)

func init() { subcommands = append(subcommands, newTUICommand) }

// tuiRun starts the terminal UI; tests replace it to check flag handling without a terminal.
var tuiRun = tui.Run

func newTUICommand() *cobra.Command {
	var o tui.RunOptions
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Watch a running proxy's findings live and fire probes on demand",
		Long: `Attach a terminal UI to the admin API of a running ` + "`sentinel proxy`" + `: live exchanges with
their verdicts, the detail of one exchange (headers, pretty JSON, SSE events, findings), findings
grouped by rule, the active prober on demand (p), and export of what the filter shows (e).

Press ? inside for every key. NO_COLOR is honoured; severity is always written as a word and a
symbol. When the admin API cannot be reached the header says so and the TUI retries with backoff.`,
		Example: `  sentinel proxy --upstream http://127.0.0.1:8080/mcp &
  sentinel tui --admin http://127.0.0.1:9101`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			o.Color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
			o.Tool = "sentinel " + cli.VersionString()
			return tuiRun(ctx, o)
		},
	}
	cmd.Flags().StringVar(&o.AdminURL, "admin", "http://127.0.0.1:9101", "URL of the proxy's admin API")
	cmd.Flags().IntVar(&o.Capacity, "keep", tui.DefaultCapacity, "how many exchanges to keep in memory (older ones are counted, not shown)")
	return cmd
}

// startProxyTUI runs the TUI on a proxy started in this process (`sentinel proxy --tui`); the
// channel delivers its end (nil when the user quit), which stops the proxy.
func startProxyTUI(ctx context.Context, adminURL string) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- tuiRun(ctx, tui.RunOptions{AdminURL: adminURL, Tool: "sentinel " + cli.VersionString(),
			Color: os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"})
	}()
	return done
}
