package e2e

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// unmigratedScanFlags are what an operator scanning the unmigrated fixture grants: the tools that
// are not annotated read-only may be called (they have no effect outside the fixture's memory),
// and get_weather gets a city it knows, since its schema does not say which cities exist.
var unmigratedScanFlags = []string{
	"--allow-call", "connect_db", "--allow-call", "import_notes", "--allow-call", "summarize_workspace",
	"--allow-call", "sync_calendar", "--allow-call", "bulk_export",
	"--tool-args", `get_weather={"city":"Paris"}`,
}

// conformantScanFlags allow the conformant fixture's two tools that change its lists (additive,
// not read-only); its MRTR tools are annotated read-only and need no flag.
var conformantScanFlags = []string{"--allow-call", "test_trigger_tool_change", "--allow-call", "test_trigger_prompt_change"}

// scanJSON runs `sentinel probe --format json` against url with extra flags and decodes the report.
func scanJSON(t testing.TB, url string, extra ...string) (int, *report.Result) {
	t.Helper()
	args := append([]string{"probe", "--endpoint", url, "--format", "json", "--timeout", "90s"}, extra...)
	out := RunBinary(t, BuildBinary(t, "sentinel"), args...)
	res, err := report.Decode(bytes.NewReader([]byte(out.Stdout)))
	if err != nil {
		t.Fatalf("decoding the JSON report (exit %d): %v\nstderr: %s", out.ExitCode, err, out.Stderr)
	}
	return out.ExitCode, res
}

// statusNames returns the names of the rules whose status is st.
func statusNames(res *report.Result, st rules.Status) []string {
	var out []string
	for _, rr := range res.Rules {
		if rr.Status == st {
			out = append(out, rr.Rule.Name)
		}
	}
	slices.Sort(out)
	return out
}

// TestProbeRecallOnUnmigratedFixture is the recall acceptance: a scan of the real unmigrated
// fixture binary fails every rule the fixture seeds (its own list, never the scanner's count),
// and exits 1.
func TestProbeRecallOnUnmigratedFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and the fixture and scans it; skipped under -short")
	}
	seeded := FixtureSeeded(t)
	srv := StartFixture(t, "unmigrated")
	code, res := scanJSON(t, srv.URL, unmigratedScanFlags...)
	if code != 1 {
		t.Errorf("exit %d, want 1: the unmigrated fixture fails MUST rules", code)
	}
	failed := statusNames(res, rules.Fail)
	var missing []string
	for _, name := range seeded {
		if !slices.Contains(failed, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		for _, name := range missing {
			for _, rr := range res.Rules {
				if rr.Rule.Name == name {
					t.Logf("%s: %s — %s", name, rr.Status, rr.Why())
				}
			}
		}
		t.Errorf("recall %d/%d: the scan did not fail %d seeded violation(s): %v", len(seeded)-len(missing), len(seeded), len(missing), missing)
	}
	for _, rr := range res.Rules {
		if rr.Status == rules.Pass {
			t.Errorf("%s passed on a server outside the era (%s): every would-be pass must be indeterminate", rr.Rule.ID, res.Era)
		}
		if obs := rr.Observed(); rr.Status == rules.Fail && !strings.HasPrefix(obs, "sent ") && !strings.HasPrefix(obs, "on ") {
			t.Errorf("%s failed without saying what was sent and what came back: %q", rr.Rule.ID, obs)
		}
	}
}

// evaluatedLine matches the text report's count of rules with a pass or fail outcome.
var evaluatedLine = regexp.MustCompile(`evaluated: (\d+) of (\d+) rules \(pass or fail\)`)

// TestProbeConformantFixtureEvaluatesAtLeast130Rules is the coverage and false-positive
// acceptance: with its tools allowed, the conformant fixture passes the gate (no MUST failure,
// exit 0), its only SHOULD finding is deprecated-features-avoided (GAPS.md: the official suite
// needs its MRTR tools to ask for roots and sampling), and the text report says that at least
// 130 rules were evaluated (pass or fail, not n/a or indeterminate).
func TestProbeConformantFixtureEvaluatesAtLeast130Rules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and the fixture and scans it; skipped under -short")
	}
	srv := StartFixture(t, "conformant")
	code, res := scanJSON(t, srv.URL, conformantScanFlags...)
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	for _, rr := range res.Rules {
		if rr.Status == rules.Fail && rr.Rule.Name != "deprecated-features-avoided" {
			t.Errorf("false positive on the conformant fixture: %s: %s", rr.Rule.ID, rr.Observed())
		}
	}
	if n := len(statusNames(res, rules.Pass)) + len(statusNames(res, rules.Fail)); n < 130 {
		t.Errorf("the JSON report evaluates %d rules, want at least 130", n)
	}

	text := RunBinary(t, BuildBinary(t, "sentinel"), append([]string{"probe", "--endpoint", srv.URL, "--timeout", "90s"}, conformantScanFlags...)...)
	m := evaluatedLine.FindStringSubmatch(text.Stdout)
	if m == nil {
		t.Fatalf("the text report has no %q line:\n%s", "evaluated: N of M rules (pass or fail)", tail(text.Stdout, 20))
	}
	n, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	if n < 130 || total != len(rules.All()) {
		t.Errorf("text report: evaluated %d of %d rules, want at least 130 of %d", n, total, len(rules.All()))
	}
}
