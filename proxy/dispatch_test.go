package proxy

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// goproxyLines records what goproxy logs when Verbose: one line per request it dispatched.
type goproxyLines struct {
	mu    sync.Mutex
	lines []string
}

func (g *goproxyLines) Printf(format string, v ...any) {
	g.mu.Lock()
	g.lines = append(g.lines, fmt.Sprintf(format, v...))
	g.mu.Unlock()
}

func (g *goproxyLines) count(substr string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, l := range g.lines {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// TestGoproxyDispatchesEveryRequest: goproxy's ProxyHttpServer is the listener's dispatcher and
// the forward policy is its request conditions. Every request form reaches goproxy (its verbose
// log names each), a refused host is refused by goproxy's last CONNECT handler after the allow
// condition failed, and the policy is a goproxy.ReqCondition. If dispatch moved out of goproxy,
// none of this would be logged.
func TestGoproxyDispatchesEveryRequest(t *testing.T) {
	var routed, allowed, denied atomic.Int64
	ok := httptest.NewServer(counting(&allowed))
	t.Cleanup(ok.Close)
	no := httptest.NewServer(counting(&denied))
	t.Cleanup(no.Close)
	okHost, noHost := strings.TrimPrefix(ok.URL, "http://"), strings.TrimPrefix(no.URL, "http://")
	r := newRig(t, counting(&routed), Options{Forward: true, AllowHosts: []string{okHost}})
	log := &goproxyLines{}
	r.proxy.gp.Logger, r.proxy.gp.Verbose = log, true // before any request reaches it

	if code, _ := post(t, r.front.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); code != http.StatusOK || routed.Load() != 1 {
		t.Fatalf("origin-form request: %d, routed upstream reached %d times; want 200 once", code, routed.Load())
	}
	if code := viaProxy(t, r.front.URL, ok.URL+"/mcp"); code != http.StatusOK || allowed.Load() != 1 {
		t.Fatalf("absolute-form request to an allowed host: %d, reached %d times; want 200 once", code, allowed.Load())
	}
	if code := viaProxy(t, r.front.URL, no.URL+"/mcp"); code != http.StatusForbidden || denied.Load() != 0 {
		t.Fatalf("absolute-form request to a host --allow-host does not permit: %d, reached %d times; want 403 and never", code, denied.Load())
	}
	if line := connectVia(t, r.front.URL, noHost); !strings.Contains(line, " 403 ") {
		t.Fatalf("CONNECT to a host not allowed answered %q, want 403", line)
	}
	if line := connectVia(t, r.front.URL, okHost); !strings.Contains(line, " 200 ") {
		t.Fatalf("CONNECT to an allowed host answered %q, want 200", line)
	}

	// goproxy's handleHttp logs "Got request" for every non-CONNECT request, origin-form included
	// (before it hands those to its NonproxyHandler), and handleHttps the CONNECT handler that
	// decided: the allow condition's (0th) or the unconditional refusal (1st).
	if n := log.count("Got request"); n != 3 {
		t.Errorf("goproxy dispatched %d plain requests, want 3:\n%s", n, strings.Join(log.lines, "\n"))
	}
	if log.count("Got request /mcp "+noHost) != 1 {
		t.Errorf("the refused absolute-form request did not go through goproxy:\n%s", strings.Join(log.lines, "\n"))
	}
	if log.count("on 1th handler") != 1 || log.count("on 0th handler") != 1 {
		t.Errorf("CONNECT was not decided by goproxy's handlers (the refusal 1st, the allowed 0th):\n%s", strings.Join(log.lines, "\n"))
	}

	cond := r.proxy.forwardAllowed()
	for host, want := range map[string]bool{okHost: true, noHost: false} {
		req := httptest.NewRequest(http.MethodGet, "http://"+host+"/mcp", nil)
		if got := cond.HandleReq(req, nil); got != want {
			t.Errorf("the goproxy condition for %s = %v, want %v", host, got, want)
		}
	}
}

// earlyConn sends the CONNECT line in the same write as the first bytes of what goes through the
// tunnel (a TLS ClientHello), as some clients do, and reads past the proxy's answer to it.
type earlyConn struct {
	net.Conn
	connect []byte
	br      *bufio.Reader
	status  string
}

func (c *earlyConn) Write(b []byte) (int, error) {
	if c.connect != nil {
		all := append(c.connect, b...)
		c.connect = nil
		if _, err := c.Conn.Write(all); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

func (c *earlyConn) Read(p []byte) (int, error) {
	if c.status == "" {
		resp, err := http.ReadResponse(c.br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			return 0, fmt.Errorf("reading the answer to CONNECT: %w", err)
		}
		c.status = resp.Status
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("CONNECT answered %s", resp.Status)
		}
	}
	return c.br.Read(p)
}

// TestConnectKeepsBytesSentWithTheConnectLine: a ClientHello in the same write as CONNECT is
// neither lost nor reordered, tunnelled or intercepted.
func TestConnectKeepsBytesSentWithTheConnectLine(t *testing.T) {
	const answer = `{"jsonrpc":"2.0","id":1,"result":{}}`
	up := httptest.NewTLSServer(jsonUpstream(answer))
	t.Cleanup(up.Close)
	upHost := strings.TrimPrefix(up.URL, "https://")
	certPEM, keyPEM, err := NewCA("sentinel test CA", time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ca, err := ParseCA(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	caPool := x509.NewCertPool()
	caPool.AppendCertsFromPEM(certPEM)
	for _, tt := range []struct {
		name  string
		ca    bool
		roots *x509.CertPool
	}{
		{"tunnelled", false, trusting(up).RootCAs},
		{"intercepted", true, caPool},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Routes: []Route{}, Forward: true, AllowHosts: []string{"127.0.0.1"}, UpstreamTLS: trusting(up)}
			if tt.ca {
				opts.CA = ca
			}
			r := newRigFor(t, up, opts)
			raw, err := net.Dial("tcp", strings.TrimPrefix(r.front.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = raw.Close() })
			_ = raw.SetDeadline(time.Now().Add(30 * time.Second))
			ec := &earlyConn{Conn: raw, br: bufio.NewReader(raw),
				connect: fmt.Appendf(nil, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", upHost, upHost)}
			tc := tls.Client(ec, &tls.Config{RootCAs: tt.roots, ServerName: "127.0.0.1"})
			if err := tc.Handshake(); err != nil {
				t.Fatalf("TLS through the tunnel, ClientHello sent with the CONNECT line: %v", err)
			}
			req, _ := http.NewRequest(http.MethodPost, up.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			if err := req.Write(tc); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(tc), req)
			if err != nil {
				t.Fatalf("reading the reply through the tunnel: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(body) != answer {
				t.Fatalf("through the tunnel: %d %q, want 200 %q", resp.StatusCode, body, answer)
			}
			if tt.ca {
				waitFor(t, "the intercepted exchange recorded", func() bool {
					exs := r.exchanges(t)
					return len(exs) == 1 && exs[0].RPCMethod == "ping"
				})
			}
		})
	}
}
