package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// ConformanceRequirements is the requirement set the suite grades stateless servers on.
const ConformanceRequirements = "2026-07-28"

// ConformanceTimeout bounds one run of the suite (a run takes 1-9 s).
const ConformanceTimeout = 3 * time.Minute

// Check is one entry of a scenario's checks.json.
type Check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED or INFO
	ErrorMessage string `json:"errorMessage"`
}

// Scenario is one scenario's outcome.
type Scenario struct {
	Name   string
	Scored bool // false for scenarios the suite lists as "Not scored" for the requirement set
	Checks []Check
}

// Failed reports whether any check of the scenario is a FAILURE.
func (s Scenario) Failed() bool {
	for _, c := range s.Checks {
		if c.Status == "FAILURE" {
			return true
		}
	}
	return false
}

// ConformanceResult aggregates one run of the suite.
type ConformanceResult struct {
	ExitCode  int
	Scenarios []Scenario // sorted by name
	Output    string     // the suite's stdout and stderr
}

// Scored returns the scored scenarios.
func (r ConformanceResult) Scored() []Scenario {
	var out []Scenario
	for _, s := range r.Scenarios {
		if s.Scored {
			out = append(out, s)
		}
	}
	return out
}

// Failed returns the scored scenarios with at least one FAILURE.
func (r ConformanceResult) Failed() []Scenario {
	var out []Scenario
	for _, s := range r.Scored() {
		if s.Failed() {
			out = append(out, s)
		}
	}
	return out
}

// Report lists every failing (and warning) check of the scored scenarios, one per line.
func (r ConformanceResult) Report() string {
	var b strings.Builder
	for _, s := range r.Scored() {
		for _, c := range s.Checks {
			if c.Status == "FAILURE" || c.Status == "WARNING" {
				fmt.Fprintf(&b, "%s: %s %s: %s\n", s.Name, c.Status, c.ID, c.ErrorMessage)
			}
		}
	}
	return b.String()
}

// RunConformance runs the official suite against url with Node 22 first on PATH and returns the
// aggregated results. Missing tools fail the test (or skip it under -short), as RequireTool does.
func RunConformance(t testing.TB, url string) ConformanceResult {
	t.Helper()
	node := RequireTool(t, EnvNodeBin)
	suite := RequireTool(t, EnvConformance)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), ConformanceTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite, "server", "--url", url, "--requirements", ConformanceRequirements, "-o", out)
	cmd.Env = append(os.Environ(), "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"))
	output, err := cmd.CombinedOutput()
	res := ConformanceResult{Output: string(output)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("conformance suite still running after %v:\n%s", ConformanceTimeout, output)
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		t.Fatalf("running the conformance suite: %v", err)
	}
	scenarios, err := readScenarios(out, notScored(res.Output))
	if err != nil {
		t.Fatalf("reading the suite's results in %s: %v\nsuite output:\n%s", out, err, output)
	}
	res.Scenarios = scenarios
	return res
}

// resultDir matches a scenario's result directory: server-<scenario>-<ISO timestamp>.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// readScenarios reads every <dir>/*/checks.json; names in unscored are marked not scored.
func readScenarios(dir string, unscored map[string]bool) ([]Scenario, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var out []Scenario
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		s := Scenario{Name: m[1], Scored: !unscored[m[1]]}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if errors.Is(err, fs.ErrNotExist) {
			// The suite writes no checks when a scenario aborts; that is a failure, not a gap.
			s.Checks = []Check{{ID: "checks-written", Status: "FAILURE", ErrorMessage: "the scenario wrote no checks.json (it aborted)"}}
			out = append(out, s)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading checks of %s: %w", m[1], err)
		}
		if err := json.Unmarshal(raw, &s.Checks); err != nil {
			return nil, fmt.Errorf("decoding checks of %s: %w", m[1], err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenario results in %s", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// notScoredItem is one line of the suite's "Not scored" list: "  ✗ tasks-lifecycle (extension)".
var notScoredItem = regexp.MustCompile(`^\s+\S+\s+(\S+)\s+\((extension|pending|[a-z-]+)\)\s*$`)

// notScored parses the scenarios the suite printed under "Not scored for <requirements>".
func notScored(output string) map[string]bool {
	out := map[string]bool{}
	in := false
	sc := bufio.NewScanner(strings.NewReader(output))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Not scored") {
			in = true
			continue
		}
		if !in {
			continue
		}
		m := notScoredItem.FindStringSubmatch(line)
		if m == nil {
			if strings.TrimSpace(line) != "" {
				in = false
			}
			continue
		}
		out[m[1]] = true
	}
	return out
}
