package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestFixtureCommand(t *testing.T) {
	bin := BuildBinary(t, "fixture")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"version prints the program name", []string{"version"}, 0, "fixture "},
		{"seeded prints rule names", []string{"seeded"}, 0, "discover-implemented\n"},
		{"an unknown fixture cannot run", []string{"serve", "nonesuch", "--listen", "127.0.0.1:0"}, 2, ""},
		{"a bad listen address cannot run", []string{"serve", "conformant", "--listen", "256.0.0.1:x"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := RunBinary(t, bin, tt.args...)
			if res.ExitCode != tt.wantCode || !strings.Contains(res.Stdout, tt.wantOut) {
				t.Errorf("fixture %v = exit %d, stdout %q; want exit %d, stdout containing %q (stderr %q)",
					tt.args, res.ExitCode, res.Stdout, tt.wantCode, tt.wantOut, res.Stderr)
			}
		})
	}
}

// FixtureSeeded returns the unmigrated fixture's seeded rule names (`fixture seeded`), the
// violations a scan of that fixture is expected to find.
func FixtureSeeded(t testing.TB) []string {
	t.Helper()
	res := RunBinary(t, BuildBinary(t, "fixture"), "seeded")
	if res.ExitCode != 0 {
		t.Fatalf("fixture seeded: exit %d: %s", res.ExitCode, res.Stderr)
	}
	return strings.Fields(res.Stdout)
}

// TestSeededViolationsAreScannableRules keeps the unmigrated fixture honest against the registry:
// every seeded name must be a rule, and one a black-box scan can settle.
func TestSeededViolationsAreScannableRules(t *testing.T) {
	names := FixtureSeeded(t)
	if len(names) < 25 {
		t.Fatalf("fixture seeded printed %d names, want at least 25", len(names))
	}
	for _, name := range names {
		r, ok := rules.ByName(name)
		if !ok {
			t.Errorf("seeded violation %q is not a registered rule", name)
			continue
		}
		if r.Check == rules.CheckIndeterminate {
			t.Errorf("seeded violation %q is a rule no black-box scan can settle (%s)", name, r.Check)
		}
	}
}

// TestScanFixtureScriptFailsTheGate runs scripts/scan-fixture.sh: the unmigrated fixture must
// fail the gate (exit 1), never make the scanner unable to run (exit 2).
func TestScanFixtureScriptFailsTheGate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and scans a fixture; skipped under -short")
	}
	sentinel := BuildBinary(t, "sentinel")
	BuildBinary(t, "fixture")
	if out, err := exec.Command(sentinel, "probe", "--help").CombinedOutput(); err != nil {
		t.Fatalf("sentinel probe --help: %v\n%s", err, out)
	}
	script, err := filepath.Abs(filepath.Join(moduleRoot, "scripts", "scan-fixture.sh"))
	if err != nil {
		t.Fatal(err)
	}
	res := RunBinaryEnv(t, []string{"BIN=" + binDir}, script)
	if res.ExitCode != 1 {
		t.Errorf("scan-fixture.sh exit %d, want 1 (the unmigrated fixture fails the gate)\nstdout:\n%s\nstderr:\n%s",
			res.ExitCode, tail(res.Stdout, 40), tail(res.Stderr, 40))
	}
}
