package findings

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// BenchmarkRecordBatch writes what one grading round of 64 small exchanges writes to SQLite: the
// exchanges (headers stripped, bodies redacted) and two findings each.
func BenchmarkRecordBatch(b *testing.B) {
	s := openBenchStore(b)
	hdr := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer x"}}
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}]}}`)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		var batch Batch
		for range 64 {
			n++
			id := strconv.Itoa(n)
			batch.Exchanges = append(batch.Exchanges, Exchange{ID: id, Target: "http://t/mcp", Start: time.Now(),
				RequestHeader: hdr, RequestBody: body, ResponseHeader: hdr, ResponseBody: body, Graded: "graded"})
			for _, r := range []string{"MCP/2026-07-28/MUST/a", "MCP/2026-07-28/SHOULD/b"} {
				batch.Findings = append(batch.Findings, Finding{Target: "http://t/mcp", RuleID: r, Key: "tools/call:x",
					Status: rules.Fail, Observed: "seen", ExchangeID: id, FirstSeen: time.Now()})
			}
		}
		if err := s.Record(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedactorPayloadClean is the common case: a payload that names no secret.
func BenchmarkRedactorPayloadClean(b *testing.B) {
	r := NewRedactor(nil)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Payload(body)
	}
}

// BenchmarkRecordBatchLargeBodies writes what one grading round of 64 exchanges with 256 KiB
// request bodies writes, at the default stored-body cap and at smaller ones: the page writes to
// the WAL and the checkpoints that copy them into the database are most of it. us/row is the
// time of one row's insert, the work a grading worker cannot yield in the middle of; cpu-us/row
// is the process's CPU per row, steadier on a shared machine. Short runs (-benchtime 100x) include
// SQLite's page cache filling with fresh pages; -benchtime 400x is closer to a long-running proxy.
func BenchmarkRecordBatchLargeBodies(b *testing.B) {
	for _, max := range []int{64 << 10, 16 << 10, 8 << 10} {
		b.Run(fmt.Sprintf("store=%dKiB", max>>10), func(b *testing.B) { benchRecordLarge(b, max) })
	}
}

// BenchmarkRecordBatchLargeBodyKinds is BenchmarkRecordBatchLargeBodies at the default cap for
// 256 KiB requests of three kinds, because stored bodies are compressed (body_coding.go) and what
// that saves depends on the bytes: one repeated byte (the measurement's 256 KiB row; s2 makes
// almost nothing of it), JSON text (about a quarter) and base64 of random bytes (incompressible
// to s2: stored as it is, after a try).
func BenchmarkRecordBatchLargeBodyKinds(b *testing.B) {
	noise := make([]byte, 192<<10)
	_, _ = rand.Read(noise)
	var text bytes.Buffer
	for i := 0; text.Len() < 256<<10; i++ {
		fmt.Fprintf(&text, `{"type":"text","text":"row %d of a tool's result: %s"},`, i, strings.Repeat("words and numbers ", i%7+1))
	}
	for _, k := range []struct {
		name string
		body []byte
	}{
		{"repeated", bytes.Repeat([]byte("x"), 256<<10)},
		{"json", text.Bytes()[:256<<10]},
		{"base64", []byte(base64.StdEncoding.EncodeToString(noise))},
	} {
		b.Run("body="+k.name, func(b *testing.B) { benchRecordBody(b, DefaultMaxStoredBody, k.body) })
	}
}

func benchRecordLarge(b *testing.B, max int) {
	big := make([]byte, 256<<10)
	for i := range big {
		big[i] = 'x'
	}
	benchRecordBody(b, max, big)
}

// benchRecordBody records rounds of 64 exchanges whose requests are big (its start overwritten
// with a tools/call's) and whose responses are small.
func benchRecordBody(b *testing.B, max int, big []byte) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"), &Options{MaxStoredBody: max})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	hdr := http.Header{"Content-Type": {"application/json"}}
	big = bytes.Clone(big)
	copy(big, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`)
	small := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	n := 0
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		var batch Batch
		for range 64 {
			n++
			batch.Exchanges = append(batch.Exchanges, Exchange{ID: strconv.Itoa(n), Target: "http://t/mcp", Start: time.Now(),
				RequestHeader: hdr, RequestBody: big, ResponseHeader: hdr, ResponseBody: small, Graded: "graded"})
		}
		if err := s.Record(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(64 * max))
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*64), "us/row")
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N*64), "cpu-us/row")
}

// processCPU is the CPU time (user and system) the process has used so far: on a shared machine a
// row's CPU is steadier than its wall time, and the system calls SQLite makes are most of it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// openBenchStore opens a fresh SQLite store in the benchmark's temporary directory, closed when
// the benchmark ends.
func openBenchStore(b *testing.B) Store {
	b.Helper()
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}
