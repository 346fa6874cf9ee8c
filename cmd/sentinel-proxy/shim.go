package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/internal/adminstate"
	"github.com/mcp-sentinel/sentinel/proxy"
	"github.com/mcp-sentinel/sentinel/shim"
	"github.com/mcp-sentinel/sentinel/stdio"
)

func init() { register(newShimCommand, "shim") }

type shimConfig struct {
	env       []string
	cwd       string
	logLevel  string
	db        string
	admin     string
	tokenFile string
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

Each line is graded off the copy path with the proxy's checks (the stdio binding's rules, and
every protocol-level rule; the HTTP-only ones do not apply), and the findings and exchanges go to
--db, as the proxy's do. The shim serves the proxy's admin API on --admin (a loopback port, picked
free by default), prints its address to stderr and records it, with its bearer token, in the
state file ` + "`sentinel tui`" + ` reads: run sentinel tui in a terminal to watch the client's traffic
live.

The shim writes nothing to stdout that the server did not send; its own messages and the server's
stderr go to stderr. It forwards SIGINT, SIGTERM and SIGHUP to the server's process group, stops
the server when the client closes stdin, and exits with the server's exit status (128+N when a
signal N ended it, 2 when the server or the shim itself could not be started).`,
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
	f.StringVar(&c.db, "db", defaultDB, "findings store: a SQLite file path or a postgres:// URL")
	f.StringVar(&c.admin, "admin", "127.0.0.1:0", "address of the admin API that sentinel tui reads (port 0 picks a free one)")
	f.StringVar(&c.tokenFile, "admin-token-file", "", "keep the admin API's bearer token in this file (created when missing; default: a fresh token in the state file)")
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

	server := stdio.Options{Path: args[0], Args: args[1:], Env: c.env, Dir: c.cwd, Logger: logger}
	grading, err := startShimGrading(ctx, c, "stdio: "+server.Command(), logger, std.err)
	if err != nil {
		return err
	}
	res, err := shim.Run(context.WithoutCancel(ctx), shim.Options{
		Server:       server,
		Stdin:        std.in,
		Stdout:       std.out,
		Stderr:       std.err,
		Signals:      sigs,
		MaxLineBytes: proxy.DefaultMaxBody,
		Observer:     grading.front,
		Logger:       logger,
	})
	grading.stop(logger)
	if err != nil {
		return err
	}
	logger.Debug("shim done", "exit", res.Exit.String(), "frames", res.Frames, "dropped", res.Dropped)
	if res.Dropped > 0 {
		logger.Warn("lines were not graded: the grading queue was full", "dropped", res.Dropped)
	}
	if res.Exit.Code == 0 {
		return nil
	}
	return &exitStatus{code: res.Exit.Code, what: res.Exit.String()}
}

// shimGrading is what grades the shim's traffic: the proxy's pipeline over the findings store,
// fed by its stdio front end, and the admin API over both.
type shimGrading struct {
	store     findings.Store
	pipe      *proxy.Pipeline
	front     *proxy.StdioFrontEnd
	srv       *http.Server
	stopAdmin context.CancelFunc
	statePath string
}

// startShimGrading opens the store, starts the pipeline and the admin API, records the state file
// and says on stderr where the admin API listens (never the token).
func startShimGrading(ctx context.Context, c shimConfig, target string, log *slog.Logger, stderr io.Writer) (*shimGrading, error) {
	pc := proxyConfig{tokenFile: c.tokenFile}
	token, err := pc.adminToken()
	if err != nil {
		return nil, err
	}
	store, err := openStore(ctx, c.db, nil)
	if err != nil {
		return nil, err
	}
	pipe, err := proxy.NewPipeline(proxy.PipelineOptions{Store: store, Graders: []proxy.Grader{proxy.Passive()}, Logger: log})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	g := &shimGrading{store: store, pipe: pipe, front: proxy.NewStdioFrontEnd(pipe, target)}
	ln, err := net.Listen("tcp", c.admin)
	if err != nil {
		g.stop(log)
		return nil, fmt.Errorf("listening on %s: %w (choose another --admin)", c.admin, err)
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		log.Warn("the admin API listens beyond this machine: anyone who reaches it and holds the token can read stored exchanges", "admin", ln.Addr().String())
	}
	handler, err := proxy.NewAdmin(pipe, proxy.AdminOptions{Token: token, Logger: log})
	if err != nil {
		_ = ln.Close()
		g.stop(log)
		return nil, err
	}
	adminCtx, stopAdmin := context.WithCancel(context.Background())
	g.stopAdmin = stopAdmin
	g.srv = &http.Server{Handler: handler, ReadHeaderTimeout: 30 * time.Second, BaseContext: func(net.Listener) context.Context { return adminCtx }}
	adminURL := "http://" + ln.Addr().String()
	g.statePath = pc.recordState(log, adminstate.State{Kind: "shim", PID: os.Getpid(), Admin: adminURL, Listen: target, Token: token, Started: time.Now().UTC()})
	tokenAt := c.tokenFile
	if tokenAt == "" {
		tokenAt = g.statePath
	}
	// stderr, never stdout: stdout is the server's alone.
	fmt.Fprintf(stderr, "sentinel shim: grading %s into %s; admin on %s (token in %s); watch with: sentinel tui --admin %s\n",
		target, redactDSN(c.db), adminURL, tokenAt, adminURL)
	// Serving starts after that line, as the proxy's does: whoever gets an answer was told first.
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// stop records what is still open, drains the pipeline into the store, and ends the admin API.
func (g *shimGrading) stop(log *slog.Logger) {
	if g.front != nil {
		g.front.Close()
	}
	drain, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := g.pipe.Close(drain); err != nil {
		log.Warn("grading queue not drained", "error", err)
	}
	if g.stopAdmin != nil {
		g.stopAdmin()
	}
	if g.srv != nil {
		sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = g.srv.Shutdown(sctx)
		scancel()
	}
	if g.statePath != "" {
		_ = os.Remove(g.statePath)
	}
	_ = g.store.Close()
}
