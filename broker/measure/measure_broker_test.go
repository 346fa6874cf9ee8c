package measure

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Cold restarts and calls per restart for the manifest measurement (the figures).
const (
	restarts        = 5
	callsPerRestart = 100
)

// TestMeasureBroker writes the broker's section of MEASUREMENTS.md to $SENTINEL_MEASURE_OUT. It
// runs only under `make measure` (SENTINEL_MEASURE=1): it builds the broker, starts it cold five
// times, and runs the tools/call benchmark.
func TestMeasureBroker(t *testing.T) {
	if os.Getenv("SENTINEL_MEASURE") != "1" {
		t.Skip("set SENTINEL_MEASURE=1 (make measure) to run")
	}
	out := os.Getenv("SENTINEL_MEASURE_OUT")
	if out == "" {
		t.Fatal("SENTINEL_MEASURE_OUT is not set")
	}
	bin := filepath.Join(t.TempDir(), "broker")
	if b, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "../../cmd/broker").CombinedOutput(); err != nil {
		t.Fatalf("building broker: %v\n%s", err, b)
	}
	type runReport struct {
		Manifest ManifestReport `json:"manifest"`
		Formats  FormatReport   `json:"formats"`
	}
	var runs []runReport
	digests := map[string]bool{}
	perRunMax := 0
	for i := range restarts {
		b, err := exec.CommandContext(t.Context(), bin, "manifest", "--calls", fmt.Sprint(callsPerRestart)).Output()
		if err != nil {
			t.Fatalf("restart %d: %v", i+1, err)
		}
		var r runReport
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("restart %d: %v", i+1, err)
		}
		runs = append(runs, r)
		digests[r.Manifest.Digest] = true
		perRunMax = max(perRunMax, r.Manifest.DistinctDigests)
	}
	bench, err := exec.CommandContext(t.Context(), "go", "test", "-run", "^$", "-bench", "BenchmarkToolsCallFlagInjection",
		"-benchmem", "-count", "3", "..").CombinedOutput()
	if err != nil {
		t.Fatalf("benchmark: %v\n%s", err, bench)
	}
	var benchLines []string
	for _, l := range strings.Split(string(bench), "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			benchLines = append(benchLines, l)
		}
	}
	m, f := runs[0].Manifest, runs[0].Formats
	var sb strings.Builder
	fmt.Fprintf(&sb, "### broker\n\n")
	fmt.Fprintf(&sb, "Method: `broker manifest --calls %d` run %d times, each a cold start of the built binary (a dev-mode broker on 127.0.0.1:0, `tools/list` over HTTP with its token); digests are SHA-256 of the JSON-RPC `result` object as served. Tokens are counted with %s. Source: `broker/measure`.\n\n", callsPerRestart, restarts, Tokenizer)
	fmt.Fprintf(&sb, "| figure | value |\n|---|---|\n")
	fmt.Fprintf(&sb, "| distinct tools/list digests within one run (max over runs, goal 1) | %d |\n", perRunMax)
	fmt.Fprintf(&sb, "| distinct digests across %d cold restarts (goal 1) | %d |\n", restarts, len(digests))
	fmt.Fprintf(&sb, "| tools/list result size | %d bytes |\n", m.ResultBytes)
	fmt.Fprintf(&sb, "| manifest (tools array) | %d tokens |\n", m.ManifestTokens)
	fmt.Fprintf(&sb, "| %d sample results, concise | %d tokens |\n", f.Samples, f.ConciseTokens)
	fmt.Fprintf(&sb, "| %d sample results, detailed | %d tokens |\n", f.Samples, f.DetailedTokens)
	fmt.Fprintf(&sb, "| saving of concise over detailed | %.1f %% |\n\n", f.SavingPercent)
	fmt.Fprintf(&sb, "`tools/call flag_injection` through the in-process HTTP handler (guards, JWT, SDK, handler core, eval's deterministic tier, no judge): `go test -run '^$' -bench BenchmarkToolsCallFlagInjection -benchmem -count 3 ./broker`\n\n```\n%s\n```\n", strings.Join(benchLines, "\n"))
	if err := os.WriteFile(out, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if perRunMax != 1 || len(digests) != 1 {
		t.Errorf("manifest is not deterministic: %d per run, %d across restarts", perRunMax, len(digests))
	}
}
