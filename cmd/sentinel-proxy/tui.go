package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/internal/adminstate"
	"github.com/mcp-sentinel/sentinel/proxy"
	"github.com/mcp-sentinel/sentinel/tui"
)

func init() { register(newTUICommand, "tui") }

// tuiRun starts the terminal UI; tests replace it to check flag handling without a terminal.
var tuiRun = tui.Run

func newTUICommand() *cobra.Command {
	var o tui.RunOptions
	var tokenFile string
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Watch a running proxy's findings live and fire probes on demand",
		Long: `Attach a terminal UI to the admin API of a running ` + "`sentinel proxy`" + `: live exchanges with
their verdicts, the detail of one exchange (headers, pretty JSON, SSE events, findings), findings
grouped by rule, the active prober on demand (p), and export of what the filter shows (e).

Press ? inside for every key. NO_COLOR is honoured; severity is always written as a word and a
symbol. When the admin API cannot be reached the header says so and the TUI retries with backoff.`,
		Example: `  sentinel proxy --upstream http://127.0.0.1:8080/mcp &
  sentinel tui                                   # the proxy started last on this machine
  sentinel tui --admin http://127.0.0.1:9101     # that one
  sentinel tui --admin http://host:9101 --admin-token-file token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			var err error
			if o.AdminURL, o.Token, err = resolveAdmin(o.AdminURL, tokenFile, os.Getenv); err != nil {
				return err
			}
			o.Color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
			o.Tool = "sentinel " + cli.VersionString()
			return tuiRun(ctx, o)
		},
	}
	cmd.Flags().StringVar(&o.AdminURL, "admin", "", "URL of the admin API of a proxy or shim (default: the proxy or shim started last on this machine, else "+defaultAdminURL+")")
	cmd.Flags().StringVar(&tokenFile, "admin-token-file", "", "file holding the admin API's token (default: the token the proxy or shim recorded in its state file)")
	cmd.Flags().IntVar(&o.Capacity, "keep", tui.DefaultCapacity, "how many exchanges to keep in memory (older ones are counted, not shown)")
	return cmd
}

// defaultAdminURL is where the TUI looks when no proxy recorded its state.
const defaultAdminURL = "http://" + proxy.DefaultAdminAddr

// resolveAdmin finds the admin API and its token: the URL given (or that of the proxy started
// last on this machine, from its state file, or the default), and the token from tokenFile,
// else from the state file of the proxy at that URL. No token is not an error here: the TUI
// then says what the admin API answered.
func resolveAdmin(adminURL, tokenFile string, getenv func(string) string) (string, string, error) {
	var token string
	if tokenFile != "" {
		tok, err := adminstate.ReadToken(tokenFile)
		if err != nil {
			return "", "", fmt.Errorf("--admin-token-file: %w", err)
		}
		token = tok
	}
	dir, err := adminstate.Dir(getenv)
	if err != nil {
		if adminURL == "" {
			adminURL = defaultAdminURL
		}
		return adminURL, token, nil
	}
	if s, err := adminstate.Find(dir, strings.TrimSuffix(adminURL, "/")); err == nil {
		if adminURL == "" {
			adminURL = s.Admin
		}
		if token == "" {
			token = s.Token
		}
	}
	if adminURL == "" {
		adminURL = defaultAdminURL
	}
	return adminURL, token, nil
}

// startProxyTUI runs the TUI on a proxy started in this process (`sentinel proxy --tui`); the
// channel delivers its end (nil when the user quit), which stops the proxy.
func startProxyTUI(ctx context.Context, adminURL, token string) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- tuiRun(ctx, tui.RunOptions{AdminURL: adminURL, Token: token, Tool: "sentinel " + cli.VersionString(),
			Color: os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"})
	}()
	return done
}
