package e2e

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ReadyTimeout bounds how long a server may take to print its ready line (or, for servers that
// print none, to accept a connection).
const ReadyTimeout = 30 * time.Second

// readyPrefix starts the line the fixture and broker print once they listen.
const readyPrefix = "listening on "

// Server is a server process started for one test.
type Server struct {
	// URL is the MCP endpoint, e.g. http://127.0.0.1:40123/mcp.
	URL string
	// PID is the process id; Cleanup stops exactly this process.
	PID int
	// Stderr collects the process's stderr (safe to read at any time).
	Stderr *syncBuffer
}

// StartFixture starts `fixture serve <name> --listen 127.0.0.1:0` plus extra flags and returns it
// once it printed its URL.
func StartFixture(t testing.TB, name string, extra ...string) *Server {
	t.Helper()
	return StartServer(t, BuildBinary(t, "fixture"), append([]string{"serve", name, "--listen", "127.0.0.1:0"}, extra...)...)
}

// StartServer starts bin with args, waits at most ReadyTimeout for a stdout line
// "listening on URL", and stops the process by PID (SIGTERM, then SIGKILL after 5 s) when the test
// ends. A server that exits or stays silent fails the test with its stderr.
func StartServer(t testing.TB, bin string, args ...string) *Server {
	t.Helper()
	return StartServerEnv(t, nil, bin, args...)
}

// StartServerEnv is StartServer with extra environment variables (KEY=VALUE) added to the
// test's own environment.
func StartServerEnv(t testing.TB, env []string, bin string, args ...string) *Server {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	srv := &Server{Stderr: &syncBuffer{}}
	cmd.Stderr = srv.Stderr
	configureChild(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	srv.PID = cmd.Process.Pid
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stop(cmd, exited) })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s stderr:\n%s", bin, srv.Stderr.String())
		}
	})

	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), readyPrefix); ok {
				lines <- strings.TrimSpace(u)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout) // keep the pipe drained
	}()
	select {
	case srv.URL = <-lines:
		return srv
	case <-exited:
		t.Fatalf("%s %v exited before it was ready; stderr:\n%s", bin, args, srv.Stderr.String())
	case <-time.After(ReadyTimeout):
		t.Fatalf("%s %v printed no %q line within %v; stderr:\n%s", bin, args, readyPrefix, ReadyTimeout, srv.Stderr.String())
	}
	return nil
}

// StartEverythingServer starts the Go SDK's everything-server (SENTINEL_EVERYTHING_SERVER) on a
// free loopback port. It prints no ready line, so readiness is its port accepting connections.
// Its endpoint is the root path: URL ends in "/".
func StartEverythingServer(t testing.TB, extra ...string) *Server {
	t.Helper()
	bin := RequireTool(t, EnvEverythingServer)
	addr := freeAddr(t)
	cmd := exec.Command(bin, append([]string{"-http=" + addr}, extra...)...)
	srv := &Server{URL: "http://" + addr + "/", Stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = io.Discard, srv.Stderr
	configureChild(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	srv.PID = cmd.Process.Pid
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stop(cmd, exited) })
	deadline := time.Now().Add(ReadyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("everything-server exited; stderr:\n%s", srv.Stderr.String())
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return srv
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("everything-server did not accept connections on %s within %v", addr, ReadyTimeout)
	return nil
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// stop ends the process it started: SIGTERM, then SIGKILL if it has not exited in 5 s.
func stop(cmd *exec.Cmd, exited <-chan struct{}) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WithDeadline returns a context that ends after d or when the test ends, for tests that talk to
// a server directly.
func WithDeadline(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
