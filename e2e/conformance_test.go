package e2e

import (
	"sort"
	"strings"
	"testing"
)

// wantScored is how many scenarios the pinned suite (0.2.0-alpha.12) scores for 2026-07-28.
const wantScored = 37

// TestOfficialSuiteCertifiesConformantFixture is the positive control: the official suite must
// score the conformant fixture 37/37.
func TestOfficialSuiteCertifiesConformantFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the official suite (Node 22); skipped under -short")
	}
	srv := StartFixture(t, "conformant")
	res := RunConformance(t, srv.URL)
	scored := res.Scored()
	if len(scored) != wantScored {
		t.Errorf("the suite scored %d scenarios, want %d (a new suite version?)", len(scored), wantScored)
	}
	if failed := res.Failed(); len(failed) > 0 {
		t.Errorf("%d/%d scored scenarios pass; failures:\n%s", len(scored)-len(failed), len(scored), res.Report())
	}
	if res.ExitCode != 0 {
		t.Errorf("suite exit code %d, want 0\n%s", res.ExitCode, tail(res.Output, 40))
	}
	if w := res.Report(); w != "" && !t.Failed() {
		t.Logf("warnings (SHOULDs the suite flags):\n%s", w)
	}
}

// TestOfficialSuiteFailsUnmigratedFixture is the negative control: a 2025-11-25 server must fail
// the suite, and for the right reason (the stateless scenario), not only because of fixture names.
func TestOfficialSuiteFailsUnmigratedFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the official suite (Node 22); skipped under -short")
	}
	srv := StartFixture(t, "unmigrated")
	res := RunConformance(t, srv.URL)
	if res.ExitCode == 0 {
		t.Errorf("suite exit code 0 for the unmigrated fixture, want non-zero")
	}
	failed := map[string]bool{}
	for _, s := range res.Failed() {
		failed[s.Name] = true
	}
	for _, name := range []string{"server-stateless", "caching", "dns-rebinding-protection"} {
		if !failed[name] {
			t.Errorf("scenario %s passed against the unmigrated fixture; failed: %v", name, keys(failed))
		}
	}
}

// TestNotScoredParsesTheSuiteSummary pins the parser of the suite's "Not scored" list, since the
// count of scored scenarios depends on it.
func TestNotScoredParsesTheSuiteSummary(t *testing.T) {
	out := "Total: 158 passed, 31 failed\n\n" +
		"Not scored for 2026-07-28: 3 scenario(s) run, 2 failing. These do not affect conformance.\n" +
		"  ✗ tasks-lifecycle (extension)\n" +
		"  ✓ json-schema-2020-12 (pending)\n" +
		"  ✓ http-header-validation (pending)\n" +
		"\nSome trailing line\n  ✗ not-a-listed-one (extension)\n"
	got := notScored(out)
	want := []string{"http-header-validation", "json-schema-2020-12", "tasks-lifecycle"}
	if strings.Join(keys(got), ",") != strings.Join(want, ",") {
		t.Errorf("notScored = %v, want %v", keys(got), want)
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
