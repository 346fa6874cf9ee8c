package proxy

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// h2Upstream is an HTTPS upstream that speaks HTTP/2 (offers h2 in the TLS handshake, as most
// public servers do) and says which protocol each request arrived over.
func h2Upstream(t *testing.T) *httptest.Server {
	t.Helper()
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"proto":%q,"echo":%q}}`, r.Proto, body)
	}))
	up.EnableHTTP2 = true
	up.StartTLS()
	t.Cleanup(up.Close)
	return up
}

const h2Call = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func TestReverseModeReachesAnHTTP2Upstream(t *testing.T) {
	up := h2Upstream(t)
	u, _ := url.Parse(up.URL + "/mcp")
	r := newRigFor(t, up, Options{Routes: []Route{{Prefix: "/", Upstream: u}}, UpstreamTLS: trusting(up), Graders: []Grader{Passive()}})
	code, body := post(t, r.front.URL+"/mcp", h2Call)
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"proto":"HTTP/2.0","echo":%q}}`, h2Call)
	if code != http.StatusOK || string(body) != want {
		t.Fatalf("through sentinel to an h2 upstream: %d %s, want 200 %s", code, body, want)
	}
	waitFor(t, "the h2 exchange graded", func() bool {
		exs := r.exchanges(t)
		return len(exs) == 1 && exs[0].Graded == Graded && exs[0].RPCMethod == "tools/list"
	})
}

func TestMITMReachesAnHTTP2UpstreamAndSpeaksHTTP2ToTheClient(t *testing.T) {
	up := h2Upstream(t)
	certPEM, keyPEM, err := NewCA("sentinel test CA", time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ca, err := ParseCA(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	r := newRigFor(t, up, Options{Routes: []Route{}, Forward: true, AllowHosts: []string{"127.0.0.1"}, CA: ca,
		UpstreamTLS: trusting(up), Graders: []Grader{Passive()}})
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	proxyURL, _ := url.Parse(r.front.URL)
	for _, clientH2 := range []bool{false, true} {
		tr := &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: clientH2}
		t.Cleanup(tr.CloseIdleConnections)
		resp, err := (&http.Client{Transport: tr}).Post(up.URL+"/mcp", "application/json", strings.NewReader(h2Call))
		if err != nil {
			t.Fatalf("client h2 %v: POST through the intercepting proxy: %v", clientH2, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"proto":"HTTP/2.0","echo":%q}}`, h2Call)
		if resp.StatusCode != http.StatusOK || string(body) != want {
			t.Fatalf("client h2 %v: %d %s, want 200 %s", clientH2, resp.StatusCode, body, want)
		}
		if wantProto := map[bool]int{false: 1, true: 2}[clientH2]; resp.ProtoMajor != wantProto {
			t.Fatalf("client h2 %v: the client spoke HTTP/%d to the proxy, want %d", clientH2, resp.ProtoMajor, wantProto)
		}
	}
	waitFor(t, "both intercepted exchanges graded", func() bool {
		exs := r.exchanges(t)
		return len(exs) == 2 && exs[0].Graded == Graded && exs[1].Graded == Graded && strings.HasPrefix(exs[0].Target, "https://")
	})
}
