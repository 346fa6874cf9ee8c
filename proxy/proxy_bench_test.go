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
// on, end to end over loopback.
func BenchmarkProxiedToolsCall(b *testing.B) {
	_, sentinel, _, _ := measureTargets(b)
	benchCalls(b, sentinel)
}

// BenchmarkBareReverseProxyToolsCall is the baseline: the same call through
// httputil.ReverseProxy.
func BenchmarkBareReverseProxyToolsCall(b *testing.B) {
	_, _, bare, _ := measureTargets(b)
	benchCalls(b, bare)
}

func benchCalls(b *testing.B, url string) {
	c := measureClient()
	b.ReportAllocs()
	for b.Loop() {
		if err := callOnce(c, url); err != nil {
			b.Fatal(err)
		}
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
			if err := callOnce(c, sentinel); err != nil {
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
