package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-sentinel/sentinel/report"
)

// stabilityScans is how many scans of each conformant server must give the same verdicts.
const stabilityScans = 10

// verdictVector is a scan's status per rule, one "rule=status" per line in rule order: two
// scans that settle anything differently differ here.
func verdictVector(res *report.Result) string {
	lines := make([]string, 0, len(res.Rules))
	for _, rr := range res.Rules {
		lines = append(lines, rr.Rule.ID+"="+string(rr.Status))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// vectorDiff names the rules whose status differs between two vectors.
func vectorDiff(a, b string) []string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := range min(len(as), len(bs)) {
		if as[i] != bs[i] {
			out = append(out, fmt.Sprintf("%s became %s", as[i], bs[i]))
		}
	}
	if len(as) != len(bs) {
		out = append(out, fmt.Sprintf("%d rules became %d", len(as), len(bs)))
	}
	return out
}

// TestVerdictsAreStable: ten scans of each conformant server (the conformant fixture, the broker,
// the Go SDK everything-server), and of the unmigrated fixture, give identical verdict vectors. A verdict that flips between
// identical scans (validate-tool-inputs did, because the probe took whichever tool the server
// listed first) is a false verdict half the time. Each server's scans run one after the other
// (two scans at once would be a different test); the three servers are scanned side by side.
func TestVerdictsAreStable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs thirty scans of three servers; skipped under -short")
	}
	broker := BuildBinary(t, "broker")
	targets := []struct {
		name     string
		url      string
		flags    []string
		parallel int
	}{
		{"conformant fixture", StartFixture(t, "conformant").URL, conformantScanFlags, 1},
		{"broker", StartServer(t, broker, "serve", "--http", "127.0.0.1:0", "--dev", "--no-auth", "--db", filepath.Join(t.TempDir(), "broker.db")).URL,
			[]string{"--allow-call", "set_metric_policy"}, 1},
		{"Go SDK everything-server", StartEverythingServer(t).URL, nil, 1},
		// Not conformant, but the server the flip was seen on: it lists its tools in map order,
		// and each scan runs in its own session, so its scans (10 s each) run five at a time.
		{"unmigrated fixture", StartFixture(t, "unmigrated").URL, unmigratedScanFlags, 5},
	}
	var wg sync.WaitGroup
	for _, tg := range targets {
		vectors := make([]string, stabilityScans)
		sem := make(chan struct{}, tg.parallel)
		for i := range stabilityScans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				code, res := scanJSON(t, tg.url, tg.flags...)
				if code == 2 || res.Incomplete != nil || res.CouldNotRun != nil {
					t.Errorf("%s scan %d did not finish (exit %d): incomplete %v, could not run %v", tg.name, i+1, code, res.Incomplete, res.CouldNotRun)
					return
				}
				vectors[i] = verdictVector(res)
			}()
		}
		defer func() {
			for i := 1; i < stabilityScans; i++ {
				if vectors[i] != "" && vectors[0] != "" && vectors[i] != vectors[0] {
					t.Errorf("%s scan %d differs from scan 1: %v", tg.name, i+1, vectorDiff(vectors[0], vectors[i]))
				}
			}
		}()
	}
	wg.Wait()
}
