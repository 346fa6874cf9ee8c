package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/internal/adminstate"
	"github.com/mcp-sentinel/sentinel/internal/telemetry"
	"github.com/mcp-sentinel/sentinel/proxy"
	"github.com/mcp-sentinel/sentinel/report"
)

func init() { register(newProxyCommand, "proxy") }

// defaultDB is the findings store `sentinel proxy` and `sentinel findings` use by default.
const defaultDB = "sentinel-findings.db"

// newProber builds the active prober POST /probe runs. Tests may replace it; nil makes the
// admin API answer 501.
var newProber = func() proxy.Prober { return activeProber{} }

// activeProber adapts active.Scan to proxy.Prober: the scan targets an endpoint on the proxy's
// own listener, so every probe exchange is graded by the proxy as well.
type activeProber struct{}

func (activeProber) Probe(ctx context.Context, endpoint string, progress func(proxy.ProbeProgress)) (*report.Result, error) {
	out, err := active.Scan(ctx, active.Options{
		Endpoint: endpoint,
		Tool:     "sentinel " + cli.VersionString(),
		Progress: func(done, total int, probe string) {
			progress(proxy.ProbeProgress{Message: fmt.Sprintf("%d/%d %s", done, total, probe)})
		},
	})
	if err != nil {
		return nil, err
	}
	return out.Result, nil
}

type proxyConfig struct {
	upstream, listen, admin, db, caDir, logLevel, tokenFile, upstreamCA string
	routes, redact, allowHosts                                          []string
	forward, mitm, tui                                                  bool
	maxBody, gradingMemory                                              sentinelcmd.ByteSize
	workers                                                             int
	retention                                                           time.Duration
	// shutdownGrace is how long in-flight proxied requests get to finish on stop.
	shutdownGrace time.Duration
	// logOut receives the log lines; nil means stderr.
	logOut io.Writer
}

// Shutdown bounds: in-flight traffic gets shutdownGrace, then is cut (and recorded as cut);
// grading then records what is queued, without grading past drainTimeout.
const (
	defaultShutdownGrace = 5 * time.Second
	drainTimeout         = 10 * time.Second
)

func newProxyCommand() *cobra.Command {
	c := proxyConfig{maxBody: proxy.DefaultMaxBody, gradingMemory: proxy.DefaultMemoryBudget, shutdownGrace: defaultShutdownGrace}
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Grade live MCP traffic passively, as a reverse or forward proxy",
		Long: `Run a transparent proxy that forwards every request and response unchanged and grades the
MCP traffic off the hot path. Reverse mode: clients talk to --listen and requests go to --upstream
(or to the --route whose prefix matches); HTTPS and HTTP/2 upstreams work (--upstream-ca adds
roots). Forward mode is off unless --forward (or --mitm, which implies it) is given, and then
reaches only the hosts --allow-host permits: clients with HTTP_PROXY pointing at --listen; with
--mitm, HTTPS is intercepted with your own CA (made by "sentinel ca init").

Findings and exchanges go to --db: a SQLite file by default, or postgres://... so many proxies
share one store. Authorization headers, cookies and tokens are never stored; --redact removes
more JSON fields. Grading holds at most --grading-memory bytes; past it, exchanges are recorded
without grading, never delayed.

The admin API (--admin, its own listener) serves /findings, /exchanges, /events (live SSE),
POST /probe and /metrics behind a bearer token, and /healthz. The token is drawn at start
(or kept in --admin-token-file) and recorded with the admin URL in a state file readable only by
you, where "sentinel tui" finds it; it is never printed.`,
		Example: `  sentinel proxy --upstream http://127.0.0.1:8080/mcp
  sentinel proxy --route /a=http://127.0.0.1:8081/mcp --route /b=https://mcp.internal/mcp --upstream-ca ca.pem
  sentinel ca init && sentinel proxy --mitm --allow-host 'api.example.com:443'   # then HTTPS_PROXY=http://127.0.0.1:9100`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			limitHeap(int64(c.gradingMemory), os.Getenv)
			if n := processors(runtime.NumCPU(), c.workers, os.Getenv); n > 0 {
				runtime.GOMAXPROCS(n)
			}
			return runProxy(cmd.Context(), cmd.OutOrStdout(), c)
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.upstream, "upstream", "", "upstream MCP endpoint for reverse mode (the route for /)")
	f.StringArrayVar(&c.routes, "route", nil, "PREFIX=URL: send paths under PREFIX to URL (repeatable)")
	f.StringVar(&c.upstreamCA, "upstream-ca", "", "PEM file of CA certificates trusted for HTTPS upstreams, besides the system's")
	f.StringVar(&c.listen, "listen", "127.0.0.1:9100", "proxy listener address")
	f.BoolVar(&c.forward, "forward", false, "also serve as a forward proxy (HTTP_PROXY), to the hosts --allow-host permits")
	f.StringArrayVar(&c.allowHosts, "allow-host", nil, "forward mode: a host it may reach: host, *.domain, IP, or * (any public host), with an optional :port (repeatable)")
	f.BoolVar(&c.mitm, "mitm", false, "forward mode with HTTPS intercepted by the CA made by \"sentinel ca init\" (implies --forward)")
	f.StringVar(&c.caDir, "ca-dir", defaultCADir(), "folder holding ca.pem and ca-key.pem for --mitm")
	f.StringVar(&c.admin, "admin", proxy.DefaultAdminAddr, "admin API listener address")
	f.StringVar(&c.tokenFile, "admin-token-file", "", "file holding the admin API's bearer token, created with a fresh one if missing (default: a new token each start)")
	f.StringVar(&c.db, "db", defaultDB, "findings store: a SQLite file path or a postgres:// URL")
	f.StringArrayVar(&c.redact, "redact", nil, "JSON field name removed from stored payloads (repeatable)")
	f.Var(&c.maxBody, "max-body", "largest body kept for grading (such as 4MiB); larger exchanges are forwarded but not graded")
	f.Var(&c.gradingMemory, "grading-memory", "most memory grading holds at once (such as 64MiB): kept bodies and queued records")
	f.IntVar(&c.workers, "workers", proxy.DefaultWorkers, "grading workers (the runtime gets one processor per core plus one per worker, unless GOMAXPROCS is set)")
	f.DurationVar(&c.retention, "retention", 0, "delete exchanges and findings older than this (0 keeps everything)")
	f.StringVar(&c.logLevel, "log-level", "info", "debug, info, warn or error")
	f.BoolVar(&c.tui, "tui", false, "also run the terminal UI (sentinel tui) on this proxy in this terminal (logs are then discarded); quitting it stops the proxy")
	return cmd
}

func (c proxyConfig) routeList() ([]proxy.Route, error) {
	var out []proxy.Route
	if c.upstream != "" {
		r, err := proxy.ParseRoute(c.upstream)
		if err != nil {
			return nil, fmt.Errorf("--upstream: %w", err)
		}
		out = append(out, r)
	}
	for _, s := range c.routes {
		r, err := proxy.ParseRoute(s)
		if err != nil {
			return nil, fmt.Errorf("--route: %w", err)
		}
		out = append(out, r)
	}
	if len(out) == 0 && !c.forward && !c.mitm {
		return nil, errors.New("nothing to proxy: give --upstream URL, --route PREFIX=URL, or --forward/--mitm with --allow-host for forward mode")
	}
	return out, nil
}

// options builds the proxy's options from the flags (the store is added by the caller).
func (c proxyConfig) options(log *slog.Logger) (*proxy.Options, error) {
	routes, err := c.routeList()
	if err != nil {
		return nil, err
	}
	forward := c.forward || c.mitm
	if forward && len(c.allowHosts) == 0 {
		return nil, errors.New("forward mode needs --allow-host: name the hosts clients may reach (api.example.com:443, *.example.com, or * for any public host)")
	}
	if !forward && len(c.allowHosts) > 0 {
		return nil, errors.New("--allow-host applies to forward mode: add --forward (or --mitm)")
	}
	opts := &proxy.Options{Routes: routes, Forward: forward, AllowHosts: c.allowHosts, Graders: []proxy.Grader{proxy.Passive()},
		MaxBody: int(c.maxBody), MemoryBudget: int64(c.gradingMemory), Workers: c.workers, Logger: log}
	if c.upstreamCA != "" {
		if opts.UpstreamTLS, err = upstreamTLS(c.upstreamCA); err != nil {
			return nil, err
		}
	}
	if c.mitm {
		if opts.CA, err = proxy.LoadCA(caPaths(c.caDir)); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// upstreamTLS trusts the system's roots and the certificates in file.
func upstreamTLS(file string) (*tls.Config, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--upstream-ca: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--upstream-ca %s: no PEM certificate in it", file)
	}
	return &tls.Config{RootCAs: pool}, nil
}

func runProxy(ctx context.Context, stdout io.Writer, c proxyConfig) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: use debug, info, warn or error", c.logLevel)
	}
	var logOut io.Writer = os.Stderr
	if c.logOut != nil {
		logOut = c.logOut
	}
	if c.tui { // log lines would scribble over the terminal UI
		logOut = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	opts, err := c.options(log)
	if err != nil {
		return err
	}
	token, err := c.adminToken()
	if err != nil {
		return err
	}
	store, err := openStore(ctx, c.db, &findings.Options{RedactKeys: c.redact})
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	opts.Store = store
	p, err := proxy.New(opts)
	if err != nil {
		return err
	}
	lnProxy, err := net.Listen("tcp", c.listen)
	if err != nil {
		_ = p.Close(ctx)
		return fmt.Errorf("listening on %s: %w (choose another --listen)", c.listen, err)
	}
	lnAdmin, err := net.Listen("tcp", c.admin)
	if err != nil {
		_ = lnProxy.Close()
		_ = p.Close(ctx)
		return fmt.Errorf("listening on %s: %w (choose another --admin)", c.admin, err)
	}
	p.Protect(lnProxy.Addr().String(), lnAdmin.Addr().String())
	if ip := lnAdmin.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		log.Warn("the admin API listens beyond this machine: anyone who reaches it and holds the token can read stored exchanges", "admin", lnAdmin.Addr().String())
	}
	stopTracing, tracing, err := telemetry.Setup(ctx, "sentinel-proxy", cli.VersionString(), os.Getenv)
	if err != nil {
		return err
	}
	defer func() { _ = stopTracing(context.Background()) }()
	if tracing {
		log.Info("exporting traces over OTLP", "endpoint", os.Getenv(telemetry.EnvEndpoint))
	}
	proxyURL, adminURL := "http://"+lnProxy.Addr().String(), "http://"+lnAdmin.Addr().String()
	adminHandler, err := p.Admin(proxy.AdminOptions{Token: token, Prober: newProber(), ProxyURL: proxyURL, Logger: log})
	if err != nil {
		return err
	}
	// Streams on the admin API (/events, /probe) end when adminCtx does: first thing on stop,
	// so an attached TUI never holds the shutdown.
	adminCtx, stopAdmin := context.WithCancel(context.Background())
	defer stopAdmin()
	// Traffic spans are observe-only: the proxy never adds a header to what it forwards. Without
	// an exporter there is no span to open, and the middleware would still cost every request a
	// request ID, the propagator and a copy of the request (BenchmarkObserveWithoutExporter:
	// about 3 µs and 15 allocations), so traffic goes to the proxy unwrapped.
	var traffic http.Handler = p
	if tracing {
		traffic = telemetry.Observe("proxy", p)
	}
	proxySrv := &http.Server{Handler: traffic, ReadHeaderTimeout: 30 * time.Second}
	adminSrv := &http.Server{Handler: telemetry.Middleware("proxy-admin", adminHandler), ReadHeaderTimeout: 30 * time.Second,
		BaseContext: func(net.Listener) context.Context { return adminCtx }}
	statePath := c.recordState(log, adminstate.State{Kind: "proxy", PID: os.Getpid(), Admin: adminURL,
		Listen: proxyURL + p.EndpointPath(), Token: token, Started: time.Now().UTC()})
	if statePath != "" {
		defer func() { _ = os.Remove(statePath) }()
	}
	log.Info("sentinel proxy started", "listen", lnProxy.Addr().String(), "admin", lnAdmin.Addr().String(), "db", redactDSN(c.db),
		"forward", opts.Forward, "mitm", opts.CA != nil)
	// The ready lines scripts and the e2e helpers wait for, on stdout. The token is never
	// printed: only where it is.
	ready := fmt.Sprintf("listening on %s%s\nadmin on %s\n", proxyURL, p.EndpointPath(), adminURL)
	if tokenAt := c.tokenFile; tokenAt != "" || statePath != "" {
		if tokenAt == "" {
			tokenAt = statePath
		}
		ready += "admin token in " + tokenAt + "\n"
	}
	if _, err := io.WriteString(stdout, ready); err != nil {
		log.Warn("printing the ready line", "error", err)
	}
	// Serving starts only after the ready lines are out: the sockets already listen (a client
	// that connects early waits in the backlog), so whoever gets an answer from either port has
	// been told where they are first.
	errc := make(chan error, 2)
	go func() { errc <- proxySrv.Serve(lnProxy) }()
	go func() { errc <- adminSrv.Serve(lnAdmin) }()
	if c.retention > 0 {
		go prune(ctx, store, c.retention, log)
	}
	var serveErr error
	var tuiDone <-chan error
	if c.tui {
		tuiDone = startProxyTUI(ctx, adminURL, token)
	}
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	case serveErr = <-tuiDone:
	}
	c.shutdown(proxySrv, adminSrv, stopAdmin, log)
	drain, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := p.Close(drain); err != nil {
		log.Warn("grading queue not drained", "error", err)
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", serveErr)
	}
	return nil
}

// shutdown stops both listeners at once: admin streams end at once; proxied requests in flight
// get the grace to finish, then are cut (and recorded as cut).
func (c proxyConfig) shutdown(proxySrv, adminSrv *http.Server, stopAdmin context.CancelFunc, log *slog.Logger) {
	stopAdmin()
	done := make(chan struct{}, 2)
	for _, s := range []*http.Server{proxySrv, adminSrv} {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), c.shutdownGrace)
			defer cancel()
			if err := s.Shutdown(ctx); err != nil {
				log.Warn("requests still in flight at shutdown were cut", "error", err)
				_ = s.Close()
			}
			done <- struct{}{}
		}()
	}
	<-done
	<-done
}

// heapHeadroom is what the Go heap may hold besides the grading budget before the collector
// works harder: forwarding buffers, connections, admin pages, the copies grading makes of the
// body it is grading, and the garbage between two collections.
const heapHeadroom = 48 << 20

// gcPercent is the collector's growth target when GOGC is not set: the heap may grow to five
// times what is live before a collection, bounded by the memory limit. A proxy's live heap is
// small (connections, a few queued records) and it allocates with every request, so at the
// default (100) it collected dozens of times a second under load, and each collection's assists
// landed on the goroutines forwarding traffic (p99 1.5-1.6x the plain proxy's at 8 clients;
// 0.9x with 400). The memory limit keeps a full budget within budget+heapHeadroom all the same.
const gcPercent = 400

// limitHeap sets the runtime's soft memory limit to the grading budget plus heapHeadroom, unless
// GOMEMLIMIT already chose one, and the collector's target to gcPercent, unless GOGC did.
// Without the limit the collector lets the heap grow to twice (or gcPercent) what is live, so a
// full budget would cost several times its size in RSS.
func limitHeap(budget int64, getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if getenv("GOMEMLIMIT") != "" {
		return
	}
	if budget <= 0 {
		budget = proxy.DefaultMemoryBudget
	}
	debug.SetMemoryLimit(budget + heapHeadroom)
}

// processors is how many runtime processors the proxy asks for: one per core plus one per
// grading worker, or 0 (leave the runtime's choice) when GOMAXPROCS is set. The workers are
// busy whenever traffic is, and with one processor per core they took a core's turn from the
// goroutines forwarding it: at 8 clients the forwarding path then waited behind grading (small
// calls p50 1.14-1.36x the plain proxy's, SSE p99 up to 1.57x). With the extra processor the
// kernel shares the cores between them instead, and the same runs stayed within 1.25x
// (docs/proxy.md, "Tried"). The cost is more CPU per request and, on large bodies, handlers
// that outrun the worker, so fewer of them are graded (recorded as not graded, never lost).
func processors(cores, workers int, getenv func(string) string) int {
	if getenv("GOMAXPROCS") != "" {
		return 0
	}
	if workers <= 0 {
		workers = proxy.DefaultWorkers
	}
	return max(cores, 1) + workers
}

// adminToken is the admin API's token: from --admin-token-file (created when missing), or
// drawn afresh.
func (c proxyConfig) adminToken() (string, error) {
	if c.tokenFile != "" {
		tok, err := adminstate.LoadOrCreateToken(c.tokenFile)
		if err != nil {
			return "", fmt.Errorf("--admin-token-file: %w", err)
		}
		return tok, nil
	}
	return adminstate.NewToken()
}

// recordState writes the state file sentinel tui reads; it returns its path, or "" (with a
// warning) when the state directory cannot be written: the proxy still runs, and readers then
// need --admin-token-file.
func (c proxyConfig) recordState(log *slog.Logger, s adminstate.State) string {
	dir, err := adminstate.Dir(os.Getenv)
	if err == nil {
		var path string
		if path, err = adminstate.Write(dir, s); err == nil {
			return path
		}
	}
	log.Warn("the admin state file could not be written: sentinel tui will not find the token by itself (use --admin-token-file)", "error", err)
	return ""
}

// prune applies the retention every few minutes until ctx ends.
func prune(ctx context.Context, store findings.Store, keep time.Duration, log *slog.Logger) {
	tick := time.NewTicker(min(keep/4+time.Second, 5*time.Minute))
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Minute)
		if n, err := store.Prune(pctx, time.Now().Add(-keep)); err != nil {
			log.Warn("applying retention", "error", err)
		} else if n > 0 {
			log.Info("retention applied", "deleted", n)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// redactDSN hides a PostgreSQL password in log lines.
func redactDSN(dsn string) string {
	if !findings.IsPostgres(dsn) {
		return dsn
	}
	return "postgres (credentials hidden)"
}

// openStore opens the findings store named by --db, saying which one and what to change when
// it cannot: the store's own error ("unable to open database file (14)") names neither. A
// SQLite file whose folder is missing is caught first, with that said plainly.
func openStore(ctx context.Context, dsn string, opts *findings.Options) (findings.Store, error) {
	if !findings.IsPostgres(dsn) && !strings.HasPrefix(dsn, "file:") {
		dir := filepath.Dir(dsn) // "." for a bare file name
		switch st, err := os.Stat(dir); {
		case err != nil:
			return nil, fmt.Errorf("--db %s: the folder %s does not exist (create it, or choose another --db)", dsn, dir)
		case !st.IsDir():
			return nil, fmt.Errorf("--db %s: %s is not a folder (choose another --db)", dsn, dir)
		}
	}
	store, err := findings.Open(ctx, dsn, opts)
	if err != nil {
		return nil, fmt.Errorf("--db %s: %w (choose a writable path or a reachable postgres:// URL)", redactDSN(dsn), err)
	}
	return store, nil
}
