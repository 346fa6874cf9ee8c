package proxy

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
)

// BenchmarkProxiedToolsCall measures one small tools/call through sentinel proxy with grading
// on, end to end over loopback, one client at a time. ns/op is the wall clock of the request
// path (client, sentinel and upstream in this process); the grading worker runs meanwhile on
// its niced thread and takes some of it. cpu-µs/op is the process's CPU per request with
// everything the requests left to grade and store done first: compare it with
// BenchmarkBareReverseProxyToolsCall's, at -cpu 1 (the client and upstream cost the same in
// both).
func BenchmarkProxiedToolsCall(b *testing.B) {
	_, sentinel, _, p := measureTargets(b)
	benchCalls(b, sentinel, []byte(measureCall), p)
}

// BenchmarkBareReverseProxyToolsCall is the baseline: the same call through
// httputil.ReverseProxy.
func BenchmarkBareReverseProxyToolsCall(b *testing.B) {
	_, _, bare, _ := measureTargets(b)
	benchCalls(b, bare, []byte(measureCall), nil)
}

// BenchmarkProxiedToolsCall256KiB is BenchmarkProxiedToolsCall for the measurement's 256 KiB
// request (graded, and stored redacted and capped).
func BenchmarkProxiedToolsCall256KiB(b *testing.B) {
	_, sentinel, _, p := measureTargets(b)
	benchCalls(b, sentinel, large256Call(), p)
}

// BenchmarkBareReverseProxyToolsCall256KiB is its baseline through httputil.ReverseProxy.
func BenchmarkBareReverseProxyToolsCall256KiB(b *testing.B) {
	_, _, bare, _ := measureTargets(b)
	benchCalls(b, bare, large256Call(), nil)
}

// benchCalls posts body to url b.N times from one client. With a proxy p, it then waits
// (bounded) until p has recorded every exchange, so that cpu-µs/op charges the grading and
// storing to the requests.
func benchCalls(b *testing.B, url string, body []byte, p *Proxy) {
	c := measureClient()
	b.SetBytes(int64(len(body)))
	benchRecorded(b, p, func() error { return postOnce(c, url, body) })
}

// benchRecorded runs op b.N times after four warm-up runs (the connections, and the store's
// first writes), waits (bounded) until p has recorded every exchange, and reports the process's
// CPU per op (cpu-µs/op), which it returns.
func benchRecorded(b *testing.B, p *Proxy, op func() error) float64 {
	for range 4 {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	waitRecorded(b, p, 4)
	b.ReportAllocs()
	cpu0 := cpuNow()
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	waitRecorded(b, p, int64(4+b.N))
	cpu := float64((cpuNow() - cpu0).Nanoseconds()) / 1e3 / float64(b.N)
	b.ReportMetric(cpu, "cpu-µs/op")
	return cpu
}

// waitRecorded waits (bounded) until p's pipeline has taken n exchanges and its queue is
// empty, and then for the round in hand to be written; a nil p has nothing to wait for.
func waitRecorded(b *testing.B, p *Proxy, n int64) {
	if p == nil {
		return
	}
	for deadline := time.Now().Add(60 * time.Second); p.pipe.metrics.exchanges.Load() < n || p.pipe.metrics.queued.Load() > 0 || p.pipe.budget.Used() > 0; {
		if time.Now().After(deadline) {
			b.Fatalf("%d exchanges recorded after 60 s, want %d", p.pipe.metrics.exchanges.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkGradeOneExchange measures the off-path work per exchange when the queue holds only
// one: parse, passive.Run, and writing the exchange and its findings to SQLite in a transaction
// of its own (a busy proxy writes up to 256 per transaction).
func BenchmarkGradeOneExchange(b *testing.B) {
	_, _, _, p := measureTargets(b)
	c := &Capture{ID: "bench", Start: time.Now(), End: time.Now(), Target: "http://127.0.0.1/mcp", Method: "POST",
		URL: "http://127.0.0.1/mcp", RequestHeader: http.Header{"Content-Type": {"application/json"}},
		RequestBody: []byte(measureCall), Status: 200, ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody: []byte(measureResult)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		one := *c // gradeBatch releases the bodies of what it stored
		one.ID = "bench-" + strconv.Itoa(i)
		p.pipe.gradeBatch([]*Capture{&one}, false)
	}
}

// BenchmarkGradeOnly is the CPU cost of grading one small exchange without storing it: the
// parse, passive.Run and building the record and findings.
func BenchmarkGradeOnly(b *testing.B) {
	_, _, _, p := measureTargets(b)
	c := &Capture{ID: "bench", Start: time.Now(), End: time.Now(), Target: "http://127.0.0.1/mcp", Method: "POST",
		URL: "http://127.0.0.1/mcp", RequestHeader: http.Header{"Content-Type": {"application/json"}},
		RequestBody: []byte(measureCall), Status: 200, ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody: []byte(measureResult)}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.pipe.grade(c, false)
	}
}

// BenchmarkPassiveRun isolates the checks from storage.
func BenchmarkPassiveRun(b *testing.B) {
	c := &Capture{ID: "bench", Target: "http://127.0.0.1/mcp", Method: "POST", URL: "http://127.0.0.1/mcp",
		RequestHeader: http.Header{"Content-Type": {"application/json"}}, RequestBody: []byte(measureCall), Status: 200,
		ResponseHeader: http.Header{"Content-Type": {"application/json"}}, ResponseBody: []byte(measureResult)}
	h := passive.NewHistory()
	b.ReportAllocs()
	for b.Loop() {
		_ = passive.Run(toExchange(c, DefaultMaxBody), h)
	}
}

// BenchmarkProxiedToolsCallParallel loads sentinel proxy with 64 concurrent clients (grading on).
func BenchmarkProxiedToolsCallParallel(b *testing.B) {
	_, sentinel, _, _ := measureTargets(b)
	c := measureClient()
	b.ReportAllocs()
	b.SetParallelism(32)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := postOnce(c, sentinel, []byte(measureCall)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// large256Call is the 256 KiB tools/call of the measurement's 256 KiB row: one long string
// argument.
func large256Call() []byte {
	b := bytes.Repeat([]byte("x"), 256<<10)
	copy(b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`)
	copy(b[len(b)-4:], `"}}}`)
	return b
}

// BenchmarkGradeOnly256KiB is BenchmarkGradeOnly for a 256 KiB request: what the measurement's
// 256 KiB row asks of grading per exchange.
func BenchmarkGradeOnly256KiB(b *testing.B) {
	_, _, _, p := measureTargets(b)
	c := &Capture{ID: "bench", Start: time.Now(), End: time.Now(), Target: "http://127.0.0.1/mcp", Method: "POST",
		URL: "http://127.0.0.1/mcp", RequestHeader: http.Header{"Content-Type": {"application/json"}},
		RequestBody: large256Call(), Status: 200, ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody: []byte(measureResult)}
	b.ReportAllocs()
	b.SetBytes(int64(len(c.RequestBody)))
	for b.Loop() {
		_, _ = p.pipe.grade(c, false)
	}
}

// BenchmarkGradeOneExchange256KiB is BenchmarkGradeOneExchange for a 256 KiB request, stored
// (redacted and capped) in SQLite.
func BenchmarkGradeOneExchange256KiB(b *testing.B) {
	_, _, _, p := measureTargets(b)
	c := &Capture{ID: "bench", Start: time.Now(), End: time.Now(), Target: "http://127.0.0.1/mcp", Method: "POST",
		URL: "http://127.0.0.1/mcp", RequestHeader: http.Header{"Content-Type": {"application/json"}},
		RequestBody: large256Call(), Status: 200, ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody: []byte(measureResult)}
	b.ReportAllocs()
	b.SetBytes(int64(len(c.RequestBody)))
	i := 0
	for b.Loop() {
		i++
		one := *c
		one.ID = "bench-" + strconv.Itoa(i)
		p.pipe.gradeBatch([]*Capture{&one}, false)
	}
}

// BenchmarkGradeAndStoreBatched is the per-exchange cost of grading and storing when a round
// carries 64 exchanges (what a busy proxy's worker writes per commit, lingering for more): the
// commit is shared, the rows and the folded findings are not.
func BenchmarkGradeAndStoreBatched(b *testing.B) {
	_, _, _, p := measureTargets(b)
	c := &Capture{ID: "bench", Start: time.Now(), End: time.Now(), Target: "http://127.0.0.1/mcp", Method: "POST",
		URL: "http://127.0.0.1/mcp", RequestHeader: http.Header{"Content-Type": {"application/json"}},
		RequestBody: []byte(measureCall), Status: 200, ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody: []byte(measureResult)}
	const per = 64
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		batch := make([]*Capture, per)
		for k := range batch {
			i++
			one := *c
			one.ID = "bench-" + strconv.Itoa(i)
			batch[k] = &one
		}
		p.pipe.gradeBatch(batch, false)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*per), "ns/exchange")
}
