package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"github.com/elazarl/goproxy"

	"github.com/mcp-sentinel/sentinel/findings"
)

// Options configures a Proxy. A nil *Options is invalid (a store is required).
type Options struct {
	// Routes serve reverse mode: a request in origin form (POST /mcp) goes to the route whose
	// prefix matches its path, and one that matches none gets 404.
	Routes []Route
	// Forward turns on forward mode: absolute-form requests (a client with HTTP_PROXY set) and
	// CONNECT, to hosts AllowHosts permits. Off, an absolute-form request to a host no route
	// names, and every CONNECT, gets 403: the proxy is never an open relay into the network
	// of whoever runs it.
	Forward bool
	// AllowHosts are the forward-mode host patterns (see ParseHostPattern); Forward needs at
	// least one.
	AllowHosts []string
	// CA, when set, intercepts HTTPS in forward mode (CONNECT) with leaf certificates signed
	// by it (the user's own CA, from `sentinel ca init`); it needs Forward. Nil tunnels
	// CONNECT untouched.
	CA *tls.Certificate
	// Store keeps findings and exchanges; required.
	Store findings.Store
	// Graders judge each exchange, in order. Empty means nothing is graded (exchanges are still
	// recorded).
	Graders []Grader
	// MaxBody is the largest body kept for grading, in bytes; 0 means DefaultMaxBody.
	MaxBody int
	// MemoryBudget bounds the bytes grading holds at once (kept bodies and queued records); 0
	// means DefaultMemoryBudget. Past it, exchanges are recorded without grading.
	MemoryBudget int64
	// Workers is how many goroutines grade; 0 means DefaultWorkers.
	Workers int
	// UpstreamTLS verifies HTTPS upstreams (custom roots, say); nil means the system's roots.
	UpstreamTLS *tls.Config
	// Transport, when set, replaces the upstream transport of reverse mode (tests); nil means
	// NewTransport(UpstreamTLS). Forward mode always uses its own guarded transport.
	Transport http.RoundTripper
	// Hub configures the admin API's live stream.
	Hub HubOptions
	// Logger receives one line per exchange and errors; nil discards.
	Logger *slog.Logger
}

// Proxy is the running proxy: an http.Handler for the proxy listener, and the grading pipeline
// behind it that the admin API serves.
type Proxy struct {
	routes routes
	// endpoint is the first route's endpoint path on the listener (EndpointPath).
	endpoint string
	pipe     *Pipeline
	log      *slog.Logger

	// gp dispatches every request on the listener (dispatch.go); the ReverseProxies serve them.
	gp           *goproxy.ProxyHttpServer
	reverseProxy *httputil.ReverseProxy
	forwardProxy *httputil.ReverseProxy
	forward      *forwardPolicy
	mitm         *mitm

	protectMu sync.RWMutex
	protected map[string]bool // host:port the proxy must never forward to (its own listeners)
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
	if opts.CA != nil && !opts.Forward {
		return nil, errors.New("building the proxy: HTTPS interception (a CA) needs forward mode")
	}
	pipe, err := NewPipeline(PipelineOptions{Store: opts.Store, Graders: opts.Graders, Budget: NewBudget(opts.MemoryBudget),
		MaxBody: opts.MaxBody, Workers: opts.Workers, Hub: opts.Hub, Logger: lg})
	if err != nil {
		return nil, err
	}
	p := &Proxy{routes: newRoutes(opts.Routes), pipe: pipe, log: lg, protected: map[string]bool{}}
	if len(opts.Routes) > 0 {
		p.endpoint = opts.Routes[0].Endpoint()
	}
	if opts.Forward {
		if p.forward, err = newForwardPolicy(opts.AllowHosts, p.isProtected); err != nil {
			_ = pipe.Close(context.Background())
			return nil, err
		}
	}
	base := opts.Transport
	if base == nil {
		base = NewTransport(opts.UpstreamTLS)
	}
	p.reverseProxy = p.newForwarder(base)
	if p.forward != nil {
		p.forwardProxy = p.newForwarder(p.forward.transport(opts.UpstreamTLS))
		if opts.CA != nil {
			p.mitm = newMITM(opts.CA, p.forwardProxy, lg)
		}
	}
	p.gp = p.newDispatcher()
	return p, nil
}

// newForwarder is the forwarding core: net/http/httputil.ReverseProxy, so that hop-by-hop
// headers, 1xx responses (103 Early Hints), trailers, upgrades and a cut upstream behave as
// they do through a plain reverse proxy, with a Tap as its transport.
func (p *Proxy) newForwarder(base http.RoundTripper) *httputil.ReverseProxy {
	tap := &Tap{Base: base, MaxBody: p.pipe.maxBody, Budget: p.pipe.budget, Deliver: p.pipe.Submit}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			t := targetFrom(pr.In.Context())
			pr.Out.URL = t.url
			pr.Out.Host = t.host
			// Rewrite strips these and cleans the query; a transparent proxy forwards what the
			// client sent, and adds no forwarding headers of its own.
			for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery
		},
		Transport: tap,
		// Flush every write of a response without a Content-Length (ReverseProxy already does
		// so for any body of unknown length), so that NDJSON, streamed JSON and event streams
		// in any letter case arrive as they are written.
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, errBlockedAddress) {
				// Forward mode's dial refused what the name resolved to.
				p.refuse(w, r, err.Error())
				return
			}
			if !errors.Is(err, context.Canceled) {
				p.log.Debug("upstream failed", logTarget, r.URL.Redacted(), logError, err)
			}
			w.WriteHeader(http.StatusBadGateway) // bodiless, as ReverseProxy's own handler
		},
		BufferPool: bufferPool{},
	}
}

// target is where one request goes: the upstream URL and the Host header to send.
type target struct {
	url  *url.URL
	host string
}

type targetKey struct{}

func withTarget(r *http.Request, t target) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), targetKey{}, t))
}

func targetFrom(ctx context.Context) target {
	t, _ := ctx.Value(targetKey{}).(target)
	return t
}

// reverse sends an origin-form request to its route's upstream (goproxy's NonproxyHandler).
func (p *Proxy) reverse(w http.ResponseWriter, r *http.Request) {
	u, ok := p.routes.match(r.URL.EscapedPath(), r.URL.RawQuery)
	if !ok {
		http.Error(w, "sentinel proxy: no route for "+r.URL.EscapedPath(), http.StatusNotFound)
		return
	}
	p.reverseProxy.ServeHTTP(w, withTarget(r, target{url: u, host: u.Host}))
}

// refuse answers 403 with why; a forward proxy that says no must not pass the request on.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, why string) {
	p.pipe.metrics.refused.Add(1)
	p.log.Warn("refused", "method", r.Method, "host", r.Host, "reason", why)
	http.Error(w, "sentinel proxy: "+why, http.StatusForbidden)
}

// Protect names an address (host:port) the proxy must never forward to, such as its own
// admin listener: call it for each listener once it is bound.
func (p *Proxy) Protect(addrs ...string) {
	p.protectMu.Lock()
	defer p.protectMu.Unlock()
	for _, a := range addrs {
		if host, port, err := net.SplitHostPort(a); err == nil {
			p.protected[net.JoinHostPort(strings.ToLower(host), port)] = true
		}
	}
}

// isProtected reports whether addr (host:port, host possibly an IP) is one of the proxy's own.
func (p *Proxy) isProtected(addr string) bool {
	p.protectMu.RLock()
	defer p.protectMu.RUnlock()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if p.protected[net.JoinHostPort(strings.ToLower(host), port)] {
		return true
	}
	// A listener on 0.0.0.0 or [::] is reached by any local address with its port.
	ip := net.ParseIP(host)
	for a := range p.protected {
		h, pt, _ := net.SplitHostPort(a)
		if pt == port && (h == "0.0.0.0" || h == "::") && (ip == nil || ip.IsLoopback() || ip.IsUnspecified() || isLocalIP(ip)) {
			return true
		}
	}
	return false
}

// isSelf reports whether an absolute-form request names the listener it arrived on (some
// clients send absolute-form to a reverse proxy too); it is then served as origin-form.
func (p *Proxy) isSelf(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil {
		return false
	}
	host, port, err := net.SplitHostPort(hostPort(r.URL.Scheme, r.URL.Host))
	if err != nil || port != lport {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, lip := net.ParseIP(host), net.ParseIP(lhost)
	return ip != nil && lip != nil && (ip.Equal(lip) || (ip.IsLoopback() && lip.IsLoopback()))
}

// EndpointPath is the path on the proxy listener that reaches the first route's upstream
// endpoint ("" in forward-only mode): what `sentinel proxy` prints and POST /probe probes.
func (p *Proxy) EndpointPath() string { return p.endpoint }

// Pipeline is the grading pipeline the proxy feeds; the admin API serves it.
func (p *Proxy) Pipeline() *Pipeline { return p.pipe }

// Close stops intercepting and stops grading once everything queued is recorded (or, past
// ctx, recorded without grading). It does not close the store.
func (p *Proxy) Close(ctx context.Context) error {
	if p.mitm != nil {
		p.mitm.close()
	}
	return p.pipe.Close(ctx)
}

// bufferPool lends the 32 KiB copy buffers ReverseProxy uses per response.
type bufferPool struct{}

var buffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (bufferPool) Get() []byte  { return *(buffers.Get().(*[]byte)) }
func (bufferPool) Put(b []byte) { buffers.Put(&b) }
