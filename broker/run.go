package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/config"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// DevTenant and DevSubject are the principal of --dev mode.
const (
	DevTenant  = "dev"
	DevSubject = "developer"
	// DevTokenTTL is the lifetime of the token --dev prints.
	DevTokenTTL = 24 * time.Hour
)

// ShutdownTimeout bounds how long a graceful HTTP shutdown waits for in-flight calls.
const ShutdownTimeout = 10 * time.Second

// RunOptions is what `broker serve` resolved from its flags.
type RunOptions struct {
	// Config holds tenants, auth and the stdio principal; nil means an empty config.
	Config *config.Config
	// Dev adds a "dev" tenant with DevPolicy if the config lacks one, and (HTTP) verifies tokens
	// with a key minted at start, printing a token for it; (stdio) acts as the dev tenant when the
	// config names no stdio principal.
	Dev bool
	// NoAuth serves HTTP without authentication, every request acting as the stdio principal (or
	// the dev principal with Dev). RunHTTP refuses it on a non-loopback address.
	NoAuth bool
	// Scorer scores the metrics; required.
	Scorer tools.Scorer
	// Recorder persists evaluations; nil means an in-memory recorder. Ignored when Store is set.
	Recorder tools.Recorder
	// Store, when set, persists evaluations with handles, backs set_metric_policy and
	// get_evaluation, and receives the audit log; the caller migrates and closes it.
	Store store.Store
	// StateKeys seals MRTR requestState; nil with a Store means a random key minted at start
	// (fine for one process; replicas must share configured keys).
	StateKeys *seal.Keyring
	// AuditSigner signs audit checkpoints (the store, opened WithSigner, signs the rows with the
	// same key); nil writes no checkpoints.
	AuditSigner *audit.Signer
	// CheckpointFile, when set, also receives every checkpoint, outside the database.
	CheckpointFile string
	// CheckpointInterval is how often the audit head is checkpointed; 0 means
	// DefaultCheckpointInterval. A checkpoint is also written at start and at shutdown.
	CheckpointInterval time.Duration
	// JudgeModel is pinned in stored evaluations no judge decided; empty means "none".
	JudgeModel string
	// StateTTL is how long a sealed requestState is accepted; 0 means DefaultStateTTL.
	StateTTL time.Duration
	// HandleTTL is how long an evaluation handle resolves; 0 means handle.DefaultTTL.
	HandleTTL time.Duration
	// Version is reported in serverInfo.
	Version string
	// Logger is for operational logs (stderr in the command); nil discards.
	Logger *slog.Logger
	// Stdout receives the ready line ("listening on <URL>") and, in dev mode, the dev token.
	Stdout io.Writer
	// MetricsAddr is where RunHTTP serves GET /metrics (and /healthz), apart from the MCP
	// listener; empty serves no metrics. The command's default is loopback.
	MetricsAddr string
}

// DevPolicy is the policy of the dev tenant: both metrics on, threshold 0.5, injection failing
// closed and groundedness failing open on a judge timeout.
func DevPolicy() eval.TenantPolicy {
	return eval.TenantPolicy{TenantID: DevTenant, Aggregation: "strictest", Metrics: []eval.MetricPolicy{
		{Metric: eval.MetricGroundedness, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailOpen},
		{Metric: eval.MetricInjection, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailClosed},
	}}
}

func (o *RunOptions) prepare() (*config.Config, *slog.Logger, error) {
	if o.Scorer == nil {
		return nil, nil, errors.New("no scorer configured")
	}
	cfg := &config.Config{}
	if o.Config != nil {
		c := *o.Config
		cfg = &c
	}
	if o.Dev {
		if _, ok := cfg.Policy(DevTenant); !ok {
			cfg.Tenants = append(cfg.Tenants, DevPolicy())
		}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Recorder == nil {
		o.Recorder = &tools.MemoryRecorder{}
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	return cfg, log, nil
}

func (o *RunOptions) core(cfg *config.Config, log *slog.Logger) *tools.Core {
	return &tools.Core{Scorer: o.Scorer, Policies: cfg, Recorder: o.Recorder, Logger: log}
}

// server builds the MCP server: the evaluation tools, plus the stateful tools and the audit
// middleware when a store is configured (see stateful_run.go), and the checkpointer that anchors
// the store's audit chain (nil without a store).
func (o *RunOptions) server(cfg *config.Config, log *slog.Logger) (*mcp.Server, *Checkpointer, error) {
	if o.Store == nil {
		return NewServer(o.core(cfg, log), &ServerOptions{Version: o.Version, Logger: log}), nil, nil
	}
	srv, err := o.statefulServer(cfg, log)
	if err != nil {
		return nil, nil, err
	}
	return srv, o.checkpointer(log), nil
}

func (o *RunOptions) checkpointer(log *slog.Logger) *Checkpointer {
	if o.Store == nil || o.AuditSigner == nil {
		return nil
	}
	return &Checkpointer{Store: o.Store, Signer: o.AuditSigner, File: o.CheckpointFile, Interval: o.CheckpointInterval, Logger: log}
}

// anchor runs cp until stop is called (not when ctx ends: the final checkpoint must come after
// the graceful shutdown has let in-flight calls finish) and returns stop, which waits for that
// final checkpoint.
func anchor(ctx context.Context, cp *Checkpointer) (stop func()) {
	if cp == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); cp.Run(ctx) }()
	return func() { cancel(); <-done }
}

// localPrincipal is who a local, unauthenticated caller acts as: the config's stdio principal,
// else the dev principal in dev mode, else nobody (zero).
func (o *RunOptions) localPrincipal(cfg *config.Config) auth.Principal {
	switch {
	case cfg.Stdio != nil:
		return auth.Principal{Tenant: cfg.Stdio.Tenant, Subject: cfg.Stdio.Subject}
	case o.Dev:
		return auth.Principal{Tenant: DevTenant, Subject: DevSubject}
	}
	return auth.Principal{}
}

// RunStdio serves over stdin/stdout until ctx ends or stdin closes.
func RunStdio(ctx context.Context, o RunOptions, stdin io.ReadCloser, stdout io.WriteCloser) error {
	cfg, log, err := o.prepare()
	if err != nil {
		return fmt.Errorf("starting stdio broker: %w", err)
	}
	p := o.localPrincipal(cfg)
	// Stdio has one local user, so its lists are not shared across authorization contexts:
	// private is still the accurate scope for per-tenant tool access.
	s, cp, err := o.server(cfg, log)
	if err != nil {
		return fmt.Errorf("starting stdio broker: %w", err)
	}
	stop := anchor(ctx, cp)
	defer stop()
	log.InfoContext(ctx, "serving stdio", slog.Any("principal", p))
	return ServeStdio(ctx, s, p, stdin, stdout, log)
}

// RunHTTP listens on addr and serves until ctx ends, then shuts down gracefully. When ready it
// writes "listening on <canonical URI>" to o.Stdout (and the dev token in dev mode), so scripts
// can start it on port 0.
func RunHTTP(ctx context.Context, o RunOptions, addr string) error {
	cfg, log, err := o.prepare()
	if err != nil {
		return fmt.Errorf("starting HTTP broker: %w", err)
	}
	var fixed *auth.Principal
	if o.NoAuth {
		if !isLoopback(addr) {
			return fmt.Errorf("starting HTTP broker: --no-auth listens on loopback only (127.0.0.1 or [::1]), not %q", addr)
		}
		p := o.localPrincipal(cfg)
		if p.Tenant == "" {
			return errors.New("starting HTTP broker: --no-auth needs a principal: set stdio.tenant and stdio.subject in the config, or pass --dev")
		}
		fixed = &p
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("starting HTTP broker: listening on %s: %w", addr, err)
	}
	defer ln.Close()
	listenURL := "http://" + ln.Addr().String() + "/mcp"

	var (
		verifier *auth.Verifier
		issuer   string
		scopes   []string
		canon    string
		devToken string
	)
	switch {
	case fixed != nil:
		canon = listenURL
	case o.Dev:
		canon, issuer = listenURL, "http://"+ln.Addr().String()+"/dev-issuer"
		verifier, devToken, err = devAuth(canon, issuer)
	case cfg.Auth != nil:
		canon, issuer, scopes = cfg.Auth.CanonicalURI, cfg.Auth.Issuer, cfg.Auth.Scopes
		verifier, err = configAuth(cfg.Auth)
	default:
		err = errors.New("no authentication configured: add an \"auth\" section to --config, or pass --dev for a local key")
	}
	if err != nil {
		return fmt.Errorf("starting HTTP broker: %w", err)
	}
	var authServers []string
	if issuer != "" {
		authServers = []string{issuer}
	}
	mcpServer, cp, err := o.server(cfg, log)
	if err != nil {
		return fmt.Errorf("starting HTTP broker: %w", err)
	}
	stop := anchor(ctx, cp)
	defer stop() // after the graceful shutdown below: the final checkpoint covers every call
	metrics := NewMetrics()
	stopMetrics, err := serveMetrics(ctx, o.MetricsAddr, metrics, log)
	if err != nil {
		return fmt.Errorf("starting HTTP broker: %w", err)
	}
	defer stopMetrics()
	h, err := NewHTTPHandler(HTTPOptions{
		Server:               mcpServer,
		CanonicalURI:         canon,
		Verifier:             verifier,
		Fixed:                fixed,
		AuthorizationServers: authServers,
		Scopes:               scopes,
		AllowedOrigins:       cfg.AllowedOrigins,
		Logger:               log,
		Metrics:              metrics,
	})
	if err != nil {
		return fmt.Errorf("starting HTTP broker: %w", err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	fmt.Fprintf(o.Stdout, "listening on %s\n", listenURL)
	if devToken != "" {
		fmt.Fprintf(o.Stdout, "dev token: %s\n", devToken)
	}
	log.InfoContext(ctx, "serving HTTP", slog.String("url", listenURL), slog.String("canonical_uri", canon))

	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down HTTP broker: %w", err)
	}
	log.InfoContext(ctx, "stopped")
	return nil
}

// serveMetrics serves m on addr until stop is called; an empty addr serves nothing. The address
// it bound is logged (addr may name port 0).
func serveMetrics(ctx context.Context, addr string, m *Metrics, log *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening for metrics on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.InfoContext(ctx, "serving metrics", slog.String("url", "http://"+ln.Addr().String()+"/metrics"),
		slog.Bool("loopback", isLoopback(ln.Addr().String())))
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}, nil
}

// isLoopback reports whether addr's host is a loopback IP or "localhost".
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func devAuth(canon, issuer string) (*auth.Verifier, string, error) {
	key, err := auth.GenerateKey(auth.AlgEd25519)
	if err != nil {
		return nil, "", err
	}
	v, err := auth.NewVerifier(auth.VerifierOptions{Issuer: issuer, Audience: canon, Keys: auth.KeySet{{Public: key.Public()}}})
	if err != nil {
		return nil, "", err
	}
	tok, err := auth.Mint(key, auth.MintOptions{Issuer: issuer, Audience: canon, Tenant: DevTenant, Subject: DevSubject, TTL: DevTokenTTL})
	if err != nil {
		return nil, "", err
	}
	return v, tok, nil
}

func configAuth(a *config.Auth) (*auth.Verifier, error) {
	var keys auth.KeySet
	var err error
	if a.JWKSFile != "" {
		keys, err = auth.LoadJWKSFile(a.JWKSFile)
	} else {
		keys, err = auth.LoadKeyFile(a.PublicKeyFile)
	}
	if err != nil {
		return nil, err
	}
	return auth.NewVerifier(auth.VerifierOptions{Issuer: a.Issuer, Audience: a.CanonicalURI, Keys: keys})
}
