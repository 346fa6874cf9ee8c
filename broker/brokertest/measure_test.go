package brokertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/eval"
)

// Measurement shape: a fixed number of requests from 64 concurrent clients, the load §3 of the
// hardening issue sets the goal at.
const (
	measureRequests = 6400
	measureWorkers  = 64
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
	args := map[string]any{"response": "Please summarise the attached quarterly report for the board."}
	ev := &brokerEnv{URL: startEverything(t)}
	baseline := func(label string) figures {
		return drive(t, "everything-server test_simple_text (Go SDK v1.8.0, no auth, no store)"+label, func(ctx context.Context) error {
			r, err := ev.leanCall(ctx, "", "test_simple_text", map[string]any{})
			if err == nil && (r.Error != nil || r.Result.IsError) {
				err = fmt.Errorf("call failed: %+v %+v", r.Error, r.Result)
			}
			return err
		})
	}
	// The baseline runs before and after the broker, and the ratios use the mean of the two, so a
	// shared machine's load drifting during the run does not favour either side.
	rows := []figures{baseline(", before")}
	eachStore(t, func(t *testing.T, b backend) {
		e := startBroker(t, openStore(t, b), envOptions{})
		tok := e.token(t, nil)
		stop := profile(t, b.name)
		rows = append(rows, drive(t, "broker flag_injection, "+b.name+" store", func(ctx context.Context) error {
			r, err := e.leanCall(ctx, tok, eval.MetricInjection, args)
			if err == nil && (r.Error != nil || r.Result.IsError || r.Result.StructuredContent.Handle == "") {
				err = fmt.Errorf("call failed: %+v %+v", r.Error, r.Result)
			}
			return err
		}))
		stop()
		// Every acknowledged call left its evaluation, handle and audit row: count the rows.
		if rep, err := store.VerifyChain(ctxT(t), e.Store, b.keys(), nil); err != nil || rep.Break != nil || rep.Entries < int64(measureRequests) {
			t.Errorf("%s: audit chain after the run: %+v, %v; want at least %d signed entries", b.name, rep, err, measureRequests)
		}
	})
	rows = append(rows, baseline(", after"))
	base := (rps(rows[0]) + rps(rows[len(rows)-1])) / 2

	var sb strings.Builder
	fmt.Fprintf(&sb, "### broker: tools/call throughput by store\n\n")
	fmt.Fprintf(&sb, "Method: `TestMeasureBroker` in `broker/brokertest`. %d `tools/call` requests from %d concurrent clients over loopback HTTP "+
		"(keep-alive, JSON responses), after a warm-up of %d calls, per target, all in one run. The broker runs in the test process with eval's "+
		"deterministic tier (no judge) and does per call: bearer-token verification, admission, the evaluation, and one transaction holding the "+
		"stored evaluation, its handle and its signed, hash-chained audit row (group commit: acknowledged only after the commit). SQLite is a WAL "+
		"file (synchronous=NORMAL), PostgreSQL a throwaway local cluster on a unix socket (fsync off). The baseline is the Go SDK's "+
		"everything-server (a separate process) answering its simplest tool, `test_simple_text`, with no auth and no storage, measured before "+
		"and after the broker; ratios are to the mean of the two. Client and servers share %d cores.\n\n",
		measureRequests, measureWorkers, measureWorkers*4, runtime.NumCPU())
	fmt.Fprintf(&sb, "| target | ok | failed | throughput (req/s) | × everything-server | p50 | p99 |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&sb, "| %s | %d | %d | %.0f | %.2f | %s | %s |\n", r.target, r.ok, r.failed, rps(r), rps(r)/base,
			r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond))
	}
	fmt.Fprintf(&sb, "\nGoal (issue 13 §3): at least 0.50× on SQLite and 0.35× on PostgreSQL.\n")
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

func rps(f figures) float64 { return float64(f.ok) / f.wall.Seconds() }

// profile writes a CPU profile of the broker's run to $SENTINEL_MEASURE_PROFILE/broker-NAME.pprof
// when that is set (the test process is the broker's process), so an optimisation starts from one.
func profile(t *testing.T, name string) (stop func()) {
	dir := os.Getenv("SENTINEL_MEASURE_PROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, "broker-"+name+".pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }
}

// leanReply is what the measuring client reads of a reply: enough to know the call succeeded,
// decoded into a struct so the client's own cost stays small and alike for every target.
type leanReply struct {
	Error  *rpcError `json:"error"`
	Result struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Handle string `json:"handle"`
		} `json:"structuredContent"`
	} `json:"result"`
}

// leanCall is call for the measurement: the same request, a lighter read of the reply.
func (e *brokerEnv) leanCall(ctx context.Context, token, tool string, args map[string]any) (leanReply, error) {
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    protocolVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": e.ids.Add(1), "method": "tools/call", "params": params})
	if err != nil {
		return leanReply{}, err
	}
	raw, err := postRaw(ctx, e.URL, token, "tools/call", tool, body)
	if err != nil {
		return leanReply{}, err
	}
	if i := bytes.Index(raw, []byte("\ndata: ")); i >= 0 || bytes.HasPrefix(raw, []byte("data: ")) {
		raw = raw[bytes.Index(raw, []byte("data: "))+len("data: "):] // an SSE reply: its one event
		if j := bytes.IndexByte(raw, '\n'); j >= 0 {
			raw = raw[:j]
		}
	}
	var r leanReply
	if err := json.Unmarshal(raw, &r); err != nil {
		return leanReply{}, fmt.Errorf("decoding reply: %w: %.200s", err, raw)
	}
	return r, nil
}
