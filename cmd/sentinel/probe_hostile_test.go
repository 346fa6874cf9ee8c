package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

// hostileHandlers answer every request in a way meant to hang or exhaust a scanner.
func hostileHandlers() map[string]http.HandlerFunc {
	chunk := strings.Repeat("x", 64<<10)
	return map[string]http.HandlerFunc{
		"endless SSE": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			for i := 0; i < 100000 && r.Context().Err() == nil; i++ {
				if _, err := io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"); err != nil {
					return
				}
			}
		},
		"100 MB body": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			for i := 0; i < 1600 && r.Context().Err() == nil; i++ {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		},
		"invalid JSON": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":`)
		},
		"slow drip": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for stop := time.Now().Add(3 * time.Second); r.Context().Err() == nil && time.Now().Before(stop); {
				_, _ = io.WriteString(w, ": drip\n")
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(50 * time.Millisecond):
				}
			}
		},
	}
}

// TestProbeOfHostileServersComeBackWithAVerdict runs the real command against servers that
// stream forever, send 100 MB, send broken JSON or drip bytes: each scan must come back (within
// the command's own --timeout, with a bound on the test so a hang fails instead of stalling the
// suite) and never with 0 or a crash. A server that answers JSON-RPC but fails the era gate exits
// 1 and grades discover-implemented; one whose answers never carry a JSON-RPC message is not an
// MCP endpoint, and the scan could not run (2).
func TestProbeOfHostileServersComeBackWithAVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four whole scans; skipped under -short")
	}
	want := map[string]struct {
		code int
		in   string
	}{
		"endless SSE":  {cli.ExitFail, "discover-implemented"},
		"100 MB body":  {cli.ExitCannotRun, "not an MCP endpoint"},
		"invalid JSON": {cli.ExitCannotRun, "not an MCP endpoint"},
		"slow drip":    {cli.ExitCannotRun, "not an MCP endpoint"},
	}
	for name, h := range hostileHandlers() {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			type res struct {
				code           int
				stdout, stderr string
			}
			done := make(chan res, 1)
			go func() {
				code, stdout, stderr := runCLI(t, "probe", "--endpoint", srv.URL, "--timeout", "30s", "--format", "json")
				done <- res{code, stdout, stderr}
			}()
			select {
			case r := <-done:
				w := want[name]
				if r.code != w.code {
					t.Errorf("exit %d, want %d\nstderr: %.1500s", r.code, w.code, r.stderr)
				}
				if !strings.Contains(r.stdout, w.in) {
					t.Errorf("the report does not say %q:\n%.1500s", w.in, r.stdout)
				}
			case <-time.After(2 * time.Minute):
				t.Fatal("sentinel probe did not return within two minutes of a 30s --timeout")
			}
		})
	}
}
