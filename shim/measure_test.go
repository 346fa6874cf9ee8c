package shim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestMeasureShimLatency measures what the shim adds to one request/response round trip over
// stdio, against the same server on a direct pipe. It runs only when SENTINEL_MEASURE_OUT names
// a file (make measure sets it) and writes a markdown fragment there; it asserts nothing about
// the figures.
func TestMeasureShimLatency(t *testing.T) {
	out := os.Getenv("SENTINEL_MEASURE_OUT")
	if out == "" || os.Getenv("SENTINEL_MEASURE") == "" {
		t.Skip("set SENTINEL_MEASURE=1 SENTINEL_MEASURE_OUT=<file> (make measure does) to measure the shim")
	}
	const rounds, perRound = 5, 400
	sizes := []struct {
		name string
		pad  int
	}{{"small tools/call (~150 B)", 0}, {"64 KiB request", 64 << 10}, {"1 MiB request", 1 << 20}}
	paths := []struct{ name, mode, env string }{
		{"direct pipe", "echo", ""},
		{"through the shim", "shim", ""},
		{"through the shim, no Observer", "shim", "SENTINEL_SHIM_NO_OBSERVER=1"},
	}

	var b strings.Builder
	fmt.Fprintf(&b, "## stdio shim latency (%s/%s, GOMAXPROCS=%d)\n\n", runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "Method: one client process writes a `tools/call` line and waits for the reply line, %d rounds of %d sequential calls per path and size, paths interleaved. The server is a small echo server (a child process); \"through the shim\" puts `shim.Run` in its own process between the client and the server, on real pipes both sides, grading every line as `sentinel shim -- …` does (the proxy's stdio front end and pipeline, the passive checks, a SQLite store); \"no Observer\" frames lines but decodes and grades nothing, to tell the cost of the copy from the cost of grading (which runs off the copy path, but on the same two CPUs). Figures are round-trip latency per message; the shim's cost is paid twice per round trip (request and reply).\n\n", rounds, perRound)
	fmt.Fprintf(&b, "| message | path | p50 | p99 |\n|---|---|---|---|\n")
	for _, sz := range sizes {
		n := perRound
		if sz.pad >= 1<<20 {
			n = perRound / 8
		}
		all := make([][]time.Duration, len(paths))
		for r := 0; r < rounds; r++ {
			for i, p := range paths {
				ds, err := measurePath(t, p.mode, p.env, sz.pad, n)
				if err != nil {
					t.Fatalf("%s, %s: %v", p.name, sz.name, err)
				}
				all[i] = append(all[i], ds...)
			}
		}
		var p50s []time.Duration
		for i, p := range paths {
			p50, p99 := pct(all[i], 0.50), pct(all[i], 0.99)
			p50s = append(p50s, p50)
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", sz.name, p.name, p50.Round(time.Microsecond), p99.Round(time.Microsecond))
		}
		fmt.Fprintf(&b, "| %s | **added by the shim** (p50) | **%s** | |\n", sz.name, (p50s[1] - p50s[0]).Round(time.Microsecond))
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
}

// measurePath starts the test binary in mode (the echo server, or the shim in front of it),
// sends n calls one after another and returns each round trip.
func measurePath(t *testing.T, mode, env string, pad, n int) ([]time.Duration, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	if env != "" {
		cmd.Env = append(cmd.Env, env)
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	r := bufio.NewReaderSize(outPipe, 1<<20)
	padding := strings.Repeat("x", pad)
	ds := make([]time.Duration, 0, n)
	for i := 1; i <= n; i++ {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello%s"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`+"\n", i, padding)
		start := time.Now()
		if _, err := io.WriteString(in, msg); err != nil {
			return nil, err
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("reading reply %d: %w", i, err)
		}
		ds = append(ds, time.Since(start))
		if !bytes.Contains(line, []byte(fmt.Sprintf(`"id":%d,`, i))) {
			return nil, fmt.Errorf("reply %d is %q", i, line)
		}
	}
	return ds, nil
}

func pct(ds []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[int(q*float64(len(s)-1))]
}
