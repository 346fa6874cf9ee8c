package proxy

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
)

// The small tools/call every measurement sends, and what the upstream answers.
const (
	measureCall   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	measureResult = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"isError":false}}`
)

// measureUpstream answers every request with measureResult after reading the body.
func measureUpstream() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/sse" { // the SSE benchmarks' stream: sseBenchEvents events, each flushed, back to back
			w.Header().Set("Content-Type", "text/event-stream")
			rc := http.NewResponseController(w)
			for i := range sseBenchEvents {
				fmt.Fprintf(w, "id: %d\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":%d}}\n\n", i, i)
				_ = rc.Flush()
			}
			fmt.Fprintf(w, "data: %s\n\n", measureResult)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, measureResult)
	})
}

// sseBenchEvents is how many progress events the benchmarks' SSE stream carries before its result.
const sseBenchEvents = 20

// storeBodyMax is the stored-body cap (findings.Options.MaxStoredBody) the measurements and
// benchmarks open their store with, 0 for the store's default: `go test -args -store-body-max=N`
// compares caps without editing the code.
var storeBodyMax = flag.Int("store-body-max", 0, "stored-body cap in bytes for the measurement stores (0: the default)")

// measureStore opens a SQLite findings store in tb's temporary directory with storeBodyMax,
// closed when tb ends.
func measureStore(tb testing.TB) findings.Store {
	tb.Helper()
	store, err := findings.Open(tb.Context(), filepath.Join(tb.TempDir(), "m.db"), &findings.Options{MaxStoredBody: *storeBodyMax})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	return store
}

// measureTargets starts the upstream, sentinel proxy (grading with passive.Run into SQLite) and
// a plain httputil.ReverseProxy, in process, for the benchmarks, and returns the URL of each path.
func measureTargets(tb testing.TB) (direct, sentinel, plain string, p *Proxy) {
	tb.Helper()
	up := httptest.NewServer(measureUpstream())
	tb.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	store := measureStore(tb)
	var err error
	p, err = New(&Options{Routes: []Route{{Prefix: "/", Upstream: u}}, Store: store, Graders: []Grader{Passive()}})
	if err != nil {
		tb.Fatal(err)
	}
	// Before the store closes: the worker gives its processor back (a benchmark must leave
	// GOMAXPROCS as it found it).
	tb.Cleanup(func() { _ = p.Close(context.Background()) })
	front := httptest.NewServer(p)
	tb.Cleanup(front.Close)
	plainSrv := httptest.NewServer(plainReverseProxy(u))
	tb.Cleanup(plainSrv.Close)
	return up.URL + "/mcp", front.URL + "/mcp", plainSrv.URL + "/mcp", p
}

func measureClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, Proxy: nil}, Timeout: 10 * time.Second}
}

// postOnce posts body to url as JSON and reads the reply; anything but a 200 is an error.
func postOnce(c *http.Client, url string, body []byte) error {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return err
}

// plainReverseProxy is what sentinel proxy is compared with: a bare httputil.ReverseProxy to
// one upstream, with sentinel's transport settings, adding no forwarding headers (sentinel
// adds none either) and flushing as sentinel does. It is left bare: it cuts an occasional reply
// (golang/go#40747, see TestMeasureProxy's method note), which sentinel's tap does not.
func plainReverseProxy(up *url.URL) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			pr.Out.Host = up.Host
			for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery
		},
		Transport:     NewTransport(nil),
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
}
