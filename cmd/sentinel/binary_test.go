package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/report/sarifcheck"
)

// These tests run the real sentinel binary, built once per test run, against loopback servers:
// the output side of the CLI (several outputs, baselines, the config file, diff) as a user
// meets it, bad files included.

var binOnce struct {
	sync.Once
	path string
	err  error
}

// sentinelBin builds ./cmd/sentinel, and ./cmd/sentinel-proxy beside it, into a temporary folder
// once, and returns sentinel's path.
func sentinelBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the sentinel binary; skipped under -short")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sentinel-bin-")
		if err != nil {
			binOnce.err = err
			return
		}
		binOnce.path = filepath.Join(dir, "sentinel")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		// sentinel-proxy beside it, where sentinel looks for the live-traffic commands.
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), ".", "../sentinel-proxy").CombinedOutput(); err != nil {
			binOnce.err = errors.New(string(out))
		}
	})
	if binOnce.err != nil {
		t.Fatalf("building sentinel: %v", binOnce.err)
	}
	return binOnce.path
}

type run struct {
	code           int
	stdout, stderr string
}

// sentinel runs the binary in dir (the test's temp dir when empty) and returns what it did.
func sentinel(t *testing.T, dir string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sentinelBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "SENTINEL_TOKEN=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := run{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("sentinel %v did not finish: %s", args, r.stderr)
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}

func (r run) want(t *testing.T, code int, in ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %.2000s\nstderr: %.2000s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range in {
		if !strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("output lacks %q\nstdout: %.2000s\nstderr: %.2000s", s, r.stdout, r.stderr)
		}
	}
}

// countingServer is discoverOnly that counts its requests, to prove a bad flag or file is
// refused before any request is sent.
type countingServer struct {
	discoverOnly
	n atomic.Int64
}

func (c *countingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.discoverOnly.ServeHTTP(w, r)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeResult(t *testing.T, path string) *report.Result {
	t.Helper()
	r, err := report.Decode(bytes.NewReader(readFile(t, path)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

func TestMultiOutputThroughTheBinary(t *testing.T) {
	srv := httptest.NewServer(&discoverOnly{})
	defer srv.Close()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	r := sentinel(t, dir, "probe", "--endpoint", srv.URL, "--area", "headers", "--format", "text",
		"--out-json", p("r.json"), "--out-sarif", p("r.sarif"), "--output", "junit="+p("r.xml"),
		"--output", "markdown="+p("r.md"), "--out-html", p("r.html"), "--out-badge", p("badge.svg"))
	r.want(t, 1, "FAIL ")
	if !strings.HasPrefix(r.stdout, "FAILED the must gate: ") {
		t.Errorf("stdout does not lead with the verdict: %.300s", r.stdout)
	}
	res := decodeResult(t, p("r.json"))
	if err := sarifcheck.Validate(readFile(t, p("r.sarif"))); err != nil {
		t.Errorf("r.sarif: %v", err)
	}
	if err := xml.Unmarshal(readFile(t, p("r.xml")), new(struct{})); err != nil {
		t.Errorf("r.xml: %v", err)
	}
	line := res.VerdictLine()
	for file, want := range map[string]string{"r.md": "## ❌ " + line, "r.html": "<h1>" + line + "</h1>", "badge.svg": "MUST</text>"} {
		if !strings.Contains(string(readFile(t, p(file))), want) {
			t.Errorf("%s lacks %q", file, want)
		}
	}
}

func TestBadOutputsAreRefusedBeforeTheScan(t *testing.T) {
	srv := &countingServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	notADir := filepath.Join(dir, "file")
	if err := os.WriteFile(notADir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unwritable --out-sarif", []string{"--out-sarif", filepath.Join(notADir, "r.sarif")}, "cannot write the sarif report"},
		{"an unwritable --out", []string{"--out", filepath.Join(notADir, "r.txt")}, "cannot write the text report"},
		{"--output without a path", []string{"--output", "sarif"}, "want FORMAT=PATH"},
		{"--output with an unknown format", []string{"--output", "pdf=r.pdf"}, `unknown report format "pdf"`},
		{"two outputs on one file", []string{"--out-json", "same", "--out-sarif", "same"}, "named by two outputs"},
		{"two reports on stdout", []string{"--output", "json=-"}, "two reports would go to standard output"},
		{"a width too narrow", []string{"--width", "20"}, "--width 20"},
		{"an unknown --show", []string{"--show", "some"}, `unknown --show "some"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.n.Load()
			r := sentinel(t, dir, append([]string{"probe", "--endpoint", ts.URL}, tt.args...)...)
			r.want(t, 2, tt.want)
			if tt.name != "a width too narrow" && tt.name != "an unknown --show" && srv.n.Load() != before {
				t.Errorf("the scan ran (%d requests) before the bad output was refused", srv.n.Load()-before)
			}
		})
	}
}

// TestACouldNotRunScanStillWritesItsReports: exit 2, and a valid SARIF file that says why.
func TestACouldNotRunScanStillWritesItsReports(t *testing.T) {
	dir := t.TempDir()
	r := sentinel(t, dir, "probe", "--endpoint", "http://127.0.0.1:1/mcp", "--timeout", "5s",
		"--out-sarif", "r.sarif", "--out-json", "r.json", "--out-junit", "r.xml")
	r.want(t, 2)
	data := readFile(t, filepath.Join(dir, "r.sarif"))
	if err := sarifcheck.Validate(data); err != nil {
		t.Fatalf("r.sarif: %v", err)
	}
	if !strings.Contains(string(data), `"toolExecutionNotifications"`) || !strings.Contains(string(data), `"executionSuccessful": false`) {
		t.Errorf("the SARIF log does not say the scan failed:\n%s", data)
	}
	if res := decodeResult(t, filepath.Join(dir, "r.json")); res.CouldNotRun == nil {
		t.Errorf("the JSON result has no couldNotRun")
	}
	if !strings.Contains(string(readFile(t, filepath.Join(dir, "r.xml"))), "<error ") {
		t.Errorf("the JUnit report has no error testcase")
	}
}

func TestBaselineThroughTheBinary(t *testing.T) {
	srv := &countingServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	scan := func(extra ...string) run {
		return sentinel(t, dir, append([]string{"probe", "--endpoint", ts.URL, "--area", "headers"}, extra...)...)
	}
	scan("--out-json", "first.json").want(t, 1)
	sentinel(t, dir, "baseline", "write", "--from", "first.json").want(t, 0, "written to sentinel-baseline.json")
	scan("--baseline", "sentinel-baseline.json").want(t, 0, "PASSED the must gate: no new finding fails it", "known to baseline sentinel-baseline.json")

	// Drop one accepted failure: it is new again and fails the gate.
	full := string(readFile(t, filepath.Join(dir, "sentinel-baseline.json")))
	start := strings.Index(full, `    {`)
	end := strings.Index(full[start:], "},\n") + start + 3
	if err := os.WriteFile(filepath.Join(dir, "partial.json"), []byte(full[:start]+full[end:]), 0o644); err != nil {
		t.Fatal(err)
	}
	scan("--baseline", "partial.json").want(t, 1, "(new)")

	// An entry for a rule that no longer exists is stale: a warning, not a failure.
	stale := strings.Replace(full, `"entries": [`, `"entries": [
    {"rule": "MCP/2026-07-28/MUST/renamed-away", "observation": "0123456789abcdef"},`, 1)
	if err := os.WriteFile(filepath.Join(dir, "stale.json"), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	scan("--baseline", "stale.json").want(t, 0, "1 stale entry", "renamed-away")

	bad := map[string]struct{ body, want string }{
		"not json":        {"entries: []", "decoding the baseline"},
		"wrong schema":    {`{"schema": "sentinel.baseline/v9", "entries": []}`, `schema "sentinel.baseline/v9"`},
		"unknown field":   {`{"schema": "sentinel.baseline/v1", "entries": [], "extra": 1}`, `unknown field "extra"`},
		"bad fingerprint": {`{"schema": "sentinel.baseline/v1", "entries": [{"rule": "MCP/2026-07-28/MUST/x", "observation": "zz"}]}`, "not a 16-hex-digit fingerprint"},
		"a result file":   {full[:0] + string(readFile(t, filepath.Join(dir, "first.json"))), "unknown field"},
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
			if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
				t.Fatal(err)
			}
			before := srv.n.Load()
			scan("--baseline", path).want(t, 2, "--baseline", b.want)
			if srv.n.Load() != before {
				t.Error("the scan ran before the bad baseline was refused")
			}
		})
	}
	sentinel(t, dir, "probe", "--endpoint", ts.URL, "--baseline", "missing.json").want(t, 2, "create one with `sentinel baseline write")
	sentinel(t, dir, "baseline", "write", "--from", "sentinel-baseline.json").want(t, 2, "unknown field")
}

func TestConfigThroughTheBinary(t *testing.T) {
	ts := httptest.NewServer(&discoverOnly{})
	defer ts.Close()
	dir := t.TempDir()
	cfg := "endpoint: " + ts.URL + "\nareas: [headers]\ngate: none\noutputs:\n  sarif: out.sarif\n  json: out.json\n"
	if err := os.WriteFile(filepath.Join(dir, "sentinel.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	sentinel(t, dir, "probe").want(t, 0, "settings from sentinel.yaml", "PASSED the none gate")
	if res := decodeResult(t, filepath.Join(dir, "out.json")); res.Gate != report.GateNone {
		t.Errorf("the config's gate was not used: %q", res.Gate)
	}
	if err := sarifcheck.Validate(readFile(t, filepath.Join(dir, "out.sarif"))); err != nil {
		t.Error(err)
	}
	sentinel(t, dir, "probe", "--gate", "must").want(t, 1, "FAILED the must gate")

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "ci.yaml"), []byte("endpoint: "+ts.URL+"\nrules: [discover-implemented]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sentinel(t, dir, "probe", "--config", filepath.Join(other, "ci.yaml")).want(t, 0, "ci.yaml")

	for name, body := range map[string]string{
		"unknown key":   "endpoint: " + ts.URL + "\ngat: must\n",
		"bad gate":      "gate: maybe\n",
		"bad format":    "outputs: {pdf: out.pdf}\n",
		"inline secret": "headers: {Authorization: Bearer x}\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(other, strings.ReplaceAll(name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			r := sentinel(t, dir, "probe", "--config", path)
			r.want(t, 2, "--config", filepath.Base(path))
		})
	}
	sentinel(t, dir, "probe", "--config", filepath.Join(other, "unknown-key.yaml")).want(t, 2, "line 2: unknown key gat")
	sentinel(t, t.TempDir(), "probe").want(t, 2, "--endpoint is required")
}

func TestDiffThroughTheBinary(t *testing.T) {
	ts := httptest.NewServer(&discoverOnly{})
	defer ts.Close()
	dir := t.TempDir()
	sentinel(t, dir, "probe", "--endpoint", ts.URL, "--area", "headers", "--out-json", "new.json").want(t, 1)
	// OLD: the same scan, with one failing rule passing.
	res := decodeResult(t, filepath.Join(dir, "new.json"))
	var fixed string
	for i, rr := range res.Rules {
		if rr.Status == "fail" {
			res.Rules[i].Status, res.Rules[i].Evidence, res.Rules[i].Observations, fixed = "pass", nil, nil, rr.Rule.Name
			break
		}
	}
	old, err := report.MarshalCanonical(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old.json"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	sentinel(t, dir, "diff", "old.json", "new.json").want(t, 1, "1 regression, 0 fixed", fixed)
	sentinel(t, dir, "diff", "new.json", "old.json").want(t, 0, "0 regressions, 1 fixed", "fixed:")
	sentinel(t, dir, "diff", "new.json", "new.json", "--format", "markdown").want(t, 0, "## ✅ PASSED", "0 regressions, 0 fixed")
	sentinel(t, dir, "diff", "old.json", "new.json", "--gate", "none").want(t, 0)

	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"schema": "sentinel.result/v1", "rules": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	sentinel(t, dir, "diff", "old.json").want(t, 2, "two saved results")
	sentinel(t, dir, "diff", "old.json", "missing.json").want(t, 2, "missing.json", "save one with")
	sentinel(t, dir, "diff", "broken.json", "new.json").want(t, 2, "broken.json", "decoding the JSON result")
	sentinel(t, dir, "diff", "old.json", "sentinel-baseline.json").want(t, 2)
}

// TestCountsAgreeAcrossFormats: one scan, and stderr, the text report, JSON, JUnit and SARIF
// all say the same numbers: distinct findings, the rules they break, and what fails the gate.
func TestCountsAgreeAcrossFormats(t *testing.T) {
	ts := httptest.NewServer(&discoverOnly{})
	defer ts.Close()
	dir := t.TempDir()
	r := sentinel(t, dir, "probe", "--endpoint", ts.URL, "--gate", "must",
		"--out-json", "r.json", "--out-junit", "r.xml", "--out-sarif", "r.sarif")
	r.want(t, 1)
	tl := decodeResult(t, filepath.Join(dir, "r.json")).Tally()
	t.Logf("tally %+v", tl)
	if tl.Findings == 0 || tl.FailedRules <= tl.Findings || tl.GateRules == 0 {
		t.Fatalf("the scan found too little to compare: %+v", tl)
	}
	var jsonDoc struct {
		Summary  report.Tally `json:"summary"`
		Findings []struct {
			Rules []string `json:"rules"`
		} `json:"findings"`
	}
	if err := jsonUnmarshal(readFile(t, filepath.Join(dir, "r.json")), &jsonDoc); err != nil {
		t.Fatal(err)
	}
	jsonRules := 0
	for _, f := range jsonDoc.Findings {
		jsonRules += len(f.Rules)
	}

	// stderr: one FAIL line per failing rule, numbered by finding, and the verdict last.
	failLines, numbers := 0, map[string]bool{}
	for _, l := range strings.Split(r.stderr, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "FAIL" {
			failLines++
			numbers[f[1]] = true
		}
	}
	// text: the verdict line and the counts line.
	var textGateF, textGateR, textF, textR int
	first, _, _ := strings.Cut(r.stdout, "\n")
	scan(t, first, "FAILED the must gate: %d findings (%d rules) fail it", &textGateF, &textGateR)
	_, evaluated, _ := strings.Cut(r.stdout, "evaluated: ")
	evaluated, _, _ = strings.Cut(evaluated, "\n")
	_, counts, _ := strings.Cut(evaluated, "; ")
	scan(t, counts, "%d findings break %d rules", &textF, &textR)
	// JUnit: failures and the properties.
	var junit struct {
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(readFile(t, filepath.Join(dir, "r.xml")), &junit); err != nil {
		t.Fatal(err)
	}
	props := map[string]string{}
	for _, p := range junit.Suite.Props {
		props[p.Name] = p.Value
	}
	// SARIF: one result per failing rule, grouped by finding.
	var sarif struct {
		Runs []struct {
			Results []struct {
				Properties struct {
					Finding string `json:"finding"`
				} `json:"properties"`
			} `json:"results"`
			Properties struct {
				Tally report.Tally `json:"tally"`
			} `json:"properties"`
		} `json:"runs"`
	}
	if err := jsonUnmarshal(readFile(t, filepath.Join(dir, "r.sarif")), &sarif); err != nil {
		t.Fatal(err)
	}
	sarifFindings := map[string]bool{}
	for _, res := range sarif.Runs[0].Results {
		sarifFindings[res.Properties.Finding] = true
	}

	checks := []struct {
		where     string
		got, want int
	}{
		{"stderr FAIL lines (failing rules)", failLines, tl.FailedRules},
		{"stderr finding numbers", len(numbers), tl.Findings},
		{"text verdict: findings failing the gate", textGateF, tl.GateFindings},
		{"text verdict: rules failing the gate", textGateR, tl.GateRules},
		{"text counts: findings", textF, tl.Findings},
		{"text counts: rules", textR, tl.FailedRules},
		{"JSON summary: findings", jsonDoc.Summary.Findings, tl.Findings},
		{"JSON findings listed", len(jsonDoc.Findings), tl.Findings},
		{"JSON findings' rules", jsonRules, tl.FailedRules},
		{"JUnit failures (the gate's rules)", junit.Failures, tl.GateRules},
		{"JUnit findings property", atoi(props["findings"]), tl.Findings},
		{"JUnit gateFindings property", atoi(props["gateFindings"]), tl.GateFindings},
		{"SARIF results (failing rules)", len(sarif.Runs[0].Results), tl.FailedRules},
		{"SARIF findings", len(sarifFindings), tl.Findings},
		{"SARIF tally: gate findings", sarif.Runs[0].Properties.Tally.GateFindings, tl.GateFindings},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.where, c.got, c.want)
		}
	}
	if last := lastLine(r.stderr); last != "sentinel: "+first {
		t.Errorf("stderr ends %q, want the verdict line %q", last, "sentinel: "+first)
	}
}

func scan(t *testing.T, s, format string, args ...any) {
	t.Helper()
	if _, err := fmt.Sscanf(s, format, args...); err != nil {
		t.Errorf("%q does not read as %q: %v", s, format, err)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// TestAReportThatCannotBeWrittenIsNotAPass: a full disk (/dev/full) while writing a report is
// exit 2, never the scan's own exit code, so a truncated report never passes CI.
func TestAReportThatCannotBeWrittenIsNotAPass(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	ts := httptest.NewServer(&discoverOnly{})
	defer ts.Close()
	r := sentinel(t, t.TempDir(), "probe", "--endpoint", ts.URL, "--rule", "discover-implemented", "--out-json", "/dev/full")
	r.want(t, 2, "writing the json report to /dev/full", "no space left on device")
}

// TestLiveCommandsHandOver: the live-traffic commands, their help and their shell completion
// reach sentinel-proxy through sentinel, with its output and exit status, and a sentinel
// without sentinel-proxy says how to install it instead.
func TestLiveCommandsHandOver(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		inStdout string
	}{
		{[]string{"proxy", "--help"}, 0, "--upstream"},
		{[]string{"help", "findings"}, 0, "Read the findings store"},
		{[]string{"ca", "init", "--help"}, 0, "--dir"},
		{[]string{"__complete", "proxy", "--upst"}, 0, "--upstream"},
		{[]string{"shim", "--no-such-flag"}, 2, ""},
		{[]string{"--help"}, 0, "Watch a running proxy's findings live"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := sentinel(t, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.inStdout) {
				t.Errorf("exit %d, stdout %.300q, stderr %.300q; want exit %d and %q", r.code, r.stdout, r.stderr, tt.code, tt.inStdout)
			}
		})
	}
	t.Run("without sentinel-proxy", func(t *testing.T) {
		alone := filepath.Join(t.TempDir(), "sentinel")
		data, err := os.ReadFile(sentinelBin(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(alone, data, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), alone, "proxy", "--upstream", "http://127.0.0.1:1/mcp")
		cmd.Env = []string{"PATH=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "sentinel-proxy") || !strings.Contains(string(out), "go install") {
			t.Errorf("err %v, output %q: want exit 2 naming sentinel-proxy and how to install it", err, out)
		}
	})
}
