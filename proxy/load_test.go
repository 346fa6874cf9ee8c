package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	rtmetrics "runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
)

// liveHeap is the heap the last garbage collection found live: what the process retains, not
// what it has yet to collect.
func liveHeap() uint64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap records the peak live heap until stop is closed.
func sampleHeap(stop <-chan struct{}) *atomic.Uint64 {
	var peak atomic.Uint64
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if h := liveHeap(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	}()
	return &peak
}

// 16 clients sending and receiving 4 and 10 MiB bodies once took the proxy past 6 GiB: every body
// was copied and queued behind a throttled worker. Now what grading holds stays within its
// budget, a 10 MiB body (past the cap) is never copied, and every exchange is recorded.
func TestLargeBodiesStayWithinTheGradingBudget(t *testing.T) {
	const budget = 32 << 20
	bodies := map[string][]byte{"4": bytes.Repeat([]byte(" "), 4<<20-64), "10": bytes.Repeat([]byte(" "), 10<<20)}
	for k, b := range bodies { // JSON values padded with spaces: gradable when small enough
		copy(b, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		bodies[k] = b
	}
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bodies[r.URL.Query().Get("mib")])
	})
	r := newRig(t, up, Options{Graders: []Grader{Passive()}, MemoryBudget: budget})
	stop := make(chan struct{})
	peak := sampleHeap(stop)
	base := liveHeap()
	const clients, each = 16, 6
	var wg sync.WaitGroup
	var failed atomic.Int64
	for c := range clients {
		wg.Go(func() {
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			for i := range each {
				mib := []string{"4", "10"}[(c+i)%2]
				resp, err := (&http.Client{Transport: tr}).Post(r.front.URL+"/mcp?mib="+mib, "application/json", bytes.NewReader(bodies[mib]))
				if err != nil {
					failed.Add(1)
					continue
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || n != int64(len(bodies[mib])) {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	var exs []findings.Exchange
	waitFor(t, "every exchange recorded", func() bool { exs = r.exchanges(t); return len(exs) == clients*each })
	close(stop)
	if failed.Load() != 0 {
		t.Fatalf("%d of %d large exchanges failed through the proxy", failed.Load(), clients*each)
	}
	b := r.proxy.pipe.budget
	if b.Peak() > b.Limit() {
		t.Fatalf("grading held %d bytes at its peak, over its budget of %d", b.Peak(), b.Limit())
	}
	for _, ex := range exs {
		tooLarge := ex.URL[len(ex.URL)-2:] == "10"
		if tooLarge && ex.Graded != NotGradedTooLarge {
			t.Errorf("a 10 MiB exchange recorded as %q, want %q", ex.Graded, NotGradedTooLarge)
		}
		if !tooLarge && ex.Graded != Graded && ex.Graded != NotGradedBudget {
			t.Errorf("a 4 MiB exchange recorded as %q, want graded or %q", ex.Graded, NotGradedBudget)
		}
	}
	// What the process retained beyond its start: the budget, plus the copies grading makes of
	// the one body it is grading, plus connection buffers. Uncapped, it was gigabytes.
	if grew := int64(peak.Load()) - int64(base); grew > budget+96<<20 {
		t.Fatalf("the live heap grew by %d MiB under 16 clients of 4-10 MiB bodies, want at most the %d MiB budget and 96 MiB",
			grew>>20, budget>>20)
	}
	t.Logf("live heap grew by at most %d MiB; grading held at most %d MiB of its %d MiB budget", (int64(peak.Load())-int64(base))>>20, b.Peak()>>20, b.Limit()>>20)
}

// At 64 clients a quarter of the exchanges used to be skipped and never stored. Every exchange
// is recorded now, with what names it even when it was not graded.
func TestEveryExchangeIsRecordedUnderLoad(t *testing.T) {
	r := newRig(t, jsonUpstream(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`), Options{Graders: []Grader{Passive()}})
	const clients, each = 64, 40
	var wg sync.WaitGroup
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	var failed atomic.Int64
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool-%d"}}`, i, c)
				resp, err := client.Post(r.front.URL+"/mcp", "application/json", bytes.NewReader([]byte(body)))
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d requests failed", failed.Load())
	}
	var exs []findings.Exchange
	waitFor(t, "every exchange recorded", func() bool { exs = r.exchanges(t); return len(exs) == clients*each })
	graded := 0
	for _, ex := range exs {
		if ex.RPCMethod != "tools/call" || ex.Key[:len("tools/call:tool-")] != "tools/call:tool-" || ex.Status != 200 || ex.Duration <= 0 || ex.Graded == "" {
			t.Fatalf("exchange recorded as %+v; want its method, tool, status, timing and verdict", ex)
		}
		if ex.Graded == Graded {
			graded++
		}
	}
	if lost := r.proxy.pipe.metrics.lost.Load(); lost != 0 {
		t.Fatalf("%d exchanges lost", lost)
	}
	t.Logf("%d of %d exchanges graded under %d clients (the share is a measurement, not a test: make measure)", graded, len(exs), clients)
}
