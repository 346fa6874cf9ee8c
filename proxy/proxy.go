package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"

	"github.com/elazarl/goproxy"

	"github.com/mcp-sentinel/sentinel/findings"
)

// Options configures a Proxy. A nil *Options is invalid (a store is required).
type Options struct {
	// Routes serve reverse mode; with none, only forward-mode (absolute-URL) requests are served
	// and others get 404.
	Routes []Route
	// Store keeps findings and exchanges; required.
	Store findings.Store
	// Graders judge each exchange, in order. Empty means nothing is graded (exchanges are still
	// recorded).
	Graders []Grader
	// MaxBody caps each body kept for grading, in bytes; 0 means DefaultMaxBody.
	MaxBody int
	// QueueSize bounds the grading queue; 0 means DefaultQueueSize. When it is full, grading is
	// skipped and counted, and traffic never waits.
	QueueSize int
	// Workers is how many goroutines grade; 0 means DefaultWorkers.
	Workers int
	// GradingBudget is the share of one CPU each worker may spend grading, in (0,1]; 0 means
	// DefaultGradingBudget, 1 means no rest. Past it, exchanges queue and then are skipped.
	GradingBudget float64
	// CA, when set, turns on HTTPS interception for CONNECT requests, signing leaf certificates
	// with it (the user's own CA, from `sentinel ca init`). Nil tunnels CONNECT untouched.
	CA *tls.Certificate
	// Transport sends requests upstream; nil means a transport that never uses HTTP_PROXY and
	// never adds or removes compression.
	Transport http.RoundTripper
	// Logger receives one line per graded exchange and errors; nil discards.
	Logger *slog.Logger
}

// Proxy is the running proxy: an http.Handler for the proxy listener, plus the pipeline and the
// state the admin API serves.
type Proxy struct {
	gp     *goproxy.ProxyHttpServer
	routes routes
	// endpoint is the first route's endpoint path on the listener (EndpointPath).
	endpoint string
	tap      *Tap
	pipe     *pipeline
	metrics  *metrics
	hub      *hub
	store    findings.Store
	log      *slog.Logger
}

// New builds a proxy and starts its grading workers; Close stops them.
func New(opts *Options) (*Proxy, error) {
	if opts == nil || opts.Store == nil {
		return nil, errors.New("building the proxy: a findings store is required")
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	p := &Proxy{routes: newRoutes(opts.Routes), metrics: newMetrics(), hub: newHub(), store: opts.Store, log: lg}
	if len(opts.Routes) > 0 {
		p.endpoint = opts.Routes[0].Endpoint()
	}
	budget := opts.GradingBudget
	if budget <= 0 {
		budget = DefaultGradingBudget
	}
	p.pipe = newPipeline(orDefault(opts.QueueSize, DefaultQueueSize), orDefault(opts.Workers, DefaultWorkers),
		min(budget, 1), opts.Graders, opts.Store, p.metrics, p.hub, lg)
	base := opts.Transport
	if base == nil {
		base = defaultTransport()
	}
	p.tap = &Tap{Base: base, MaxBody: opts.MaxBody, Deliver: p.pipe.submit}

	gp := goproxy.NewProxyHttpServer()
	gp.Logger = log.New(io.Discard, "", 0)
	gp.KeepAcceptEncoding = true // the client's encoding choice reaches the upstream unchanged
	gp.ConnectDial = nil
	gp.Tr = defaultTransport()
	gp.NonproxyHandler = http.HandlerFunc(p.reverse)
	gp.OnRequest().DoFunc(func(r *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
		ctx.RoundTripper = goproxy.RoundTripperFunc(func(req *http.Request, _ *goproxy.ProxyCtx) (*http.Response, error) {
			return p.tap.RoundTrip(req)
		})
		return r, nil
	})
	if opts.CA != nil {
		gp.CertStore = &leafCache{}
		action := &goproxy.ConnectAction{Action: goproxy.ConnectMitm, TLSConfig: goproxy.TLSConfigFromCA(opts.CA)}
		gp.OnRequest().HandleConnectFunc(func(host string, _ *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
			return action, host
		})
	}
	p.gp = gp
	return p, nil
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func defaultTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil               // never chain through HTTP_PROXY
	t.DisableCompression = true // forward the client's Accept-Encoding and the body as sent
	t.MaxIdleConnsPerHost = 256
	t.ForceAttemptHTTP2 = false
	return t
}

// ServeHTTP serves the proxy listener: relative paths in reverse mode, absolute URLs and
// CONNECT in forward mode.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, abort := withAbort(r.Context())
	p.gp.ServeHTTP(w, r.WithContext(ctx))
	if abort.Load() {
		// The upstream failed mid-body: end the client's response abruptly, as
		// httputil.ReverseProxy does, instead of letting it look complete.
		panic(http.ErrAbortHandler)
	}
}

// reverse rewrites a relative request to its route's upstream and hands it back to goproxy,
// whose hooks then run as for a forward-mode request.
func (p *Proxy) reverse(w http.ResponseWriter, r *http.Request) {
	u, ok := p.routes.match(r.URL.Path, r.URL.RawQuery)
	if !ok {
		http.Error(w, "sentinel proxy: no route for "+r.URL.Path, http.StatusNotFound)
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL = u
	r2.Host = u.Host
	p.gp.ServeHTTP(w, r2)
}

// EndpointPath is the path on the proxy listener that reaches the first route's upstream
// endpoint ("" in forward-only mode): what `sentinel proxy` prints and POST /probe probes.
func (p *Proxy) EndpointPath() string { return p.endpoint }

// Close stops grading after the queue drains, or when ctx ends. It does not close the store.
func (p *Proxy) Close(ctx context.Context) error { return p.pipe.close(ctx) }
