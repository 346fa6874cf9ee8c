package proxy

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, measureResult)
	})
}

// measureTargets starts the upstream, sentinel proxy (grading with passive.Run into SQLite) and
// a bare httputil.ReverseProxy, and returns the URL of each path.
func measureTargets(tb testing.TB) (direct, sentinel, bare string, p *Proxy) {
	direct, sentinel, bare, _, p = measureTargetsAll(tb)
	return direct, sentinel, bare, p
}

// measureTargetsAll also returns sentinel proxy with grading and storage off: the tap and
// goproxy alone, to tell their cost from grading's.
func measureTargetsAll(tb testing.TB) (direct, sentinel, bare, ungraded string, p *Proxy) {
	tb.Helper()
	up := httptest.NewServer(measureUpstream())
	tb.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	store, err := findings.Open(tb.Context(), filepath.Join(tb.TempDir(), "m.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	p, err = New(&Options{Routes: []Route{{Prefix: "/", Upstream: u}}, Store: store, Graders: []Grader{Passive()}})
	if err != nil {
		tb.Fatal(err)
	}
	front := httptest.NewServer(p)
	tb.Cleanup(front.Close)
	rp := plainReverseProxy(u)
	bareSrv := httptest.NewServer(rp)
	tb.Cleanup(bareSrv.Close)
	off, err := New(&Options{Routes: []Route{{Prefix: "/", Upstream: u}}, Store: discardStore{store}})
	if err != nil {
		tb.Fatal(err)
	}
	offSrv := httptest.NewServer(off)
	tb.Cleanup(offSrv.Close)
	return up.URL + "/mcp", front.URL + "/mcp", bareSrv.URL + "/mcp", offSrv.URL + "/mcp", p
}

// discardStore drops every write: the "grading off" baseline.
type discardStore struct{ findings.Store }

func (discardStore) Record(context.Context, findings.Batch) error { return nil }

func measureClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, Proxy: nil}, Timeout: 10 * time.Second}
}

func callOnce(c *http.Client, url string) error {
	resp, err := c.Post(url, "application/json", strings.NewReader(measureCall))
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

// sample sends n sequential calls and appends each latency to ds.
func sample(c *http.Client, url string, n int, ds []time.Duration) ([]time.Duration, error) {
	for range n {
		start := time.Now()
		if err := callOnce(c, url); err != nil {
			return ds, err
		}
		ds = append(ds, time.Since(start))
	}
	return ds, nil
}

// percentile returns the q-quantile (0..1) of ds, sorting it.
func percentile(ds []time.Duration, q float64) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[int(float64(len(ds)-1)*q)]
}

// load runs `clients` concurrent callers for d and returns requests per second and the peak
// heap in use sampled during the run.
func load(url string, clients int, d time.Duration) (rps float64, peakHeap uint64, errs int64) {
	var done atomic.Int64
	var failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	c := measureClient()
	for range clients {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if callOnce(c, url) != nil {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		})
	}
	var ms runtime.MemStats
	start := time.Now()
	for time.Since(start) < d {
		time.Sleep(100 * time.Millisecond)
		runtime.ReadMemStats(&ms)
		peakHeap = max(peakHeap, ms.HeapInuse)
	}
	close(stop)
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds(), peakHeap, failed.Load()
}

// plainReverseProxy is what sentinel proxy is compared with: a bare httputil.ReverseProxy to
// one upstream, with sentinel's transport settings, adding no forwarding headers (sentinel
// adds none either) and flushing as sentinel does.
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
