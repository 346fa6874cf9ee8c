package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// counting is an upstream that counts the requests it served.
func counting(hits *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
}

// viaProxy sends an absolute-form request through the proxy listener, as a client with
// HTTP_PROXY does.
func viaProxy(t *testing.T, front, target string) int {
	t.Helper()
	pu, _ := url.Parse(front)
	tr := &http.Transport{Proxy: http.ProxyURL(pu)}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Post(target, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatalf("POST %s through the proxy: %v", target, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// connectVia sends CONNECT host through the proxy listener and returns the status line.
func connectVia(t *testing.T, front, host string) string {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(front, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

func TestForwardModeIsOffByDefault(t *testing.T) {
	var routed, other atomic.Int64
	r := newRig(t, counting(&routed), Options{})
	elsewhere := httptest.NewServer(counting(&other))
	t.Cleanup(elsewhere.Close)

	if code := viaProxy(t, r.front.URL, elsewhere.URL+"/mcp"); code != http.StatusForbidden || other.Load() != 0 {
		t.Fatalf("absolute-form request to a host no route names: %d, reached it %d time(s); want 403 and never", code, other.Load())
	}
	if line := connectVia(t, r.front.URL, strings.TrimPrefix(elsewhere.URL, "http://")); !strings.Contains(line, " 403 ") {
		t.Fatalf("CONNECT in reverse mode answered %q, want 403", line)
	}
	// What a route names is still served, in either request form.
	if code := viaProxy(t, r.front.URL, r.upstream.URL+"/mcp"); code != http.StatusOK {
		t.Fatalf("absolute-form request to the route's own upstream: %d, want 200", code)
	}
	if code := viaProxy(t, r.front.URL, r.front.URL+"/mcp"); code != http.StatusOK {
		t.Fatalf("absolute-form request naming the proxy itself: %d, want 200", code)
	}
	if routed.Load() != 2 {
		t.Fatalf("the routed upstream served %d requests, want 2", routed.Load())
	}
	if n := r.proxy.pipe.metrics.refused.Load(); n != 2 {
		t.Fatalf("refusals counted: %d, want 2", n)
	}
}

func TestForwardModeReachesOnlyAllowedHosts(t *testing.T) {
	var allowed, denied, admin atomic.Int64
	ok := httptest.NewServer(counting(&allowed))
	t.Cleanup(ok.Close)
	no := httptest.NewServer(counting(&denied))
	t.Cleanup(no.Close)
	adm := httptest.NewServer(counting(&admin))
	t.Cleanup(adm.Close)
	okHost := strings.TrimPrefix(ok.URL, "http://")
	tests := []struct {
		name, allow, target string
		want                int
	}{
		{"an exact host:port is reached, loopback and all", okHost, ok.URL, http.StatusOK},
		{"another port of that host is not", okHost, no.URL, http.StatusForbidden},
		{"a wildcard never reaches an internal address", "*", ok.URL, http.StatusForbidden},
		{"a domain wildcard does not match an IP", "*.example.com", ok.URL, http.StatusForbidden},
		{"the proxy's own admin listener is never reached", "127.0.0.1", adm.URL, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRigFor(t, ok, Options{Routes: []Route{}, Forward: true, AllowHosts: []string{tt.allow}})
			r.proxy.Protect(strings.TrimPrefix(adm.URL, "http://"))
			before := allowed.Load() + denied.Load() + admin.Load()
			code := viaProxy(t, r.front.URL, tt.target+"/mcp")
			reached := allowed.Load() + denied.Load() + admin.Load() - before
			if code != tt.want || (tt.want == http.StatusForbidden && reached != 0) {
				t.Fatalf("allow %q, POST %s: %d (reached %d); want %d", tt.allow, tt.target, code, reached, tt.want)
			}
		})
	}
	if admin.Load() != 0 {
		t.Fatal("a request reached the protected admin listener")
	}
}

func TestForwardModeNeedsAnAllowList(t *testing.T) {
	store := newRig(t, http.NotFoundHandler(), Options{}).store
	if _, err := New(&Options{Store: store, Forward: true}); err == nil || !strings.Contains(err.Error(), "--allow-host") {
		t.Fatalf("New(Forward, no AllowHosts) = %v, want an error naming --allow-host", err)
	}
	if _, err := New(&Options{Store: store, CA: nil, Forward: false, AllowHosts: nil}); err != nil {
		t.Fatalf("New(reverse only) = %v", err)
	}
}

func TestParseHostPattern(t *testing.T) {
	tests := []struct {
		pattern, host, port string
		match, wildcard, ok bool
	}{
		{"api.example.com", "api.example.com", "443", true, false, true},
		{"API.Example.com:443", "api.example.com", "443", true, false, true},
		{"api.example.com:443", "api.example.com", "80", false, false, true},
		{"*.example.com", "a.b.example.com", "443", true, true, true},
		{"*.example.com", "example.com", "443", false, true, true},
		{"*.example.com", "badexample.com", "443", false, true, true},
		{"*", "anything", "1", true, true, true},
		{"*:443", "anything", "443", true, true, true},
		{"10.0.0.5", "10.0.0.5", "8080", true, false, true},
		{"[::1]:80", "::1", "80", true, false, true},
		{"a*.example.com", "", "", false, false, false},
		{"*.*.com", "", "", false, false, false},
		{"host:http", "", "", false, false, false},
		{"", "", "", false, false, false},
	}
	for _, tt := range tests {
		h, err := ParseHostPattern(tt.pattern)
		if (err == nil) != tt.ok {
			t.Errorf("ParseHostPattern(%q) error = %v, want ok %v", tt.pattern, err, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		if got := h.matches(tt.host, tt.port); got != tt.match || h.wildcard() != tt.wildcard {
			t.Errorf("%q matches %s:%s = %v (wildcard %v), want %v (%v)", tt.pattern, tt.host, tt.port, got, h.wildcard(), tt.match, tt.wildcard)
		}
	}
}

// FuzzParseHostPattern: a pattern that parses never matches an empty host, and a pattern
// without a wildcard matches only its own host.
func FuzzParseHostPattern(f *testing.F) {
	for _, s := range []string{"api.example.com", "*.example.com:443", "*", "[::1]:80", "10.0.0.1", "a*b"} {
		f.Add(s, "api.example.com")
	}
	f.Fuzz(func(t *testing.T, pattern, host string) {
		h, err := ParseHostPattern(pattern)
		if err != nil {
			return
		}
		if h.matches("", "443") && h.host != "*" {
			t.Fatalf("%q matches an empty host", pattern)
		}
		if !h.wildcard() && h.matches(strings.ToLower(host), "443") && strings.ToLower(host) != h.host {
			t.Fatalf("exact pattern %q matched another host %q", pattern, host)
		}
	})
}
