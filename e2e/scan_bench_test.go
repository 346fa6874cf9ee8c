//go:build unix

package e2e

import (
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/report"
)

// BenchmarkScanEverythingServer is a whole scan in process, discovery to the JSON report
// `sentinel probe --format json` writes, of the Go SDK everything-server (a separate process, on
// loopback): the scan's own work without the process start-up TestMeasureScanSpeed also times.
// Besides ns/op (wall, which a loaded machine stretches) it reports cpu-ms/op, this process's
// user plus system time per scan, the steadier figure for before/after comparisons, and (on
// Linux) srv-cpu-ms/op, the server's: on a 2-core machine the two together bound the wall time
// from below (their sum over two), and the server's half is set by how many requests a scan
// sends (about 0.5–1 ms of its CPU each), not by how they are scheduled. Caches that
// outlive one scan (the passive memo, compiled regexps) are warm after the first iteration, as
// they are not in a fresh `sentinel probe`: compare like with like.
func BenchmarkScanEverythingServer(b *testing.B) {
	srv := StartEverythingServer(b)
	rd, err := report.New(report.FormatJSON, &report.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := processCPU(b)
	srv0, srvOK := childCPU(srv.PID)
	for b.Loop() {
		out, err := active.Scan(b.Context(), active.Options{Endpoint: srv.URL, Timeout: 90 * time.Second})
		if err != nil || out.Result.Era != active.EraModern || out.Result.Incomplete != nil {
			b.Fatalf("scan: %v", err)
		}
		if err := rd.Render(io.Discard, out.Result); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	if srv1, ok := childCPU(srv.PID); ok && srvOK {
		b.ReportMetric(float64((srv1-srv0).Microseconds())/1000/float64(b.N), "srv-cpu-ms/op")
	}
}

// processCPU is this process's user plus system time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
