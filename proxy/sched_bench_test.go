package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	rtmetrics "runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
)

// countingStore counts the exchanges the pipeline has written, so that a benchmark can wait
// until everything it sent is graded and stored and charge that work to its requests.
type countingStore struct {
	findings.Store
	stored atomic.Int64
}

func (s *countingStore) Record(ctx context.Context, b findings.Batch) error {
	err := s.Store.Record(ctx, b)
	s.stored.Add(int64(len(b.Exchanges)))
	return err
}

// schedLatencies is the runtime's histogram of how long goroutines waited runnable before they
// ran: the figure a grading worker that holds a processor moves, free of the wall clock's
// request timing. Other processes still move it (a thread the kernel deschedules keeps its
// processor, and what is queued there waits), so compare interleaved runs, several of each.
const schedLatencies = "/sched/latencies:seconds"

func readSched() *rtmetrics.Float64Histogram {
	s := []rtmetrics.Sample{{Name: schedLatencies}}
	rtmetrics.Read(s)
	return s[0].Value.Float64Histogram()
}

// quantile is the upper bound of the bucket holding quantile q of the counts in after minus
// before (the buckets are the runtime's, about 6% wide).
func quantile(before, after *rtmetrics.Float64Histogram, q float64) float64 {
	var total uint64
	for i := range after.Counts {
		total += after.Counts[i] - before.Counts[i]
	}
	if total == 0 {
		return 0
	}
	want := uint64(q * float64(total))
	var seen uint64
	for i := range after.Counts {
		seen += after.Counts[i] - before.Counts[i]
		if seen > want {
			return after.Buckets[i+1]
		}
	}
	return after.Buckets[len(after.Buckets)-1]
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSchedLatency sends b.N requests from 8 clients through, in one process, a plain
// httputil.ReverseProxy, sentinel with grading off (exchanges still recorded) and sentinel
// with grading on, and reports what the wall clock of a loaded machine hides: the p50 and p99
// of goroutine run-queue wait (the runtime's /sched/latencies:seconds over the requests) and
// the process's CPU per request, with everything the requests left to grade and store done
// first (client and upstream run in the same process, equal in every variant). Run it with a
// fixed count to compare (-benchtime 4000x) and repeat: the figures are per request. With grading
// on it also reports the share of exchanges graded (graded-%).
func BenchmarkSchedLatency(b *testing.B) {
	small := []byte(measureCall)
	large := large256Call()
	for _, body := range []struct {
		name string
		b    []byte
	}{{"small", small}, {"256KiB", large}} {
		for _, variant := range []string{"plain", "grading=off", "grading=on"} {
			b.Run(body.name+"/"+variant, func(b *testing.B) { benchSched(b, variant, body.b) })
		}
	}
}

func benchSched(b *testing.B, variant string, body []byte) {
	up := httptest.NewServer(measureUpstream())
	b.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	var h http.Handler
	var cs *countingStore
	var sp *Proxy
	if variant == "plain" {
		h = plainReverseProxy(u)
	} else {
		cs = &countingStore{Store: measureStore(b)}
		var graders []Grader
		if variant == "grading=on" {
			graders = []Grader{Passive()}
		}
		p, err := New(&Options{Routes: []Route{{Prefix: "/", Upstream: u}}, Store: cs, Graders: graders})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = p.Close(context.Background()) })
		h, sp = p, p
	}
	front := httptest.NewServer(h)
	b.Cleanup(front.Close)
	target := front.URL + "/mcp"
	c := measureClient()
	post := func() error {
		resp, err := c.Post(target, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return err
	}
	for range 16 { // connections, and the store's first writes
		if err := post(); err != nil {
			b.Fatal(err)
		}
	}
	waitStored(b, cs, 16)

	sched0, cpu0 := readSched(), cpuNow()
	b.ResetTimer()
	b.SetParallelism(4) // 8 clients on 2 processors
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := post(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	sched1 := readSched()
	waitStored(b, cs, int64(16+b.N))
	cpu := cpuNow() - cpu0
	b.StopTimer()
	b.ReportMetric(quantile(sched0, sched1, .5)*1e6, "sched-p50-µs")
	b.ReportMetric(quantile(sched0, sched1, .99)*1e6, "sched-p99-µs")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/req")
	if variant == "grading=on" {
		// The share of all exchanges (warm-up included) graded: under this load the worker grades
		// only with what CPU traffic leaves, and the rest are recorded without grading.
		m := sp.pipe.metrics
		b.ReportMetric(100*float64(m.graded.Load())/float64(m.exchanges.Load()), "graded-%")
	}
}

// waitStored waits (bounded) until the store has n exchanges; a nil store has nothing to wait for.
func waitStored(b *testing.B, cs *countingStore, n int64) {
	if cs == nil {
		return
	}
	for deadline := time.Now().Add(60 * time.Second); cs.stored.Load() < n; {
		if time.Now().After(deadline) {
			b.Fatalf("the store has %d exchanges after 60 s, want %d", cs.stored.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
