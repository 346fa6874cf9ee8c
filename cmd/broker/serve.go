package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/handle"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/internal/telemetry"
)

type serveFlags struct {
	http       string
	stdio      bool
	configFile string
	dev        bool
	judge      string
	verbose    bool
	noAuth     bool
	db         string
	stateKeys  string
	handleTTL  time.Duration
	auditKey   string
	checkpoint string
	cpInterval time.Duration
	metrics    string
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve (--http ADDR | --stdio) [--config FILE] [--dev]",
		Short: "Serve the evaluation tools over streamable HTTP or stdio",
		Long: `Serve flag_injection and check_groundedness.

--http ADDR listens on ADDR (use 127.0.0.1:0 for a free port) and prints
"listening on http://ADDR/mcp" when ready. Every request needs a bearer token
issued for the configured canonical URI; --dev instead mints a key at start and
prints a token for the "dev" tenant.

--db selects the store: a SQLite file (default under the state dir, see
docs/broker.md) or postgres://... shared by replicas. Migrations run at start.

--stdio serves one local user: the principal is "stdio" in the config, or the
dev tenant with --dev.

--metrics serves Prometheus metrics on a listener of its own (default: a free loopback
port, logged at start), never on the MCP listener: they need no token.

Every audit row and checkpoint is signed with --audit-key (created in the state folder on
first start when neither the flag nor $BROKER_AUDIT_KEY gives one); checkpoints also go to
--audit-checkpoints, a file outside the database that broker audit verify reads.

The judge model for ambiguous cases is chosen from the environment (see
docs/broker.md); --judge overrides the environment's choice.`,
		Example: `  broker serve --http 127.0.0.1:8080 --config broker.json
  broker serve --http 127.0.0.1:0 --dev
  broker serve --stdio --dev`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on this address (host:port)")
	fl.BoolVar(&f.stdio, "stdio", false, "serve on stdin/stdout")
	fl.StringVar(&f.configFile, "config", "", "JSON config file: tenants, auth, allowedOrigins, stdio")
	fl.BoolVar(&f.dev, "dev", false, "local development: a dev tenant and (HTTP) a key minted at start")
	fl.StringVar(&f.judge, "judge", "", "judge model for the ambiguous band (overrides the environment)")
	fl.BoolVar(&f.noAuth, "no-auth", false, "HTTP without authentication, loopback only, acting as the stdio (or dev) principal: for local tools such as conformance suites")
	fl.BoolVar(&f.verbose, "verbose", false, "debug logging on stderr")
	dbFlag(cmd, &f.db)
	fl.DurationVar(&f.handleTTL, "handle-ttl", handle.DefaultTTL, "how long an evaluation handle stays usable")
	fl.StringVar(&f.metrics, "metrics", "127.0.0.1:0", "where to serve GET /metrics, apart from the MCP listener (it needs no token, so keep it loopback or network-restricted; the bound address is logged; off for none)")
	fl.StringVar(&f.auditKey, "audit-key", "", "Ed25519 PEM key that signs audit rows and checkpoints (default $"+envAuditKey+", else "+defaultAuditKeyFile+" in the state folder, created on first start)")
	fl.StringVar(&f.checkpoint, "audit-checkpoints", "", "file that also receives every signed audit checkpoint, outside the database (default "+defaultAuditCheckpointLog+" in the state folder; off for none)")
	fl.DurationVar(&f.cpInterval, "checkpoint-interval", broker.DefaultCheckpointInterval, "how often the audit head is checkpointed (also at start and at shutdown)")
	fl.StringVar(&f.stateKeys, "state-keys", "", "requestState AEAD keys as id:hex64[,id:hex64...], the first sealing (default $"+envStateKeys+"; unset mints one at start)")
	return cmd
}

func runServe(cmd *cobra.Command, f serveFlags) error {
	if (f.http == "") == !f.stdio {
		return errors.New("choose exactly one transport: --http ADDR or --stdio")
	}
	if f.noAuth && f.http == "" {
		return errors.New("--no-auth applies to --http only (stdio is always local)")
	}
	if f.configFile == "" && !f.dev {
		return errors.New("no configuration: pass --config FILE (see docs/broker.md) or --dev for a local setup")
	}
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
	cfg, scorer, err := loadScorer(f.configFile, f.judge, log)
	if err != nil {
		return err
	}
	keys, err := stateKeys(f.stateKeys)
	if err != nil {
		return err
	}
	signer, err := auditSigner(f.auditKey, log)
	if err != nil {
		return err
	}
	cpFile, err := checkpointFile(f.checkpoint, f.db)
	if err != nil {
		return err
	}
	st, err := openDB(cmd.Context(), f.db, true, store.WithSigner(signer))
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	log.Info("store ready", slog.String("dialect", st.Dialect()))
	o := broker.RunOptions{Config: cfg, Dev: f.dev, NoAuth: f.noAuth, Scorer: scorer, Version: cli.VersionString(), Logger: log, Stdout: cmd.OutOrStdout(),
		Store: st, StateKeys: keys, JudgeModel: judgeModel(scorer), HandleTTL: f.handleTTL,
		AuditSigner: signer, CheckpointFile: cpFile, CheckpointInterval: f.cpInterval, MetricsAddr: f.metrics}
	if f.metrics == "off" {
		o.MetricsAddr = ""
	}
	if f.stdio {
		return broker.RunStdio(cmd.Context(), o, os.Stdin, os.Stdout)
	}
	stopTracing, tracing, err := telemetry.Setup(cmd.Context(), "broker", cli.VersionString(), os.Getenv)
	if err != nil {
		return err
	}
	defer func() { _ = stopTracing(context.WithoutCancel(cmd.Context())) }()
	if tracing {
		log.Info("exporting traces over OTLP", slog.String("endpoint", os.Getenv(telemetry.EnvEndpoint)))
	}
	return broker.RunHTTP(cmd.Context(), o, f.http)
}
