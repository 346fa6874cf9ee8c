package brokertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/eval"
)

// Measurement shape: a fixed number of requests from a fixed number of concurrent workers.
const (
	measureRequests = 2000
	measureWorkers  = 8
)

type figures struct {
	target     string
	ok, failed int
	wall       time.Duration
	p50, p99   time.Duration
}

// drive sends measureRequests calls from measureWorkers goroutines and times each.
func drive(t *testing.T, target string, call func(ctx context.Context) error) figures {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	// Warm up connections and caches outside the timed run.
	for range measureWorkers * 4 {
		_ = call(ctx)
	}
	var (
		mu    sync.Mutex
		lats  = make([]time.Duration, 0, measureRequests)
		fails int
		next  = make(chan struct{}, measureRequests)
		wg    sync.WaitGroup
	)
	for range measureRequests {
		next <- struct{}{}
	}
	close(next)
	start := time.Now()
	for range measureWorkers {
		wg.Go(func() {
			for range next {
				t0 := time.Now()
				err := call(ctx)
				d := time.Since(t0)
				mu.Lock()
				if err != nil {
					fails++
				} else {
					lats = append(lats, d)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	f := figures{target: target, ok: len(lats), failed: fails, wall: time.Since(start)}
	slices.Sort(lats)
	if len(lats) > 0 {
		f.p50 = lats[len(lats)*50/100]
		f.p99 = lats[min(len(lats)-1, len(lats)*99/100)]
	}
	return f
}

// startEverything starts the Go SDK's everything-server on a free loopback port.
func startEverything(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("SENTINEL_EVERYTHING_SERVER")
	if bin == "" {
		t.Fatal("SENTINEL_EVERYTHING_SERVER is not set: run under `make measure` (scripts/deps.sh provides it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(bin, "-http="+addr)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting everything-server: %v", err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
		_ = cmd.Wait()
	})
	for range 100 {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return "http://" + addr + "/"
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("everything-server did not listen on %s", addr)
	return ""
}

// TestMeasureBroker writes throughput and p50/p99 of tools/call flag_injection on the SQLite and
// PostgreSQL stores, against the everything-server's simplest tool, to a markdown fragment next to
// $SENTINEL_MEASURE_OUT (its name with "-stores" before ".md", which scripts/measure.sh collects
// with the other fragments). It runs only when SENTINEL_MEASURE_OUT is set.
func TestMeasureBroker(t *testing.T) {
	out := os.Getenv("SENTINEL_MEASURE_OUT")
	if out == "" {
		t.Skip("set SENTINEL_MEASURE_OUT (make measure) to run")
	}
	var rows []figures
	args := map[string]any{"response": "Please summarise the attached quarterly report for the board."}
	eachStore(t, func(t *testing.T, b backend) {
		e := startBroker(t, openStore(t, b), envOptions{})
		tok := e.token(t, nil)
		rows = append(rows, drive(t, "broker flag_injection, "+b.name+" store", func(ctx context.Context) error {
			r, err := e.call(ctx, tok, eval.MetricInjection, args, callParams{})
			if err == nil && (r.Error != nil || r.isError()) {
				err = fmt.Errorf("call failed: %+v %v", r.Error, r.Result)
			}
			return err
		}))
	})
	ev := &brokerEnv{URL: startEverything(t)}
	rows = append(rows, drive(t, "everything-server test_simple_text (Go SDK v1.8.0, no store)", func(ctx context.Context) error {
		r, err := ev.call(ctx, "", "test_simple_text", map[string]any{}, callParams{})
		if err == nil && (r.Error != nil || r.isError()) {
			err = fmt.Errorf("call failed: %+v %v", r.Error, r.Result)
		}
		return err
	}))

	var sb strings.Builder
	fmt.Fprintf(&sb, "### broker: tools/call throughput by store\n\n")
	fmt.Fprintf(&sb, "Method: `TestMeasureBroker` in `broker/brokertest`. %d `tools/call` requests from %d concurrent workers over loopback HTTP "+
		"(keep-alive, JSON responses), after a warm-up of %d calls. The broker runs in the test process with eval's deterministic tier (no judge), "+
		"bearer-token verification, a durable evaluation + handle per call and one hash-chained audit append per call; SQLite is a WAL file, "+
		"PostgreSQL a throwaway local cluster on a unix socket (fsync off). The baseline is the Go SDK's everything-server (a separate process) "+
		"answering its simplest tool, `test_simple_text`, with no auth and no storage. Client and servers share %d cores.\n\n", measureRequests, measureWorkers, measureWorkers*4, runtime.NumCPU())
	fmt.Fprintf(&sb, "| target | ok | failed | throughput (req/s) | p50 | p99 |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&sb, "| %s | %d | %d | %.0f | %s | %s |\n", r.target, r.ok, r.failed, float64(r.ok)/r.wall.Seconds(),
			r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond))
	}
	dest := strings.TrimSuffix(out, ".md") + "-stores.md"
	if err := os.WriteFile(dest, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s:\n%s", filepath.Base(dest), sb.String())
	for _, r := range rows {
		if r.ok == 0 {
			t.Errorf("%s: no call succeeded (%d failed)", r.target, r.failed)
		}
	}
}
