package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
)

// The transparency matrix: every case is sent direct to the upstream, through a plain
// httputil.ReverseProxy with sentinel's transport settings, and through sentinel proxy (grading
// on), and what the client got and what the upstream received are compared. Sentinel must match
// the plain proxy in everything, and the direct call in everything a proxy does not have to
// change (hop-by-hop headers, and a 502 where the direct client sees a transport error).

// matrixUpstream serves every case; it records what it received for each request (keyed by
// the X-Matrix-Id header) and, for streaming cases, holds the stream until the test releases
// it.
type matrixUpstream struct {
	mu       sync.Mutex
	received map[string]receivedView
	releases map[string]chan struct{}
	cancels  map[string]chan struct{}
}

// receivedView is what the upstream saw of one request.
type receivedView struct {
	Method, URI, Host string
	Header            string // end-to-end headers, sorted, User-Agent kept
	BodyLen           int
	BodySum           string
	Chunked           bool
}

func newMatrixUpstream() *matrixUpstream {
	return &matrixUpstream{received: map[string]receivedView{}, releases: map[string]chan struct{}{}, cancels: map[string]chan struct{}{}}
}

func (u *matrixUpstream) release(id string) chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	ch, ok := u.releases[id]
	if !ok {
		ch = make(chan struct{})
		u.releases[id] = ch
	}
	return ch
}

func (u *matrixUpstream) cancelled(id string) chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	ch, ok := u.cancels[id]
	if !ok {
		ch = make(chan struct{})
		u.cancels[id] = ch
	}
	return ch
}

func headerString(h http.Header, drop ...string) string {
	var lines []string
	for k, vs := range h {
		if k == "Date" || k == "X-Matrix-Id" || containsFold(drop, k) {
			continue
		}
		lines = append(lines, k+": "+strings.Join(vs, " | "))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

func (u *matrixUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("X-Matrix-Id")
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.received[id] = receivedView{Method: r.Method, URI: r.RequestURI, Host: r.Host, Header: headerString(r.Header),
		BodyLen: len(body), BodySum: sum(body), Chunked: len(r.TransferEncoding) > 0}
	u.mu.Unlock()
	flush := func() { _ = http.NewResponseController(w).Flush() }
	switch strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)[0] {
	case "json":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"echo":%q}}`, body)
	case "echo": // the body back, streamed as it was read (no Content-Length)
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(body)
	case "binary":
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write([]byte{0, 1, 2, 0xff, 0xfe, '\r', '\n', 0})
	case "status":
		code := 500
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/status/"), "%d", &code)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"status %d"}}`, code)
	case "chunked":
		w.Header().Set("Content-Type", "text/plain")
		for i := range 3 {
			fmt.Fprintf(w, "chunk %d\n", i)
			flush()
		}
	case "head":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1234")
		if r.Method != http.MethodHead {
			_, _ = w.Write(bytes.Repeat([]byte("x"), 1234))
		}
	case "trailers":
		w.Header().Set("Trailer", "X-Declared")
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "body before trailers")
		w.Header().Set("X-Declared", "d")
		w.Header().Set(http.TrailerPrefix+"X-Undeclared", "u")
	case "early-hints":
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	case "hop":
		w.Header().Set("Connection", "X-Resp-Hop")
		w.Header().Set("X-Resp-Hop", "1")
		w.Header().Set("Keep-Alive", "timeout=5")
		w.Header().Set("X-Resp-End", "1")
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "hop")
	case "enc":
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, r.RequestURI)
	case "stream": // first part, then hold until released: a proxy that buffers never delivers it in time
		ct, _ := url.QueryUnescape(r.URL.Query().Get("ct"))
		w.Header().Set("Content-Type", ct)
		first, second := "data: {\"n\":0}\n\n", "data: {\"n\":1}\n\n"
		if !strings.Contains(strings.ToLower(ct), "event-stream") {
			first, second = "{\"n\":0}\n", "{\"n\":1}\n"
		}
		_, _ = io.WriteString(w, first)
		flush()
		select {
		case <-u.release(id):
		case <-r.Context().Done():
			return
		case <-time.After(time.Minute):
		}
		_, _ = io.WriteString(w, second)
	case "cut": // a Content-Length promised and not kept
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		_, _ = w.Write(bytes.Repeat([]byte(" "), 500))
		flush()
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = c.Close()
		}
	case "reset": // RST before any response
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = c.Close()
		}
	case "hang":
		select {
		case <-r.Context().Done():
			close(u.cancelled(id))
		case <-time.After(10 * time.Second):
		}
	default:
		http.NotFound(w, r)
	}
}

// matrixPath is one way to the upstream: a base URL, and for forward mode the proxy the client
// is configured with (HTTP_PROXY / HTTPS_PROXY) and the roots it trusts.
type matrixPath struct {
	name  string
	base  string
	proxy *url.URL
	roots *x509.CertPool
}

// matrixModes are the ways sentinel carries traffic; the matrix runs in each. In reverse mode
// the client talks to the listener; in forward mode it sends absolute-form requests to it; in
// mitm mode it opens a CONNECT tunnel the proxy intercepts with the user's CA. The plain proxy is
// always httputil.ReverseProxy with sentinel's transport settings, in front of the same upstream.
var matrixModes = []string{"reverse", "forward", "mitm"}

// matrixPaths starts a plain reverse proxy and sentinel proxy (in mode) in front of upURL; up
// is the upstream server whose certificate HTTPS clients and proxies trust.
func matrixPaths(t *testing.T, mode, upURL string, up *httptest.Server) ([]matrixPath, findings.Store) {
	t.Helper()
	u, _ := url.Parse(upURL)
	var upTLS *tls.Config
	var upRoots *x509.CertPool
	if u.Scheme == "https" {
		upTLS = trusting(up)
		upRoots = upTLS.RootCAs
	}
	plainRP := plainReverseProxy(u)
	plainRP.Transport = NewTransport(upTLS)
	plain := httptest.NewServer(plainRP)
	t.Cleanup(plain.Close)
	store, err := findings.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	opts := &Options{Routes: []Route{{Prefix: "/", Upstream: u}}, Store: store, Graders: []Grader{Passive()}, UpstreamTLS: upTLS}
	var caRoots *x509.CertPool
	switch mode {
	case "forward":
		opts.Routes, opts.Forward, opts.AllowHosts = []Route{}, true, []string{u.Host}
	case "mitm":
		certPEM, keyPEM, err := NewCA("sentinel matrix CA", time.Hour, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if opts.CA, err = ParseCA(certPEM, keyPEM); err != nil {
			t.Fatal(err)
		}
		caRoots = x509.NewCertPool()
		caRoots.AppendCertsFromPEM(certPEM)
		opts.Routes, opts.Forward, opts.AllowHosts = []Route{}, true, []string{u.Host}
	}
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	sentinel := matrixPath{name: "sentinel", base: front.URL}
	if mode != "reverse" {
		fu, _ := url.Parse(front.URL)
		sentinel = matrixPath{name: "sentinel", base: upURL, proxy: fu, roots: caRoots}
	}
	return []matrixPath{{name: "direct", base: upURL, roots: upRoots}, {name: "plain", base: plain.URL}, sentinel}, store
}

// got is what a client observed of one case.
type got struct {
	Status            int
	Header            string
	BodyLen           int
	BodySum           string
	Trailer           string
	Informational     []string
	Err               string // "" or the class of failure: "transport", "read", "timeout"
	Streamed          bool
	Upstream          receivedView
	UpstreamSawCancel bool
}

// matrixCase is one request shape and what it sends.
type matrixCase struct {
	name, method, path string
	body               func() io.Reader
	length             int64 // -1: unknown (chunked)
	header             http.Header
	stream             bool          // the response is held after its first part
	timeout            time.Duration // client gives up after this
	expectContinue     bool
	// proxiesOnly are fields in which a proxy legitimately differs from the direct call.
	proxiesOnly []string
}

// hop-by-hop headers a proxy must drop (RFC 9110 §7.6.1): the client's never reach the
// upstream through a proxy, and the upstream's never reach the client.
var requestHop = http.Header{"Connection": {"X-Hop"}, "X-Hop": {"1"}, "Keep-Alive": {"timeout=5"},
	"Proxy-Connection": {"keep-alive"}, "X-End": {"1"}}

func (c matrixCase) run(t *testing.T, up *matrixUpstream, p matrixPath) got {
	t.Helper()
	id := c.name + "/" + p.name
	var body io.Reader
	if c.body != nil {
		body = c.body()
	}
	tr := &http.Transport{DisableCompression: true, ExpectContinueTimeout: 10 * time.Second}
	if p.proxy != nil {
		tr.Proxy = http.ProxyURL(p.proxy)
	}
	if p.roots != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: p.roots}
	}
	client := &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)
	ctx := t.Context()
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	g := got{BodySum: sum(nil)}
	var infoMu sync.Mutex
	trace := &httptrace.ClientTrace{
		Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
			infoMu.Lock()
			g.Informational = append(g.Informational, fmt.Sprintf("%d %s", code, h.Get("Link")))
			infoMu.Unlock()
			return nil
		},
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), c.method, p.base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.length != 0 {
		req.ContentLength = c.length
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	req.Header.Set("X-Matrix-Id", id)
	if c.expectContinue {
		req.Header.Set("Expect", "100-continue")
	}
	var resp *http.Response
	var head []byte
	if c.stream {
		resp, head, g.Streamed, err = doStream(client, req, up.release(id))
	} else {
		resp, err = client.Do(req)
	}
	if err != nil {
		g.Err = errClass(err)
	} else {
		g.Status, g.Header = resp.StatusCode, headerString(resp.Header)
		rest, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr != nil {
			g.Err = "read"
		}
		b := append(head, rest...)
		g.BodyLen, g.BodySum, g.Trailer = len(b), sum(b), headerString(resp.Trailer)
	}
	if c.timeout > 0 {
		select {
		case <-up.cancelled(id):
			g.UpstreamSawCancel = true
		case <-time.After(5 * time.Second):
		}
	}
	up.mu.Lock()
	g.Upstream = up.received[id]
	up.mu.Unlock()
	return g
}

// doStream sends a request whose response the upstream holds after its first part, and
// reports whether that part reached the client while the upstream still held the stream: the
// upstream never ends it on its own, so a proxy that buffers delivers nothing until the test
// gives up waiting and releases it.
func doStream(client *http.Client, req *http.Request, release chan struct{}) (*http.Response, []byte, bool, error) {
	type first struct {
		resp *http.Response
		head []byte
		err  error
	}
	ch := make(chan first, 1)
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			ch <- first{err: err}
			return
		}
		buf := make([]byte, 64)
		n, _ := resp.Body.Read(buf)
		ch <- first{resp: resp, head: buf[:n]}
	}()
	var f first
	streamed := false
	select {
	case f = <-ch:
		streamed = f.err == nil && len(f.head) > 0 && !bytes.Contains(f.head, []byte(`"n":1`))
	case <-time.After(5 * time.Second):
	}
	close(release)
	if !streamed && f.resp == nil && f.err == nil {
		f = <-ch
	}
	return f.resp, f.head, streamed, f.err
}

func errClass(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "timeout"
	default:
		return "transport"
	}
}

var tenMiB = sync.OnceValue(func() []byte {
	b := make([]byte, 10<<20)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
})

func TestTransparencyMatrix(t *testing.T) {
	for _, mode := range matrixModes {
		t.Run(mode, func(t *testing.T) { transparencyMatrix(t, mode) })
	}
}

func transparencyMatrix(t *testing.T, mode string) {
	up := newMatrixUpstream()
	srv := httptest.NewUnstartedServer(up)
	if mode == "mitm" {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	paths, _ := matrixPaths(t, mode, srv.URL, srv)
	jsonBody := func() io.Reader { return strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`) }
	tests := []matrixCase{
		{name: "JSON with repeated headers", method: "POST", path: "/json", body: jsonBody},
		{name: "10 MiB each way", method: "POST", path: "/echo", body: func() io.Reader { return bytes.NewReader(tenMiB()) }},
		{name: "binary body", method: "GET", path: "/binary"},
		{name: "upstream 404 with a body", method: "POST", path: "/status/404", body: jsonBody},
		{name: "upstream 503 with a body", method: "POST", path: "/status/503", body: jsonBody},
		{name: "chunked both ways", method: "POST", path: "/chunked", length: -1,
			body: func() io.Reader { return io.MultiReader(strings.NewReader("part one,"), strings.NewReader("part two")) }},
		{name: "HEAD keeps the Content-Length", method: "HEAD", path: "/head"},
		{name: "Expect: 100-continue", method: "POST", path: "/json", body: jsonBody, expectContinue: true},
		{name: "trailers declared and not", method: "GET", path: "/trailers"},
		{name: "103 Early Hints", method: "GET", path: "/early-hints"},
		{name: "hop-by-hop headers both ways", method: "GET", path: "/hop", header: requestHop, proxiesOnly: []string{"Header", "Upstream"}},
		{name: "encoded path and query", method: "GET", path: "/enc/a%2Fb%20c/d?x=%2F&y=1;z"},
		{name: "SSE, lower case", method: "POST", path: "/stream?ct=text%2Fevent-stream", body: jsonBody, stream: true},
		{name: "SSE, mixed case", method: "POST", path: "/stream?ct=Text%2FEvent-Stream%3B%20charset%3Dutf-8", body: jsonBody, stream: true},
		{name: "NDJSON", method: "POST", path: "/stream?ct=application%2Fx-ndjson", body: jsonBody, stream: true},
		{name: "JSON streamed without a length", method: "POST", path: "/stream?ct=application%2Fjson", body: jsonBody, stream: true},
		{name: "cut mid-body", method: "POST", path: "/cut", body: jsonBody},
		{name: "reset before answering", method: "POST", path: "/reset", body: jsonBody, proxiesOnly: []string{"Status", "Err", "Header"}},
		{name: "upstream hangs, client gives up", method: "POST", path: "/hang", body: jsonBody, timeout: 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			byPath := map[string]got{}
			for _, p := range paths {
				byPath[p.name] = tt.run(t, up, p)
			}
			compareMatrix(t, tt, byPath)
		})
	}
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := strings.SplitN(srv.URL, ":", 2)[0] + "://" + ln.Addr().String()
		_ = ln.Close()
		byPath := map[string]got{}
		refused, _ := matrixPaths(t, mode, closed, srv)
		c := matrixCase{name: "refused", method: "POST", path: "/json", body: jsonBody, proxiesOnly: []string{"Status", "Err", "Header"}}
		for _, p := range refused {
			byPath[p.name] = c.run(t, up, p)
		}
		compareMatrix(t, c, byPath)
		if g := byPath["sentinel"]; g.Status != http.StatusBadGateway || g.BodyLen != 0 {
			t.Errorf("refused through sentinel: %d with %d body bytes, want a bodiless 502", g.Status, g.BodyLen)
		}
	})
}

// compareMatrix requires sentinel to equal the plain proxy, and the direct call in every
// field but the case's proxiesOnly; then the properties each case exists for.
func compareMatrix(t *testing.T, c matrixCase, g map[string]got) {
	t.Helper()
	s, plain, direct := g["sentinel"], g["plain"], g["direct"]
	for _, diff := range diffGot(s, plain, nil) {
		t.Errorf("sentinel differs from the plain proxy: %s", diff)
	}
	for _, diff := range diffGot(s, direct, c.proxiesOnly) {
		t.Errorf("sentinel differs from the direct call: %s", diff)
	}
	switch c.name {
	case "hop-by-hop headers both ways":
		for _, h := range []string{"X-Hop", "Keep-Alive", "Proxy-Connection", "Connection: X-Hop"} {
			if strings.Contains(s.Upstream.Header, h) {
				t.Errorf("the upstream received the client's hop-by-hop %q through sentinel:\n%s", h, s.Upstream.Header)
			}
		}
		if !strings.Contains(s.Upstream.Header, "X-End: 1") {
			t.Errorf("the end-to-end X-End did not reach the upstream:\n%s", s.Upstream.Header)
		}
		for _, h := range []string{"X-Resp-Hop", "Keep-Alive", "Connection"} {
			if strings.Contains(s.Header, h) {
				t.Errorf("the client received the upstream's hop-by-hop %q through sentinel:\n%s", h, s.Header)
			}
		}
		if !strings.Contains(s.Header, "X-Resp-End: 1") {
			t.Errorf("the end-to-end X-Resp-End did not reach the client:\n%s", s.Header)
		}
	case "encoded path and query":
		if s.Upstream.URI != "/enc/a%2Fb%20c/d?x=%2F&y=1;z" {
			t.Errorf("the upstream was asked for %q, want the path and query exactly as sent", s.Upstream.URI)
		}
	case "103 Early Hints":
		if len(s.Informational) == 0 || !strings.HasPrefix(s.Informational[0], "103 </style.css>") {
			t.Errorf("informational responses through sentinel = %q, want the 103 with its Link", s.Informational)
		}
	case "trailers declared and not":
		if !strings.Contains(s.Trailer, "X-Declared: d") || !strings.Contains(s.Trailer, "X-Undeclared: u") {
			t.Errorf("trailers through sentinel = %q, want both", s.Trailer)
		}
	case "upstream hangs, client gives up":
		if s.Err != "timeout" || !s.UpstreamSawCancel {
			t.Errorf("client error %q, upstream saw the cancellation %v; want a timeout and the upstream cancelled", s.Err, s.UpstreamSawCancel)
		}
	case "cut mid-body":
		if s.Err != "read" {
			t.Errorf("a cut body through sentinel read as %q, want a read error (never a complete-looking reply)", s.Err)
		}
	}
	if c.stream && !s.Streamed {
		t.Errorf("the first part did not arrive while the upstream held the stream: sentinel buffers %s", c.name)
	}
}

// diffGot lists the fields in which a and b differ, except those skipped.
func diffGot(a, b got, skip []string) []string {
	var out []string
	check := func(field string, x, y any) {
		if containsFold(skip, field) {
			return
		}
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s:\n  %v\nvs\n  %v", field, x, y))
		}
	}
	check("Status", a.Status, b.Status)
	check("Header", a.Header, b.Header)
	check("Body", fmt.Sprintf("%d bytes %s", a.BodyLen, a.BodySum), fmt.Sprintf("%d bytes %s", b.BodyLen, b.BodySum))
	check("Trailer", a.Trailer, b.Trailer)
	check("Informational", a.Informational, b.Informational)
	check("Err", a.Err, b.Err)
	check("Streamed", a.Streamed, b.Streamed)
	check("UpstreamSawCancel", a.UpstreamSawCancel, b.UpstreamSawCancel)
	upA, upB := a.Upstream, b.Upstream
	if !containsFold(skip, "Upstream") {
		// Through any proxy the upstream sees its own Host; directly it is the same.
		check("Upstream", upA, upB)
	}
	return out
}
