package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/proxy"
)

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func TestProxyCommandForwardsGradesAndStopsCleanly(t *testing.T) {
	const answer = `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(up.Close)
	db := filepath.Join(t.TempDir(), "f.db")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	c := proxyConfig{upstream: up.URL + "/mcp", listen: freeAddr(t), admin: freeAddr(t), db: db,
		logLevel: "error", maxBody: 1 << 20, gradingMemory: 8 << 20, workers: 1, shutdownGrace: time.Minute}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var stdout syncBuffer
	go func() { done <- runProxy(ctx, &stdout, c) }()
	t.Cleanup(cancel)

	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + c.admin + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("admin API never came up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if want := "listening on http://" + c.listen + "/mcp\n"; !strings.HasPrefix(stdout.String(), want) {
		t.Fatalf("stdout = %q, want it to start with %q", stdout.String(), want)
	}
	resp, err := http.Post("http://"+c.listen+"/mcp", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != answer {
		t.Fatalf("through `sentinel proxy`: %q, want %q", body, answer)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runProxy after cancel = %v, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("runProxy did not stop after its context ended")
	}
	// The store now holds what grading found; findings export reads it (exit 0 with gate none).
	var out strings.Builder
	err = runFindings(t.Context(), &out, findingsConfig{db: db, output: sentinelcmd.OutputOptions{Format: "json", Show: "fail"}, gate: "none", limit: -1}, time.Now())
	if cli.ExitCode(err) != 0 || !strings.Contains(out.String(), `"schema"`) {
		t.Fatalf("findings export after the run: %v\n%s", err, out.String())
	}
}

// syncBuffer is a bytes.Buffer safe for one writer goroutine and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRetentionPrunesOldRowsAndStopsWithItsContext(t *testing.T) {
	s, err := findings.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := time.Now().Add(-48 * time.Hour)
	if err := s.RecordFinding(t.Context(), findings.Finding{Target: "http://t", RuleID: "r", FirstSeen: old}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { prune(ctx, s, 24*time.Hour, slog.New(slog.DiscardHandler)); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		fs, _ := s.Findings(t.Context(), findings.Filter{})
		if len(fs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a 24h retention left %d findings from 48h ago", len(fs))
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("prune did not return after its context ended")
	}
}

func TestProcessorsAddOnePerWorkerUnlessUserChose(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOMAXPROCS" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name           string
		cores, workers int
		gomaxprocs     string
		want           int
	}{
		{"two cores, one worker", 2, 1, "", 3},
		{"two cores, three workers", 2, 3, "", 5},
		{"workers unset means the default", 4, 0, "", 4 + proxy.DefaultWorkers},
		{"no core reported still counts one", 0, 1, "", 2},
		{"GOMAXPROCS set by the user wins", 2, 1, "2", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := processors(tt.cores, tt.workers, env(tt.gomaxprocs)); got != tt.want {
				t.Errorf("processors(%d, %d, GOMAXPROCS=%q) = %d, want %d", tt.cores, tt.workers, tt.gomaxprocs, got, tt.want)
			}
		})
	}
}
