package e2e

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// EnvMutants selects the mutants TestMutationHarness scans: a comma-separated list of names
// (`fixture mutants` lists them); unset or "all" scans every one, "none" only the baseline.
const EnvMutants = "SENTINEL_MUTANTS"

// baselineScans is how many times the unmutated fixture is scanned: it must pass --gate should
// every time, so one flaky verdict anywhere in the scanner fails the harness.
const baselineScans = 20

// mutantScanFlags are the scan flags of the harness: the conformant fixture's list-changing tools
// may be called, and every failure counts (--gate should).
var mutantScanFlags = append([]string{"--gate", "should"}, conformantScanFlags...)

// mutant is one line of `fixture mutants`.
type mutant struct {
	name, rule string
	also       []string
	what       string
}

// fixtureMutants reads the mutants from the fixture binary, the way the harness gets its
// expectations from the fixture itself and never from the scanner.
func fixtureMutants(t testing.TB) []mutant {
	t.Helper()
	res := RunBinary(t, BuildBinary(t, "fixture"), "mutants")
	if res.ExitCode != 0 {
		t.Fatalf("fixture mutants: exit %d: %s", res.ExitCode, res.Stderr)
	}
	var out []mutant
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("fixture mutants: malformed line %q", line)
		}
		m := mutant{name: f[0], rule: f[1], what: f[3]}
		if f[2] != "-" {
			m.also = strings.Split(f[2], ",")
		}
		out = append(out, m)
	}
	return out
}

// selectedMutants applies EnvMutants.
func selectedMutants(t *testing.T, all []mutant) []mutant {
	sel := os.Getenv(EnvMutants)
	switch sel {
	case "", "all":
		return all
	case "none":
		return nil
	}
	var out []mutant
	for _, name := range strings.Split(sel, ",") {
		i := slices.IndexFunc(all, func(m mutant) bool { return m.name == strings.TrimSpace(name) })
		if i < 0 {
			t.Fatalf("%s names %q, which `fixture mutants` does not list", EnvMutants, name)
		}
		out = append(out, all[i])
	}
	return out
}

// mutantResult is what one scan of one mutant showed, for the assertions and the measurement.
type mutantResult struct {
	m        mutant
	code     int
	failed   []string
	duration time.Duration
}

// TestMutationHarness is the proof that the scanner's verdicts are right in both directions. The
// conformant fixture without its deprecated suite tools is scanned baselineScans times with
// --gate should and must pass every time with no failure at all; then every mutant (each a
// switch that breaks exactly one rule the fixture meets) is served and scanned once, and the scan
// must fail the gate naming that rule, and no rule but it and the ones its one behaviour also
// breaks. A mutant the scan misses is a blind spot; an extra failure is a false verdict.
func TestMutationHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the fixture once per mutant and scans each; skipped under -short")
	}
	all := fixtureMutants(t)
	if len(all) < 40 {
		t.Fatalf("the fixture has %d mutants, want at least 40", len(all))
	}
	for _, m := range all {
		for _, name := range append([]string{m.rule}, m.also...) {
			r, ok := rules.ByName(name)
			if !ok {
				t.Errorf("mutant %s names %q, which is not a rule", m.name, name)
			} else if r.Check == rules.CheckIndeterminate {
				t.Errorf("mutant %s breaks %s, a rule no black-box scan can settle", m.name, name)
			}
		}
	}

	t.Run("baseline", func(t *testing.T) {
		srv := StartFixture(t, "conformant", "--without-deprecated")
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for i := range baselineScans {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				code, res := scanJSON(t, srv.URL, mutantScanFlags...)
				if failed := statusNames(res, rules.Fail); code != 0 || len(failed) > 0 {
					t.Errorf("baseline scan %d: exit %d, failures %v (want exit 0 and none)", i+1, code, failed)
					for _, rr := range res.Rules {
						if rr.Status == rules.Fail {
							t.Logf("  %s: %s", rr.Rule.Name, rr.Observed())
						}
					}
				}
			}()
		}
		wg.Wait()
	})

	selected := selectedMutants(t, all)
	results := make([]mutantResult, len(selected))
	t.Run("mutants", func(t *testing.T) {
		for i, m := range selected {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				srv := StartFixture(t, "conformant", "--without-deprecated", "--mutant", m.name)
				start := time.Now()
				code, res := scanJSON(t, srv.URL, mutantScanFlags...)
				r := mutantResult{m: m, code: code, failed: statusNames(res, rules.Fail), duration: time.Since(start)}
				results[i] = r
				want := append([]string{m.rule}, m.also...)
				slices.Sort(want)
				if code != 1 || !slices.Contains(r.failed, m.rule) {
					t.Errorf("mutant %s (%s) breaks %s: exit %d, failures %v", m.name, m.what, m.rule, code, r.failed)
				}
				if !slices.Equal(r.failed, want) {
					for _, rr := range res.Rules {
						if rr.Status == rules.Fail && !slices.Contains(want, rr.Rule.Name) {
							t.Errorf("mutant %s: unexpected failure %s: %s", m.name, rr.Rule.Name, rr.Observed())
						}
					}
					t.Errorf("mutant %s: failures %v, want exactly %v", m.name, r.failed, want)
				}
			})
		}
	})
	if out := os.Getenv(EnvMeasureOut); out != "" && os.Getenv("SENTINEL_MEASURE") != "" {
		writeMutantTable(t, out, results, len(all))
	}
}

// writeMutantTable writes the per-mutant table, the measurement `make measure` keeps.
func writeMutantTable(t *testing.T, path string, results []mutantResult, total int) {
	var b strings.Builder
	caught, exact := 0, 0
	for _, r := range results {
		want := append([]string{r.m.rule}, r.m.also...)
		slices.Sort(want)
		if r.code == 1 && slices.Contains(r.failed, r.m.rule) {
			caught++
		}
		if slices.Equal(r.failed, want) {
			exact++
		}
	}
	fmt.Fprintf(&b, "## Mutation harness: %d single-rule mutants of the conformant fixture\n\n", total)
	fmt.Fprintf(&b, "Measured %s by `TestMutationHarness` (e2e/mutation_test.go) on this machine (%s): the conformant fixture "+
		"(`fixture serve conformant --without-deprecated`) scanned %d times with `--gate should` (each must pass with no failure), "+
		"then each mutant (`--mutant NAME`, from `fixture mutants`) served and scanned once through the built `sentinel probe` binary. "+
		"Caught: the scan failed the gate naming the mutant's rule. Exact: no other rule failed besides the ones the mutant's one "+
		"behaviour also breaks.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine(), baselineScans)
	fmt.Fprintf(&b, "Caught %d of %d, exact %d of %d.\n\n", caught, len(results), exact, len(results))
	b.WriteString("| mutant | rule it breaks | caught | rules failed | scan |\n|---|---|---|---|---|\n")
	for _, r := range results {
		mark := "no"
		if r.code == 1 && slices.Contains(r.failed, r.m.rule) {
			mark = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.m.name, r.m.rule, mark, strings.Join(r.failed, ", "), r.duration.Round(time.Millisecond))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Errorf("writing the measurement: %v", err)
	}
}
