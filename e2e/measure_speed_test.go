package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/active"
)

// speedRounds is how many interleaved rounds TestMeasureScanSpeed times: each round runs every
// timed command once (the start-up commands startupRuns times), so a spell of load on a shared
// machine falls on all of them alike instead of on whichever ran then.
const speedRounds = 20

// startupRuns is how many times each start-up command runs per round.
const startupRuns = 5

// sweepRounds is how many interleaved rounds the concurrency sweep times per value.
const sweepRounds = 8

// sweepConcurrency are the --concurrency values the sweep compares; the default is among them.
var sweepConcurrency = []int{1, 2, 4, 8, 16, 32}

// orderSeed seeds the order TestMeasureScanSpeed runs its commands in, so that two runs of the
// measurement run them in the same orders and differ only in what the machine did.
const orderSeed = 17

// roundOrder is the order of n commands in round r: a fresh permutation each round. Rotating a
// fixed list by one each round, as the measurement first did, keeps every command behind the
// same neighbour in every round but one (the scan of the conformant fixture always followed the
// suite's Node process, and the everything-server scan always came one suite run after the
// last), so whatever a command leaves behind fell on the same victim every time.
func roundOrder(n, r int) []int {
	return rand.New(rand.NewPCG(orderSeed, uint64(r))).Perm(n)
}

// speedGoals are issue 17's goals, checked against this run's figures in the fragment.
const (
	goalStartup         = 10 * time.Millisecond
	goalEverythingScan  = 60 * time.Millisecond
	goalSuiteRatio      = 50.0
	goalUnmigratedGrant = 2 * time.Second
)

// timedCommand is one whole process TestMeasureScanSpeed times.
type timedCommand struct {
	name string
	bin  string
	args []string
	// suite marks the official suite, run through RunConformance.
	suite string
}

// TestMeasureScanSpeed times whole processes, as a CI step sees them, interleaved in one run:
// `sentinel probe` and the official suite (Node 22, --requirements 2026-07-28) on the Go SDK
// everything-server, `sentinel probe` on the conformant and unmigrated fixtures (the latter with
// and without the operator's grants) and the broker, and `sentinel version` and `sentinel rules
// list`; then a sweep of --concurrency on the three conformant servers, which is how the default
// was chosen. It writes p50, p95, max and the ratio to the suite, with the machine's load, to
// $SENTINEL_MEASURE_OUT.
func TestMeasureScanSpeed(t *testing.T) {
	out := os.Getenv(EnvMeasureOut)
	if out == "" {
		t.Skip(EnvMeasureOut + " is not set: the measurement runs a few hundred processes and the official suite twenty times, and writes its figures to that file")
	}
	RequireTool(t, EnvNodeBin)
	RequireTool(t, EnvConformance)
	bin := BuildBinary(t, "sentinel")
	broker := BuildBinary(t, "broker")
	everything := StartEverythingServer(t)
	conformant := StartFixture(t, "conformant")
	unmigrated := StartFixture(t, "unmigrated")
	brokerSrv := StartServer(t, broker, "serve", "--http", "127.0.0.1:0", "--dev", "--no-auth", "--db", filepath.Join(t.TempDir(), "broker.db"))

	probe := func(url string, flags ...string) []string {
		return append([]string{"probe", "--endpoint", url, "--format", "json", "--gate", "none", "--timeout", "90s"}, flags...)
	}
	brokerFlags := []string{"--allow-call", "set_metric_policy"}
	cmds := []timedCommand{
		{name: "sentinel probe: Go SDK everything-server", bin: bin, args: probe(everything.URL)},
		{name: "official suite: Go SDK everything-server", suite: everything.URL},
		{name: "sentinel probe: conformant fixture", bin: bin, args: probe(conformant.URL, conformantScanFlags...)},
		{name: "sentinel probe: unmigrated fixture, no grants", bin: bin, args: probe(unmigrated.URL)},
		{name: "sentinel probe: unmigrated fixture, with grants", bin: bin, args: probe(unmigrated.URL, unmigratedScanFlags...)},
		{name: "sentinel probe: broker", bin: bin, args: probe(brokerSrv.URL, brokerFlags...)},
		{name: "sentinel version", bin: bin, args: []string{"version"}},
		{name: "sentinel rules list", bin: bin, args: []string{"rules", "list"}},
	}
	load0 := loadAverage()
	started := time.Now()
	samples := map[string][]time.Duration{}
	cpu := map[string][]time.Duration{}
	for round := range speedRounds {
		// A new order each round, so no command always follows the suite's Node process.
		for _, k := range roundOrder(len(cmds), round) {
			c := cmds[k]
			runs := 1
			if c.suite == "" && len(c.args) > 0 && c.args[0] != "probe" {
				runs = startupRuns
			}
			for range runs {
				wall, used := timeCommand(t, c)
				samples[c.name] = append(samples[c.name], wall)
				if c.suite == "" {
					cpu[c.name] = append(cpu[c.name], used)
				}
			}
		}
	}
	elapsed := time.Since(started)
	load1 := loadAverage()

	sweepTargets := []timedCommand{
		{name: "Go SDK everything-server", bin: bin, args: probe(everything.URL)},
		{name: "conformant fixture", bin: bin, args: probe(conformant.URL, conformantScanFlags...)},
		{name: "broker", bin: bin, args: probe(brokerSrv.URL, brokerFlags...)},
	}
	sweep := map[string][]time.Duration{}
	for round := range sweepRounds {
		for _, k := range roundOrder(len(sweepTargets), round) {
			tg := sweepTargets[k]
			for _, j := range roundOrder(len(sweepConcurrency), speedRounds+round*len(sweepTargets)+k) {
				c := sweepConcurrency[j]
				run := tg
				run.args = append(slices.Clone(tg.args), "--concurrency", strconv.Itoa(c))
				key := fmt.Sprintf("%s\x00%d", tg.name, c)
				wall, _ := timeCommand(t, run)
				sweep[key] = append(sweep[key], wall)
			}
		}
	}
	load2 := loadAverage()

	var b strings.Builder
	fmt.Fprintf(&b, "## Scan speed: whole processes, interleaved\n\n")
	fmt.Fprintf(&b, "Measured %s by `TestMeasureScanSpeed` (e2e/measure_speed_test.go) on this machine (%d CPUs), in %s. Load average (1, 5, 15 min) %s at the start, %s after the timed rounds, %s after the sweep: figures from a loaded machine are slower than a quiet one's, for every command alike.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), numCPU(), elapsed.Round(time.Second), load0, load1, load2)
	fmt.Fprintf(&b, "Method: %d rounds; each round starts every command below as a new process, one after another, in a new order each round (a seeded permutation, the same in every run of the measurement), and times it from start to exit (`sentinel version` and `sentinel rules list` %d times per round). Scans are `sentinel probe --format json --gate none` with the default concurrency, over loopback; the suite is `conformance server --requirements 2026-07-28` under Node 22 (`RunConformance`). Percentiles are nearest-rank. *CPU p50* is the process's user plus system time (for the suite, not measured: it runs under a Node process of the harness): a loaded machine delays a process more than it makes it work harder, so CPU is the steadier figure for start-up.\n\n", speedRounds, startupRuns)
	fmt.Fprintf(&b, "| command | runs | p50 | p95 | max | CPU p50 |\n|---|---|---|---|---|---|\n")
	for _, c := range cmds {
		d := sorted(samples[c.name])
		used := "—"
		if u := cpu[c.name]; len(u) > 0 {
			used = msf(percentile(sorted(u), 50))
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", c.name, len(d), msf(percentile(d, 50)), msf(percentile(d, 95)), msf(d[len(d)-1]), used)
	}
	scan := percentile(sorted(samples[cmds[0].name]), 50)
	suite := percentile(sorted(samples[cmds[1].name]), 50)
	ratio := float64(suite) / float64(scan)
	version := percentile(sorted(samples["sentinel version"]), 50)
	rulesList := percentile(sorted(samples["sentinel rules list"]), 50)
	grants := percentile(sorted(samples["sentinel probe: unmigrated fixture, with grants"]), 50)
	fmt.Fprintf(&b, "\nOn the everything-server the suite's p50 is **%.1f×** sentinel's.\n\n", ratio)
	fmt.Fprintf(&b, "Goals (issue 17), judged on the p50s above:\n\n")
	fmt.Fprintf(&b, "- start-up ≤ %s: `sentinel version` %s (CPU %s), `sentinel rules list` %s (CPU %s) — %s.\n", msf(goalStartup),
		msf(version), msf(percentile(sorted(cpu["sentinel version"]), 50)), msf(rulesList), msf(percentile(sorted(cpu["sentinel rules list"]), 50)),
		met(version <= goalStartup && rulesList <= goalStartup))
	fmt.Fprintf(&b, "- everything-server scan ≤ %s: %s — %s.\n", msf(goalEverythingScan), msf(scan), met(scan <= goalEverythingScan))
	fmt.Fprintf(&b, "- at least %.0f× faster than the suite: %.1f× — %s.\n", goalSuiteRatio, ratio, met(ratio >= goalSuiteRatio))
	fmt.Fprintf(&b, "- unmigrated fixture with grants ≤ %s: %s — %s.\n\n", msf(goalUnmigratedGrant), msf(grants), met(grants <= goalUnmigratedGrant))

	fmt.Fprintf(&b, "### --concurrency sweep\n\n")
	fmt.Fprintf(&b, "Method: %d rounds; each round scans each server once at every value, values and servers in a new order each round (seeded permutations); p50 of the whole process. Each value is scored by its worst p50 relative to the best value's on the same server; the default is the value with the lowest score, or the smallest value within 2%% of that score (fewer requests in flight at once are kinder to the server under test for the same wall-clock).\n\n", sweepRounds)
	fmt.Fprintf(&b, "| server |")
	for _, c := range sweepConcurrency {
		fmt.Fprintf(&b, " %d |", c)
	}
	fmt.Fprintf(&b, "\n|---|%s\n", strings.Repeat("---|", len(sweepConcurrency)))
	for _, tg := range sweepTargets {
		fmt.Fprintf(&b, "| %s |", tg.name)
		for _, c := range sweepConcurrency {
			fmt.Fprintf(&b, " %s |", msf(percentile(sorted(sweep[fmt.Sprintf("%s\x00%d", tg.name, c)]), 50)))
		}
		fmt.Fprintf(&b, "\n")
	}
	fmt.Fprintf(&b, "| worst relative to best |")
	for _, c := range sweepConcurrency {
		fmt.Fprintf(&b, " %.2f× |", concurrencyScore(sweep, sweepTargets, c))
	}
	fmt.Fprintf(&b, "\n\nValue chosen by this run: **%d** (the default is %d).\n", chooseConcurrency(sweep, sweepTargets), active.DefaultConcurrency)
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatalf("writing %s: %v", out, err)
	}
	t.Logf("wrote %s:\n%s", out, b.String())
}

// timeCommand runs c once as a new process and returns how long it took from start to exit and
// the CPU time it used (zero for the suite). A scan that does not exit 0 (gate none), or a suite
// that does not finish, fails the measurement: a figure for a run that did not do the work would
// flatter it.
func timeCommand(t *testing.T, c timedCommand) (wall, cpu time.Duration) {
	t.Helper()
	start := time.Now()
	if c.suite != "" {
		RunConformance(t, c.suite)
		return time.Since(start), 0
	}
	r := RunBinary(t, c.bin, c.args...)
	d := time.Since(start)
	if r.ExitCode != 0 {
		t.Fatalf("%s: exit %d\n%s", c.name, r.ExitCode, tail(r.Stderr, 20))
	}
	return d, r.CPU
}

// concurrencyScore is how far value c falls short of the best swept value at worst: the largest,
// over targets, of c's p50 divided by that target's best p50 (1 for a value that is best on
// every target).
func concurrencyScore(sweep map[string][]time.Duration, targets []timedCommand, c int) float64 {
	score := 0.0
	for _, tg := range targets {
		best := time.Duration(1<<63 - 1)
		for _, v := range sweepConcurrency {
			best = min(best, percentile(sorted(sweep[fmt.Sprintf("%s\x00%d", tg.name, v)]), 50))
		}
		score = max(score, float64(percentile(sorted(sweep[fmt.Sprintf("%s\x00%d", tg.name, c)]), 50))/float64(best))
	}
	return score
}

// chooseConcurrency returns the swept value with the lowest concurrencyScore, preferring the
// smallest value within 2% of it. A value must hold up on every target at once: on a loaded
// machine no value is within a few per cent of the best everywhere, and a rule that demanded that
// would fall back to an arbitrary end of the range.
func chooseConcurrency(sweep map[string][]time.Duration, targets []timedCommand) int {
	scores := make([]float64, len(sweepConcurrency))
	lowest := 0.0
	for i, c := range sweepConcurrency {
		scores[i] = concurrencyScore(sweep, targets, c)
		if i == 0 || scores[i] < lowest {
			lowest = scores[i]
		}
	}
	for i, c := range sweepConcurrency {
		if scores[i] <= lowest*1.02 {
			return c
		}
	}
	return sweepConcurrency[len(sweepConcurrency)-1]
}

func sorted(d []time.Duration) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s
}

// msf formats a duration in milliseconds, with one decimal under a second.
func msf(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

// loadAverage is /proc/loadavg's three figures, or "unknown" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}
