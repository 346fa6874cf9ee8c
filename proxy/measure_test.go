package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
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
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = defaultTransport()
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

// TestMeasureProxyOverhead is `make measure`'s proxy section. It runs only when
// SENTINEL_MEASURE_OUT names a file, and writes a markdown fragment there; it asserts nothing
// about timings (they are reported, never tested). Paths are measured in interleaved rounds so
// that a noisy neighbour on a shared machine hits them all alike.
func TestMeasureProxyOverhead(t *testing.T) {
	out := os.Getenv("SENTINEL_MEASURE_OUT")
	if out == "" {
		t.Skip("set SENTINEL_MEASURE_OUT=<file> (make measure does) to measure proxy overhead")
	}
	direct, sentinel, bare, ungraded, p := measureTargetsAll(t)
	paths := []struct{ name, url string }{{"direct", direct}, {"httputil.ReverseProxy", bare},
		{"sentinel proxy (grading off)", ungraded}, {"sentinel proxy (grading on)", sentinel}}
	const rounds, perRound, loadRounds, clients, dur = 5, 1000, 3, 64, 2 * time.Second
	lat := make([][]time.Duration, len(paths))
	c := measureClient()
	for i, pth := range paths { // warm-up: connections, caches, the SQLite file
		if _, err := sample(c, pth.url, 200, nil); err != nil {
			t.Fatalf("%s: %v", pth.name, err)
		}
		lat[i] = make([]time.Duration, 0, rounds*perRound)
	}
	for range rounds {
		for i, pth := range paths {
			var err error
			if lat[i], err = sample(c, pth.url, perRound, lat[i]); err != nil {
				t.Fatalf("%s: %v", pth.name, err)
			}
		}
	}
	rps := make([][]float64, len(paths))
	heap := make([]uint64, len(paths))
	errs := make([]int64, len(paths))
	gradedBefore, droppedBefore := p.metrics.exchanges.Load(), p.metrics.dropped.Load()
	for range loadRounds {
		for i, pth := range paths {
			runtime.GC()
			r, h, e := load(pth.url, clients, dur)
			rps[i], heap[i], errs[i] = append(rps[i], r), max(heap[i], h), errs[i]+e
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "## Proxy overhead (loopback, %s/%s, GOMAXPROCS=%d)\n\n", runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "Method: a small `tools/call` (%d bytes; %d-byte result) to an in-process upstream, by one Go test process that also runs the clients, the upstream and the proxies. Latency: %d rounds of %d sequential calls per path, paths interleaved. Throughput: %d rounds of %d concurrent clients for %s per path, interleaved; the median round is reported. Heap: the peak `HeapInuse` of the whole process sampled every 100 ms under that load. Grading on: `passive.Run` into a SQLite store, %d worker(s) at %.0f%% of a CPU each; exchanges beyond that are skipped and counted, never delayed.\n\n",
		len(measureCall), len(measureResult), rounds, perRound, loadRounds, clients, dur, DefaultWorkers, DefaultGradingBudget*100)
	fmt.Fprintf(&b, "| path | p50 | p99 | throughput (req/s) | peak heap (MiB) | errors |\n|---|---|---|---|---|---|\n")
	type row struct{ p50, p99, rps float64 }
	rows := map[string]row{}
	for i, pth := range paths {
		p50, p99 := percentile(lat[i], 0.50), percentile(lat[i], 0.99)
		med := median(rps[i])
		rows[pth.name] = row{float64(p50), float64(p99), med}
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.1f | %d |\n", pth.name, p50.Round(time.Microsecond), p99.Round(time.Microsecond), med, float64(heap[i])/(1<<20), errs[i])
	}
	s, r := rows["sentinel proxy (grading on)"], rows["httputil.ReverseProxy"]
	fmt.Fprintf(&b, "\nsentinel (grading on) vs bare reverse proxy: p50 %.2fx, p99 %.2fx, throughput %.0f%% (goal: at most 1.25x, 1.25x; at least 80%%). Under the concurrent load, %d of %d exchanges were not graded (queue full).\n",
		s.p50/r.p50, s.p99/r.p99, 100*s.rps/r.rps, p.metrics.dropped.Load()-droppedBefore, p.metrics.exchanges.Load()-gradedBefore)
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatalf("writing %s: %v", out, err)
	}
	t.Log("\n" + b.String())
}

func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}
