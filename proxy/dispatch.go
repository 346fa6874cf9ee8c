package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"

	"github.com/elazarl/goproxy"
)

// The proxy listener's dispatcher is goproxy's ProxyHttpServer. It does what a proxy library
// is good at: it tells the request forms apart (origin-form to its NonproxyHandler, absolute-
// form through its request handlers, CONNECT through its CONNECT handlers), and the policy of
// which hosts forward mode reaches is a set of goproxy request conditions. It never writes a
// forwarded response: its own response path flushes only lowercase text/event-stream, passes
// hop-by-hop headers on, drops 1xx responses and writes intercepted responses by hand. So every
// request it accepts is served by httputil.ReverseProxy with the grading Tap as its transport:
//
//	origin-form          NonproxyHandler           -> reverse (routes)
//	absolute-form        request handler, matched  -> the ReverseProxy, on the client's writer;
//	                     by condition                 goproxy is told the request was served
//	                     none matched              -> a 403 goproxy writes (short and final)
//	CONNECT              CONNECT handler, matched  -> a byte tunnel (goproxy's ConnectAccept,
//	                     by condition                 dialled through the policy) or, with a CA,
//	                                                  ConnectHijack: TLS with the user's CA and an
//	                                                  http.Server whose handler is the ReverseProxy
//	                     none matched              -> ConnectReject with a 403
//
// goproxy's request handlers get no ResponseWriter, so ServeHTTP hands the client's writer to
// them in the request's context (a front), and the front swallows what goproxy writes after the
// ReverseProxy has answered: a proxy that answered twice would log a superfluous WriteHeader,
// and goproxy's header copy would wipe the trailers the ReverseProxy set.

// newDispatcher builds the goproxy server for p. Nothing here runs at package init.
func (p *Proxy) newDispatcher() *goproxy.ProxyHttpServer {
	gp := goproxy.NewProxyHttpServer()
	gp.Logger = goproxyLog{p.log}
	gp.Verbose = false
	gp.NonproxyHandler = http.HandlerFunc(p.reverse)
	// goproxy never sends a request itself: every request it accepts is served by a
	// ReverseProxy, and a CONNECT tunnel dials through the forward policy. Should a request
	// ever slip through to its own round trip, it fails here rather than reaching anything.
	gp.Tr = &http.Transport{Proxy: nil, DialContext: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("sentinel proxy: goproxy never dials on its own")
	}}
	gp.ConnectDial = nil // NewProxyHttpServer chains CONNECT through HTTPS_PROXY otherwise
	gp.ConnectDialWithReq = p.dialConnect
	gp.ConnectionErrHandler = p.connectFailed
	gp.KeepDestinationHeaders = true // never clear a header the ReverseProxy set
	gp.KeepAcceptEncoding = true

	// Absolute-form requests, first match wins.
	gp.OnRequest(goproxy.ReqConditionFunc(p.namesSelf)).DoFunc(p.serveSelf)
	gp.OnRequest(goproxy.ReqConditionFunc(p.namesRoute)).DoFunc(p.serveRoute)
	if p.forward != nil {
		gp.OnRequest(p.forwardAllowed()).DoFunc(p.serveForward)
	}
	gp.OnRequest().DoFunc(p.refuseRequest)

	// CONNECT, first match wins. Without a match goproxy accepts the tunnel, so the refusal
	// is registered last, unconditionally.
	if p.forward != nil {
		accept := &goproxy.ConnectAction{Action: goproxy.ConnectAccept}
		if p.mitm != nil {
			accept = &goproxy.ConnectAction{Action: goproxy.ConnectHijack, Hijack: p.mitm.hijack}
		}
		gp.OnRequest(p.forwardAllowed()).HandleConnectFunc(func(host string, _ *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
			return accept, hostPort("https", host)
		})
	}
	reject := &goproxy.ConnectAction{Action: goproxy.ConnectReject}
	gp.OnRequest().HandleConnectFunc(func(host string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
		ctx.Resp = p.refusal(ctx.Req) //nolint:bodyclose // goproxy writes it to the client; the body is an in-memory buffer
		return reject, host
	})
	return gp
}

// ServeHTTP serves the proxy listener through goproxy: origin-form requests in reverse mode,
// absolute-form requests and CONNECT in forward mode. The admin API is never served here.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect && !r.URL.IsAbs() {
		// goproxy hands it to the NonproxyHandler as it is; no front is needed.
		p.gp.ServeHTTP(w, r)
		return
	}
	f := &front{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), frontKey{}, f))
	if r.ProtoMajor == 1 {
		// goproxy asserts http.Hijacker to take over a CONNECT; the front keeps the bytes the
		// server buffered after the CONNECT line (a TLS ClientHello, often).
		p.gp.ServeHTTP(hijackFront{f}, r)
		return
	}
	p.gp.ServeHTTP(f, r)
}

// forwardAllowed is the forward policy as a goproxy request condition: true when the request
// (absolute-form, or the authority of a CONNECT) names a host an --allow-host pattern permits
// and not one of the proxy's own listeners.
func (p *Proxy) forwardAllowed() goproxy.ReqConditionFunc {
	return func(r *http.Request, _ *goproxy.ProxyCtx) bool { return p.forwardRefusal(r) == "" }
}

// forwardRefusal is why forward mode refuses r, or "".
func (p *Proxy) forwardRefusal(r *http.Request) string {
	if p.forward == nil {
		if r.Method == http.MethodConnect {
			return "CONNECT needs forward mode (start sentinel proxy with --forward and --allow-host)"
		}
		return "forward mode is off (start sentinel proxy with --forward and --allow-host)"
	}
	if r.Method == http.MethodConnect {
		return p.forward.check("https", r.Host)
	}
	return p.forward.check(r.URL.Scheme, r.URL.Host)
}

// namesSelf: an absolute-form request naming the listener it arrived on (some clients send
// absolute-form to a reverse proxy too) is served as origin-form.
func (p *Proxy) namesSelf(r *http.Request, _ *goproxy.ProxyCtx) bool { return p.isSelf(r) }

// namesRoute: an absolute-form request to an upstream a route names is served as in reverse
// mode, forward mode or not.
func (p *Proxy) namesRoute(r *http.Request, _ *goproxy.ProxyCtx) bool {
	_, ok := p.routes.names(r.URL.Scheme, r.URL.Host)
	return ok
}

func (p *Proxy) serveSelf(r *http.Request, _ *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	r2 := *r
	u := *r.URL
	u.Scheme, u.Host = "", ""
	r2.URL = &u
	return r, serveOn(r, func(w http.ResponseWriter) { p.reverse(w, &r2) })
}

func (p *Proxy) serveRoute(r *http.Request, _ *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	up, _ := p.routes.names(r.URL.Scheme, r.URL.Host)
	u := *r.URL
	u.Scheme, u.Host = up.Scheme, up.Host
	return r, serveOn(r, func(w http.ResponseWriter) {
		p.reverseProxy.ServeHTTP(w, withTarget(r, target{url: &u, host: up.Host}))
	})
}

func (p *Proxy) serveForward(r *http.Request, _ *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	u := *r.URL
	return r, serveOn(r, func(w http.ResponseWriter) {
		p.forwardProxy.ServeHTTP(w, withTarget(r, target{url: &u, host: r.Host}))
	})
}

// refuseRequest is the last request handler: what no condition let through gets 403.
func (p *Proxy) refuseRequest(r *http.Request, _ *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	return r, p.refusal(r)
}

// refusal counts and logs a refused request and returns the 403 goproxy writes for it; a
// forward proxy that says no must not pass the request on.
func (p *Proxy) refusal(r *http.Request) *http.Response {
	why := p.forwardRefusal(r)
	if why == "" {
		why = "no route or --allow-host pattern permits " + r.Host
	}
	p.pipe.metrics.refused.Add(1)
	p.log.Warn("refused", "method", r.Method, "host", r.Host, "reason", why)
	return goproxy.NewResponse(r, "text/plain; charset=utf-8", http.StatusForbidden, "sentinel proxy: "+why+"\n")
}

// serveOn runs serve on the client's own writer (the front's) and returns the response goproxy
// is given in its place: empty, for the front to swallow.
func serveOn(r *http.Request, serve func(http.ResponseWriter)) *http.Response {
	f, _ := r.Context().Value(frontKey{}).(*front)
	if f == nil {
		// Not through ServeHTTP (goproxy driven directly): nothing can be served.
		return goproxy.NewResponse(r, "text/plain; charset=utf-8", http.StatusInternalServerError, "sentinel proxy: no client writer\n")
	}
	serve(f.ResponseWriter)
	f.served = true
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody, Request: r}
}

type frontKey struct{}

// front is the writer goproxy is given for an absolute-form request or a CONNECT. It passes
// everything through until the ReverseProxy has served the request on the writer beneath;
// after that, what goproxy writes for the empty response it was handed is dropped.
type front struct {
	http.ResponseWriter
	served bool
	spare  http.Header
	// buffered holds what the server read past the CONNECT line, once goproxy hijacked.
	buffered *bufio.Reader
}

func (f *front) Header() http.Header {
	if f.served {
		if f.spare == nil {
			f.spare = http.Header{}
		}
		return f.spare
	}
	return f.ResponseWriter.Header()
}

func (f *front) WriteHeader(code int) {
	if !f.served {
		f.ResponseWriter.WriteHeader(code)
	}
}

func (f *front) Write(b []byte) (int, error) {
	if f.served {
		return len(b), nil
	}
	return f.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the client's writer.
func (f *front) Unwrap() http.ResponseWriter { return f.ResponseWriter }

// hijackFront is a front on an HTTP/1 connection, which goproxy may take over for CONNECT.
type hijackFront struct{ *front }

func (f hijackFront) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(f.ResponseWriter).Hijack()
	if err == nil {
		f.buffered = rw.Reader
	}
	return c, rw, err
}

// bufferedOf is what the server read past the CONNECT line of r, nil when nothing was hijacked.
func bufferedOf(r *http.Request) *bufio.Reader {
	if f, ok := r.Context().Value(frontKey{}).(*front); ok {
		return f.buffered
	}
	return nil
}

// connectDialError marks a CONNECT dial that failed, the one error goproxy's
// ConnectionErrHandler may answer with a response (a broken tunnel is only closed).
type connectDialError struct{ err error }

func (e *connectDialError) Error() string { return e.err.Error() }
func (e *connectDialError) Unwrap() error { return e.err }

// dialConnect dials a CONNECT tunnel through the forward policy (what the name resolves to is
// checked, and the checked address dialled).
func (p *Proxy) dialConnect(r *http.Request, network, addr string) (net.Conn, error) {
	if p.forward == nil {
		return nil, &connectDialError{fmt.Errorf("forwarding to %s: %w: forward mode is off", addr, errBlockedAddress)}
	}
	ctx, cancel := context.WithTimeout(r.Context(), dialTimeout)
	defer cancel()
	c, err := p.forward.dial(ctx, network, addr)
	if err != nil {
		return nil, &connectDialError{err}
	}
	return c, nil
}

// connectFailed answers a CONNECT whose dial failed: 403 when the policy refused the address
// the name resolved to, 502 otherwise. goproxy closes the connection after it.
func (p *Proxy) connectFailed(w io.Writer, _ *goproxy.ProxyCtx, err error) {
	var de *connectDialError
	if !errors.As(err, &de) {
		return // a tunnel that broke mid-way: there is no response to give
	}
	status := http.StatusBadGateway
	if errors.Is(err, errBlockedAddress) {
		p.pipe.metrics.refused.Add(1)
		status = http.StatusForbidden
	}
	msg := "sentinel proxy: " + err.Error() + "\n"
	if rw, ok := w.(interface{ ResponseWriter() http.ResponseWriter }); ok { // a CONNECT over HTTP/2
		http.Error(rw.ResponseWriter(), msg, status)
		return
	}
	_, _ = fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(msg), msg)
}

// goproxyLog sends goproxy's own lines (it writes only warnings unless Verbose) to the debug log.
type goproxyLog struct{ log *slog.Logger }

func (g goproxyLog) Printf(format string, v ...any) {
	if g.log.Enabled(context.Background(), slog.LevelDebug) {
		g.log.Debug("goproxy", "line", fmt.Sprintf(format, v...))
	}
}
