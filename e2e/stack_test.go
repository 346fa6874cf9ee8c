package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUpThenDownLeavesNothingRunning runs the scripts behind `make up` and `make down` on free
// ports with state in a temp folder: up starts PostgreSQL, two brokers, the fixture and the proxy
// and records their PIDs; a probe through the proxy reaches a broker; down stops every recorded
// process, and afterwards none of them is alive.
func TestUpThenDownLeavesNothingRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and four servers")
	}
	pgBin := RequireTool(t, EnvPGBin)
	binDir := filepath.Dir(BuildBinary(t, "sentinel"))
	BuildBinary(t, "broker")
	BuildBinary(t, "fixture")
	stack := filepath.Join(t.TempDir(), "stack")
	// The postgres user must reach the socket folder: open the temp folders on the way.
	for d := filepath.Dir(stack); d != os.TempDir() && d != "/" && d != "."; d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755)
	}
	proxyAddr, adminAddr := freeAddr(t), freeAddr(t)
	env := append(os.Environ(), "BIN="+binDir, "STACK_DIR="+stack, "SENTINEL_PG_BIN="+pgBin,
		"PROXY_PORT="+proxyAddr[strings.LastIndex(proxyAddr, ":")+1:],
		"ADMIN_PORT="+adminAddr[strings.LastIndex(adminAddr, ":")+1:])
	run := func(script string) string {
		t.Helper()
		cmd := exec.CommandContext(WithDeadline(t, 2*time.Minute), "bash", filepath.Join("scripts", script))
		cmd.Dir, cmd.Env = moduleRoot, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	// Whatever happens, stop what up recorded.
	t.Cleanup(func() {
		cmd := exec.Command("bash", filepath.Join("scripts", "down.sh"))
		cmd.Dir, cmd.Env = moduleRoot, env
		_ = cmd.Run()
	})

	out := run("up.sh")
	pids := recordedPIDs(t, filepath.Join(stack, "pids"))
	if len(pids) != 5 {
		t.Fatalf("up recorded %d processes, want 5 (postgres, 2 brokers, fixture, proxy):\n%s", len(pids), out)
	}
	for name, pid := range pids {
		if !alive(pid) {
			t.Errorf("%s (%d) is not running after up", name, pid)
		}
	}
	token, err := os.ReadFile(filepath.Join(stack, "token"))
	if err != nil {
		t.Fatal(err)
	}
	probe := RunBinaryEnv(t, []string{"SENTINEL_TOKEN=" + strings.TrimSpace(string(token))}, filepath.Join(binDir, "sentinel"),
		"probe", "--endpoint", "http://"+proxyAddr+"/mcp", "--format", "json", "--timeout", "60s")
	if probe.ExitCode != 0 {
		t.Errorf("probe of the broker through the stack's proxy exited %d: %s", probe.ExitCode, tail(probe.Stderr, 20))
	}

	run("down.sh")
	deadline := time.Now().Add(10 * time.Second)
	for name, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("%s (%d) still runs after down", name, pid)
		}
	}
}

// recordedPIDs reads up.sh's "name pid" lines.
func recordedPIDs(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if pid, err := strconv.Atoi(f[1]); err == nil {
			out[f[0]] = pid
		}
	}
	return out
}

// alive reports whether pid names a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
