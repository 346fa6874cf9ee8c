package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/shim"
	"github.com/mcp-sentinel/sentinel/stdio"
)

func init() { subcommands = append(subcommands, newShimCommand) }

type shimConfig struct {
	env      []string
	cwd      string
	logLevel string
}

func newShimCommand() *cobra.Command {
	var c shimConfig
	cmd := &cobra.Command{
		Use:   "shim [flags] -- COMMAND [ARGS...]",
		Short: "Sit between a desktop client and a stdio MCP server, passing bytes through unchanged",
		Long: `Launch COMMAND as a stdio MCP server and relay between it and the client that launched the
shim: every byte passes through unchanged in both directions, and each line is framed and decoded
on the side. Put it in a desktop client's config in place of the server's command
("command": "sentinel", "args": ["shim", "--", "node", "server.js"]).

The shim writes nothing to stdout that the server did not send; its own messages and the server's
stderr go to stderr. It forwards SIGINT, SIGTERM and SIGHUP to the server's process group, stops
the server when the client closes stdin, and exits with the server's exit status (128+N when a
signal N ended it, 2 when the server could not be started).`,
		Example: `  sentinel shim -- node build/index.js
  sentinel shim --env API_KEY=... --cwd ~/src/server -- npx -y @modelcontextprotocol/server-everything`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 {
				return errors.New("put the server's command after --: sentinel shim [flags] -- COMMAND [ARGS...]")
			}
			return runShim(cmd.Context(), c, args, streams{cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()})
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&c.env, "env", nil, "KEY=VALUE added to the server's environment (repeatable)")
	f.StringVar(&c.cwd, "cwd", "", "the server's working directory (default: the shim's)")
	f.StringVar(&c.logLevel, "log-level", "warn", "the shim's own log level on stderr: debug, info, warn or error")
	return cmd
}

// exitStatus carries the server's exit status out of the command as the shim's own; it prints
// nothing (cli.Main prints the error, so it says what happened in a line).
type exitStatus struct {
	code int
	what string
}

func (e *exitStatus) Error() string { return "the server " + e.what }
func (e *exitStatus) ExitCode() int { return e.code }

// streams are the shim's client side: the process's standard streams, or buffers in a test.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

func runShim(ctx context.Context, c shimConfig, args []string, std streams) error {
	for _, kv := range c.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("--env %q: give KEY=VALUE", kv)
		}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: use debug, info, warn or error", c.logLevel)
	}
	logger := slog.New(slog.NewTextHandler(std.err, &slog.HandlerOptions{Level: level}))

	// Signals go to the server, which decides what they mean; the shim follows it out. SIGPIPE is
	// caught so that a client that went away makes a write fail instead of killing the shim
	// before it has stopped the server.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	defer signal.Stop(sigs)

	res, err := shim.Run(context.WithoutCancel(ctx), shim.Options{
		Server:  stdio.Options{Path: args[0], Args: args[1:], Env: c.env, Dir: c.cwd, Logger: logger},
		Stdin:   std.in,
		Stdout:  std.out,
		Stderr:  std.err,
		Signals: sigs,
		Logger:  logger,
	})
	if err != nil {
		return err
	}
	logger.Debug("shim done", "exit", res.Exit.String(), "frames", res.Frames, "dropped", res.Dropped)
	if res.Exit.Code == 0 {
		return nil
	}
	return &exitStatus{code: res.Exit.Code, what: res.Exit.String()}
}
