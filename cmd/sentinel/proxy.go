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
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/internal/telemetry"
	"github.com/mcp-sentinel/sentinel/proxy"
	"github.com/mcp-sentinel/sentinel/report"
)

func init() { subcommands = append(subcommands, newProxyCommand) }

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
	upstream, listen, admin, db, caDir, logLevel string
	routes, redact                               []string
	mitm, tui                                    bool
	maxBody, queue, workers                      int
	retention                                    time.Duration
}

func newProxyCommand() *cobra.Command {
	var c proxyConfig
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Grade live MCP traffic passively, as a reverse or forward proxy",
		Long: `Run a transparent proxy that forwards every request and response unchanged and grades the
MCP traffic off the hot path. Reverse mode: clients talk to --listen and requests go to --upstream
(or to the --route whose prefix matches). Forward mode: clients with HTTP_PROXY pointing at the
listener reach the servers they name; it needs no upstream when started with --mitm, which
intercepts HTTPS with your own CA (` + "`sentinel ca init`" + `). Give --upstream, --route or --mitm.

Findings and exchanges go to --db: a SQLite file by default, or postgres://... so many proxies
share one store. Authorization headers, cookies and tokens are never stored; --redact removes
more JSON fields. The admin API (--admin) serves /findings, /exchanges, /events (live SSE),
POST /probe, /metrics and /healthz.`,
		Example: `  sentinel proxy --upstream http://127.0.0.1:8080/mcp
  sentinel proxy --route /a=http://127.0.0.1:8081/mcp --route /b=http://127.0.0.1:8082/mcp
  sentinel ca init && HTTPS_PROXY=http://127.0.0.1:9100 sentinel proxy --mitm`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runProxy(cmd.Context(), cmd.OutOrStdout(), c) },
	}
	f := cmd.Flags()
	f.StringVar(&c.upstream, "upstream", "", "upstream MCP endpoint for reverse mode (the route for /)")
	f.StringArrayVar(&c.routes, "route", nil, "PREFIX=URL: send paths under PREFIX to URL (repeatable)")
	f.StringVar(&c.listen, "listen", "127.0.0.1:9100", "proxy listener address")
	f.StringVar(&c.admin, "admin", proxy.DefaultAdminAddr, "admin API listener address")
	f.StringVar(&c.db, "db", defaultDB, "findings store: a SQLite file path or a postgres:// URL")
	f.StringArrayVar(&c.redact, "redact", nil, "JSON field name removed from stored payloads (repeatable)")
	f.BoolVar(&c.mitm, "mitm", false, "intercept HTTPS in forward mode with the CA that \"sentinel ca init\" creates")
	f.StringVar(&c.caDir, "ca-dir", defaultCADir(), "folder holding ca.pem and ca-key.pem for --mitm")
	f.IntVar(&c.maxBody, "max-body", proxy.DefaultMaxBody, "bytes of each body kept for grading; larger exchanges are forwarded but not graded")
	f.IntVar(&c.queue, "queue", proxy.DefaultQueueSize, "grading queue size; when full, grading is skipped and counted")
	f.IntVar(&c.workers, "workers", proxy.DefaultWorkers, "grading workers")
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
	if len(out) == 0 && !c.mitm {
		return nil, errors.New("nothing to proxy: give --upstream URL, --route PREFIX=URL, or --mitm for forward mode")
	}
	return out, nil
}

func runProxy(ctx context.Context, stdout io.Writer, c proxyConfig) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: use debug, info, warn or error", c.logLevel)
	}
	var logOut io.Writer = os.Stderr
	if c.tui { // log lines would scribble over the terminal UI
		logOut = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	routes, err := c.routeList()
	if err != nil {
		return err
	}
	opts := &proxy.Options{Routes: routes, Graders: []proxy.Grader{proxy.Passive()}, MaxBody: c.maxBody,
		QueueSize: c.queue, Workers: c.workers, Logger: log}
	if c.mitm {
		if opts.CA, err = proxy.LoadCA(caPaths(c.caDir)); err != nil {
			return err
		}
	}
	store, err := findings.Open(ctx, c.db, &findings.Options{RedactKeys: c.redact})
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
		return fmt.Errorf("listening on %s: %w (choose another --listen)", c.listen, err)
	}
	lnAdmin, err := net.Listen("tcp", c.admin)
	if err != nil {
		_ = lnProxy.Close()
		return fmt.Errorf("listening on %s: %w (choose another --admin)", c.admin, err)
	}
	if ip := lnAdmin.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		log.Warn("the admin API listens beyond this machine and has no authentication: anyone who reaches it can read stored exchanges", "admin", lnAdmin.Addr().String())
	}
	stopTracing, tracing, err := telemetry.Setup(ctx, "sentinel-proxy", cli.VersionString(), os.Getenv)
	if err != nil {
		return err
	}
	defer func() { _ = stopTracing(context.Background()) }()
	if tracing {
		log.Info("exporting traces over OTLP", "endpoint", os.Getenv(telemetry.EnvEndpoint))
	}
	// Traffic spans are observe-only: the proxy never adds a header to what it forwards.
	proxySrv := &http.Server{Handler: telemetry.Observe("proxy", p), ReadHeaderTimeout: 30 * time.Second}
	adminSrv := &http.Server{Handler: telemetry.Middleware("proxy-admin",
		p.Admin(proxy.AdminOptions{Prober: newProber(), ProxyURL: "http://" + lnProxy.Addr().String()})),
		ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- proxySrv.Serve(lnProxy) }()
	go func() { errc <- adminSrv.Serve(lnAdmin) }()
	if c.retention > 0 {
		go prune(ctx, store, c.retention, log)
	}
	log.Info("sentinel proxy started", "listen", lnProxy.Addr().String(), "admin", lnAdmin.Addr().String(), "db", redactDSN(c.db))
	// The ready lines scripts and the e2e helpers wait for, on stdout.
	if _, err := fmt.Fprintf(stdout, "listening on http://%s%s\nadmin on http://%s\n", lnProxy.Addr(), p.EndpointPath(), lnAdmin.Addr()); err != nil {
		log.Warn("printing the ready line", "error", err)
	}
	var serveErr error
	var tuiDone <-chan error
	if c.tui {
		tuiDone = startProxyTUI(ctx, "http://"+lnAdmin.Addr().String())
	}
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	case serveErr = <-tuiDone:
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = proxySrv.Shutdown(shutdown)
	_ = adminSrv.Shutdown(shutdown)
	if err := p.Close(shutdown); err != nil {
		log.Warn("grading queue not drained", "error", err)
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", serveErr)
	}
	return nil
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
