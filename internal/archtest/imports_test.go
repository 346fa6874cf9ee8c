package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/mcp-sentinel/sentinel"

// edge forbids any package under From from depending (directly or transitively) on any package
// under To.
type edge struct{ from, to, why string }

// forbidden is DESIGN.md's dependency direction, as a table.
var forbidden = []edge{
	// The harness must grade servers it did not write.
	{"rules", "broker", "the harness must grade servers it did not write"},
	{"rules", "fixtures", "the harness must grade servers it did not write"},
	{"wire", "broker", "the harness must grade servers it did not write"},
	{"wire", "fixtures", "the harness must grade servers it did not write"},
	{"active", "broker", "the harness must grade servers it did not write"},
	{"active", "fixtures", "the harness must grade servers it did not write"},
	{"proxy", "broker", "the harness must grade servers it did not write"},
	{"proxy", "fixtures", "the harness must grade servers it did not write"},
	{"findings", "broker", "the harness must grade servers it did not write"},
	{"findings", "fixtures", "the harness must grade servers it did not write"},
	{"report", "broker", "the harness must grade servers it did not write"},
	{"report", "fixtures", "the harness must grade servers it did not write"},
	{"tui", "broker", "the harness must grade servers it did not write"},
	{"tui", "fixtures", "the harness must grade servers it did not write"},
	{"passive", "broker", "the harness must grade servers it did not write"},
	{"passive", "fixtures", "the harness must grade servers it did not write"},
	{"debt", "broker", "the harness must grade servers it did not write"},
	{"debt", "fixtures", "the harness must grade servers it did not write"},
	{"stdio", "broker", "the harness must grade servers it did not write"},
	{"stdio", "fixtures", "the harness must grade servers it did not write"},
	{"shim", "broker", "the harness must grade servers it did not write"},
	{"shim", "fixtures", "the harness must grade servers it did not write"},
	{"baseline", "broker", "the harness must grade servers it did not write"},
	{"baseline", "fixtures", "the harness must grade servers it did not write"},
	{"config", "broker", "the harness must grade servers it did not write"},
	{"config", "fixtures", "the harness must grade servers it did not write"},
	{"diff", "broker", "the harness must grade servers it did not write"},
	{"diff", "fixtures", "the harness must grade servers it did not write"},
	{"baseline", "active", "a baseline is data about a result, not a scan"},
	{"diff", "active", "a diff compares saved results, it never scans"},
	{"report", "debt", "renderers never import the code that computes what they render"},
	{"report", "active", "renderers never import the code that computes what they render"},
	{"cmd/sentinel", "broker", "the harness must grade servers it did not write"},
	{"cmd/sentinel", "fixtures", "the harness must grade servers it did not write"},
	{"cmd/sentinel-proxy", "broker", "the harness must grade servers it did not write"},
	{"cmd/sentinel-proxy", "fixtures", "the harness must grade servers it did not write"},
	{"cmd/internal/sentinelcmd", "broker", "the harness must grade servers it did not write"},
	{"cmd/internal/sentinelcmd", "fixtures", "the harness must grade servers it did not write"},
	// The broker must be independently correct.
	{"broker", "rules", "the broker must be independently correct"},
	{"broker", "wire", "the broker must be independently correct"},
	{"broker", "active", "the broker must be independently correct"},
	{"broker", "proxy", "the broker must be independently correct"},
	{"broker", "findings", "the broker must be independently correct"},
	{"broker", "report", "the broker must be independently correct"},
	{"broker", "tui", "the broker must be independently correct"},
	{"broker", "passive", "the broker must be independently correct"},
	{"broker", "debt", "the broker must be independently correct"},
	{"broker", "fixtures", "the broker must be independently correct"},
	{"cmd/broker", "rules", "the broker must be independently correct"},
	{"cmd/broker", "active", "the broker must be independently correct"},
	{"cmd/broker", "proxy", "the broker must be independently correct"},
	{"cmd/broker", "cmd/internal/sentinelcmd", "the broker must be independently correct"},
	// Fixtures are graded, never grading.
	{"fixtures", "rules", "a fixture must not know the grader's answers"},
	{"fixtures", "active", "a fixture must not know the grader's answers"},
	{"fixtures", "wire", "a fixture must not know the grader's answers"},
	{"fixtures", "passive", "a fixture must not know the grader's answers"},
	{"fixtures", "report", "a fixture must not know the grader's answers"},
	{"fixtures", "broker", "fixtures stand alone"},
	{"internal/telemetry", "rules", "telemetry is shared by the harness and the broker, so it imports neither"},
	{"internal/telemetry", "broker", "telemetry is shared by the harness and the broker, so it imports neither"},
	{"internal/termtext", "rules", "termtext is a leaf shared by the report and the TUI"},
	{"internal/termtext", "report", "termtext is a leaf shared by the report and the TUI"},
	// Leaves.
	{"wire", "rules", "wire is a leaf"},
	{"wire", "eval", "wire is a leaf"},
	{"eval", "rules", "eval is a leaf"},
	{"eval", "wire", "eval is a leaf"},
	{"eval", "broker", "eval is a leaf"},
	{"rules", "active", "rules is data and pure functions"},
	{"rules", "proxy", "rules is data and pure functions"},
	{"rules", "findings", "rules is data and pure functions"},
	{"rules", "report", "rules is data and pure functions"},
	{"rules", "passive", "rules is data and pure functions"},
	{"passive", "active", "passive checks are pure: no prober, no network"},
	{"passive", "proxy", "passive checks are pure: no prober, no network"},
	{"passive", "findings", "passive checks are pure: no prober, no network"},
	{"passive", "stdio", "passive checks are pure: no processes"},
	{"stdio", "rules", "the stdio transport moves and frames bytes; grading is passive's"},
	{"stdio", "passive", "the stdio transport moves and frames bytes; grading is passive's"},
	{"stdio", "active", "the stdio transport moves and frames bytes; grading is passive's"},
	{"stdio", "proxy", "the stdio transport moves and frames bytes; grading is passive's"},
	{"wire", "stdio", "wire is a leaf"},
}

// rulesStdAllowed is the allowlist of standard-library packages rules/ may import directly: pure
// ones only. No os, net, os/exec, database/sql or io/fs: the registry does no I/O.
var rulesStdAllowed = map[string]bool{
	"bytes": true, "encoding/base64": true, "encoding/json": true, "errors": true, "fmt": true,
	"math": true, "mime": true, "net/http": true, "net/url": true, "regexp": true, "slices": true,
	"sort": true, "strconv": true, "strings": true, "time": true, "unicode": true,
	"unicode/utf8": true, "maps": true, "cmp": true, "sync": true,
}

// pkg is the part of `go list -json` output the test reads.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
}

// loadPackages lists every package of the module with its direct imports and transitive deps.
func loadPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", "list", "-deps=false", "-json", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list returned no packages")
	}
	return pkgs
}

// under reports whether import path p is the module package rel or below it.
func under(p, rel string) bool {
	full := module + "/" + rel
	return p == full || strings.HasPrefix(p, full+"/")
}

// violations checks the packages against the tables and returns one line per offending edge.
func violations(pkgs []pkg, edges []edge, rulesAllowed map[string]bool) []string {
	var out []string
	for _, p := range pkgs {
		for _, e := range edges {
			if !under(p.ImportPath, e.from) {
				continue
			}
			for _, d := range p.Deps {
				if under(d, e.to) {
					out = append(out, fmt.Sprintf("%s -> %s: %s", p.ImportPath, d, e.why))
				}
			}
		}
		if under(p.ImportPath, "rules") {
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, module+"/") {
					// internal/lazyre is sync.OnceValue around regexp.MustCompile: as pure as the
					// standard-library packages rules may use.
					if !under(imp, "wire") && !under(imp, "rules") && imp != module+"/internal/lazyre" {
						out = append(out, fmt.Sprintf("%s -> %s: rules may import only wire and internal/lazyre", p.ImportPath, imp))
					}
					continue
				}
				if !rulesAllowed[imp] {
					out = append(out, fmt.Sprintf("%s -> %s: rules may import only pure standard-library packages", p.ImportPath, imp))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestImportDirection(t *testing.T) {
	for _, v := range violations(loadPackages(t), forbidden, rulesStdAllowed) {
		t.Error(v)
	}
}

// TestImportDirectionDetectsViolations shows the check can fail: a synthetic graph with one
// forbidden edge of each kind must produce exactly those violations.
func TestImportDirectionDetectsViolations(t *testing.T) {
	m := module + "/"
	pkgs := []pkg{
		{ImportPath: m + "active", Deps: []string{m + "rules", m + "broker/store"}},
		{ImportPath: m + "broker", Deps: []string{m + "eval", m + "rules"}},
		{ImportPath: m + "rules", Imports: []string{"strings", "os", m + "report"}, Deps: []string{m + "report"}},
		{ImportPath: m + "eval", Deps: []string{"strings"}},
	}
	got := violations(pkgs, forbidden, rulesStdAllowed)
	want := []string{
		m + "active -> " + m + "broker/store: the harness must grade servers it did not write",
		m + "broker -> " + m + "rules: the broker must be independently correct",
		m + "rules -> " + m + "report: rules is data and pure functions",
		m + "rules -> " + m + "report: rules may import only wire and internal/lazyre",
		m + "rules -> os: rules may import only pure standard-library packages",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
