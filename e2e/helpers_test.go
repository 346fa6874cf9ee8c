package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Environment variables scripts/deps.sh prints and `make test` exports.
const (
	EnvNodeBin          = "SENTINEL_NODE_BIN"
	EnvConformance      = "SENTINEL_CONFORMANCE"
	EnvEverythingServer = "SENTINEL_EVERYTHING_SERVER"
	EnvPGBin            = "SENTINEL_PG_BIN"
)

// Deadlines every helper honours.
const (
	BuildTimeout = 5 * time.Minute
	RunTimeout   = 2 * time.Minute
)

// binDir holds the binaries built in this run; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sentinel-e2e-bin-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: creating the binary directory: %v\n", err)
		os.Exit(2)
	}
	binDir = dir
	// Brokers and sentinels started by the tests keep their state folder (the audit key, the
	// checkpoint files named after each database) here, removed with the binaries, not in the
	// user's home folder.
	if err := os.Setenv("SENTINEL_STATE_DIR", filepath.Join(dir, "state")); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: setting the state folder: %v\n", err)
		os.Exit(2)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// builds remembers one build per command, so parallel tests build each binary once.
var builds sync.Map // name -> *build

type build struct {
	once sync.Once
	path string
	err  error
}

// moduleRoot is the repository root, relative to this package.
const moduleRoot = ".."

// BuildBinary builds ./cmd/<name> (for sentinel, with sentinel-proxy beside it) once per test run, as `make build` does (static, trimmed, no
// symbol table: what is measured is what ships), and returns the binary's path. A build failure
// fails the test with the compiler's output.
func BuildBinary(t testing.TB, name string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(name, &build{})
	b := v.(*build)
	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
		defer cancel()
		out := filepath.Join(binDir, name)
		pkgs := []string{"./cmd/" + name}
		if name == "sentinel" {
			// sentinel hands proxy, shim, tui, findings and ca to sentinel-proxy, found next to it.
			pkgs = append(pkgs, "./cmd/sentinel-proxy")
		}
		cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-trimpath", "-ldflags", "-s -w", "-o", binDir + string(filepath.Separator)}, pkgs...)...)
		cmd.Dir = moduleRoot
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build ./cmd/%s: %w\n%s", name, err, msg)
			return
		}
		b.path = out
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// RequireTool returns the path in environment variable env. When it is unset or the path does
// not exist, the test fails with what to do, or is skipped under -short.
func RequireTool(t testing.TB, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("%s is not set or does not exist (%q): run `make test`, which installs it with scripts/deps.sh and exports it", env, p)
	if testing.Short() {
		t.Skip(msg)
	}
	t.Fatal(msg)
	return ""
}

// Result is what a finished process left.
type Result struct {
	ExitCode int
	Stdout   string
	Stderr   string
	// CPU is the process's user plus system time: on a shared machine it is less swayed by
	// the others' load than the wall-clock a measurement times too.
	CPU time.Duration
}

// RunBinary runs bin with args to completion (at most RunTimeout) and returns its exit code and
// output. Only a failure to start, or the deadline, fails the test: a non-zero exit is a result.
func RunBinary(t testing.TB, bin string, args ...string) Result {
	t.Helper()
	return RunBinaryEnv(t, nil, bin, args...)
}

// RunBinaryEnv is RunBinary with extra environment entries (KEY=VALUE) added to the test's own.
func RunBinaryEnv(t testing.TB, env []string, bin string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if ps := cmd.ProcessState; ps != nil {
		res.CPU = ps.UserTime() + ps.SystemTime()
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %v: still running after %v\nstderr:\n%s", bin, args, RunTimeout, res.Stderr)
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %s %v: %v", bin, args, err)
	}
	return res
}
