package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// demoTimeout bounds one run of the demo; it takes seconds.
const demoTimeout = 3 * time.Minute

// TestDemoRunsTwice runs the README's quick-start job, scripts/demo.sh, twice in one place, as a
// user who runs `make demo` again does. Each run recreates its broker database; the broker's
// audit checkpoints live outside the database, so a second run that shared the first run's state
// folder had its fresh chain checked against the first chain's checkpoints and failed as
// "audit chain REWRITTEN". The demo now keeps a state folder of its own under its DEMO_DIR.
func TestDemoRunsTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo twice")
	}
	for _, name := range []string{"sentinel", "broker", "fixture"} {
		BuildBinary(t, name)
	}
	demoDir := filepath.Join(t.TempDir(), "demo")
	for run := 1; run <= 2; run++ {
		out, err := runDemo(t, demoDir)
		if err != nil {
			t.Fatalf("demo run %d: %v; its output ends:\n%s", run, err, tail(out, 30))
		}
		if !strings.Contains(out, "audit chain intact") {
			t.Fatalf("demo run %d did not report an intact audit chain; its output ends:\n%s", run, tail(out, 30))
		}
	}
}

// runDemo runs scripts/demo.sh with the test's binaries and state under demoDir. On its deadline
// the script gets SIGTERM, so its exit trap stops the servers it started.
func runDemo(t *testing.T, demoDir string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), demoTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(moduleRoot, "scripts", "demo.sh"))
	cmd.Env = append(os.Environ(), "BIN="+binDir, "DEMO_DIR="+demoDir, "NO_COLOR=1")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}
