package proxy

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestMITMInterceptsHTTPSWithTheUsersCA(t *testing.T) {
	certPEM, keyPEM, err := NewCA("sentinel test CA", time.Hour, time.Now())
	if err != nil {
		t.Fatalf("NewCA() = %v", err)
	}
	ca, err := ParseCA(certPEM, keyPEM)
	if err != nil {
		t.Fatalf("ParseCA() = %v", err)
	}
	up := httptest.NewTLSServer(jsonUpstream(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	t.Cleanup(up.Close)
	r := newRigFor(t, up, Options{Routes: []Route{}, Forward: true, AllowHosts: []string{"127.0.0.1"}, CA: ca, UpstreamTLS: trusting(up)})

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	proxyURL, _ := url.Parse(r.front.URL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL),
		TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Post(up.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatalf("POST through the intercepting proxy: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	if got := resp.TLS.PeerCertificates[len(resp.TLS.PeerCertificates)-1].Issuer.CommonName; got != "sentinel test CA" {
		t.Fatalf("leaf issued by %q, want the user's CA", got)
	}
	waitFor(t, "the intercepted exchange recorded", func() bool {
		exs := r.exchanges(t)
		return len(exs) == 1 && strings.HasPrefix(exs[0].Target, "https://") && exs[0].RPCMethod == "ping"
	})
}

func TestParseCARejectsAKeyThatDoesNotMatch(t *testing.T) {
	certPEM, _, _ := NewCA("a", time.Hour, time.Now())
	_, otherKey, _ := NewCA("b", time.Hour, time.Now())
	if _, err := ParseCA(certPEM, otherKey); err == nil {
		t.Fatal("ParseCA with a key that does not match = nil error, want one")
	}
}

func TestWithoutACAHTTPSIsTunnelledUntouched(t *testing.T) {
	up := httptest.NewTLSServer(jsonUpstream(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	t.Cleanup(up.Close)
	r := newRigFor(t, up, Options{Routes: []Route{}, Forward: true, AllowHosts: []string{"127.0.0.1"}})
	proxyURL, _ := url.Parse(r.front.URL)
	tr := up.Client().Transport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(proxyURL)
	resp, err := (&http.Client{Transport: tr}).Post(up.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatalf("POST through the tunnel: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("through the tunnel: %q", body)
	}
	// The upstream's own certificate reached the client: nothing was intercepted.
	if !resp.TLS.PeerCertificates[0].Equal(up.Certificate()) {
		t.Fatal("the client saw a certificate other than the upstream's: the tunnel intercepted TLS")
	}
}

func TestLeafCacheSignsOncePerHost(t *testing.T) {
	var c leafCache
	signed := 0
	gen := func() (*tls.Certificate, error) { signed++; return &tls.Certificate{}, nil }
	for _, h := range []string{"a", "a", "b", "a"} {
		if _, err := c.Fetch(h, gen); err != nil {
			t.Fatal(err)
		}
	}
	if signed != 2 {
		t.Fatalf("signed %d leaves for hosts a and b, want 2", signed)
	}
}

// trusting is a TLS client config that trusts an httptest TLS server's certificate.
func trusting(up *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(up.Certificate())
	return &tls.Config{RootCAs: pool}
}
