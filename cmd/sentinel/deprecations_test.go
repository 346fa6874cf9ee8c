package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/wire"
)

// runDeprecationsCmd runs `sentinel deprecations` in-process with the scan replaced, and returns
// stdout and the exit code.
func runDeprecationsCmd(t *testing.T, scan scanFunc, args ...string) (string, int) {
	t.Helper()
	savedScan, savedClock := debtScan, debtClock
	debtScan = scan
	debtClock = func() time.Time { return time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { debtScan, debtClock = savedScan, savedClock })
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"deprecations"}, args...))
	root.SilenceErrors, root.SilenceUsage = true, true
	err := root.ExecuteContext(context.Background())
	if err != nil {
		out.WriteString("error: " + err.Error())
	}
	return out.String(), cli.ExitCode(err)
}

// scanFunc is the signature of debtScan.
type scanFunc = func(context.Context, active.Options) (*active.Output, error)

// legacyExchanges is what a scan of an initialize-era server records.
func legacyExchanges(context.Context, active.Options) (*active.Output, error) {
	return &active.Output{Result: &report.Result{}, Exchanges: legacyRecord()}, nil
}

// legacyRecord is the one exchange of legacyExchanges.
func legacyRecord() []*wire.Exchange {
	return []*wire.Exchange{{
		ID: "ex-1", Target: "http://127.0.0.1:1/mcp",
		Request: wire.Request{Method: "POST", Header: http.Header{}, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)},
		Response: &wire.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"s"}},
			Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}}}}`)},
	}}
}

func TestDeprecationsCommand(t *testing.T) {
	unreachable := func(context.Context, active.Options) (*active.Output, error) {
		return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
	}
	unauthorized := func(context.Context, active.Options) (*active.Output, error) {
		return &active.Output{Result: &report.Result{CouldNotRun: &report.CouldNotRun{
			Reason: "the endpoint requires authorization (401, WWW-Authenticate: Bearer): pass --token-file or SENTINEL_TOKEN"}}}, nil
	}
	cut := func(context.Context, active.Options) (*active.Output, error) {
		return &active.Output{Result: &report.Result{Incomplete: &report.Incomplete{Unfinished: 3, Total: 40,
			Reason: "3 of 40 probes did not finish before --timeout 2s; raise --timeout"}}, Exchanges: legacyRecord()}, nil
	}
	tests := []struct {
		name     string
		scan     scanFunc
		args     []string
		wantCode int
		wantIn   []string
	}{
		{"debt is information: exit 0 with the inventory", legacyExchanges, []string{"--endpoint", "http://127.0.0.1:1/mcp"}, cli.ExitPass,
			[]string{"initialize-era protocol", "The initialize handshake", "removable on or after 2027-07-28 (7 months from now)"}},
		{"json format", legacyExchanges, []string{"--endpoint", "http://127.0.0.1:1/mcp", "--format", "json"}, cli.ExitPass,
			[]string{`"schema": "sentinel.result/v1"`, `"deprecations": {`, `"legacyOnly": true`}},
		{"unreachable endpoint exits 2", unreachable, []string{"--endpoint", "http://127.0.0.1:1/mcp"}, cli.ExitCannotRun,
			[]string{"connection refused"}},
		{"an endpoint that wants a token exits 2, not 'nothing deprecated'", unauthorized, []string{"--endpoint", "http://127.0.0.1:1/mcp"}, cli.ExitCannotRun,
			[]string{"requires authorization", "--token-file or SENTINEL_TOKEN"}},
		{"an incomplete scan prints the partial inventory and exits 2", cut, []string{"--endpoint", "http://127.0.0.1:1/mcp"}, cli.ExitCannotRun,
			[]string{"The initialize handshake", "scan incomplete: 3 of 40 probes", "partial"}},
		{"missing endpoint exits 2", legacyExchanges, nil, cli.ExitCannotRun, []string{"endpoint"}},
		{"bad format exits 2", legacyExchanges, []string{"--endpoint", "http://127.0.0.1:1/mcp", "--format", "yaml"}, cli.ExitCannotRun, []string{"--format"}},
		{"bad header exits 2", legacyExchanges, []string{"--endpoint", "http://127.0.0.1:1/mcp", "--header", "nocolon"}, cli.ExitCannotRun, []string{"--header"}},
		{"not a URL exits 2", legacyExchanges, []string{"--endpoint", "127.0.0.1/mcp"}, cli.ExitCannotRun, []string{"--endpoint"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runDeprecationsCmd(t, tt.scan, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d:\n%s", code, tt.wantCode, out)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}

// TestDeprecationsPassesFlags proves headers, the token (from --token-file and from
// SENTINEL_TOKEN, never echoed) and both timeouts reach the scan.
func TestDeprecationsPassesFlags(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("sekret-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		env       string
		args      []string
		wantToken string
	}{
		{"--token-file", "", []string{"--token-file", tokenFile}, "sekret-from-file"},
		{"SENTINEL_TOKEN", "sekret-from-env", nil, "sekret-from-env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(TokenEnv, tt.env)
			var got active.Options
			scan := func(_ context.Context, o active.Options) (*active.Output, error) {
				got = o
				return &active.Output{Result: &report.Result{}}, nil
			}
			args := append([]string{"--endpoint", "http://127.0.0.1:1/mcp", "--header", "X-Tenant: a", "--timeout", "5s", "--request-timeout", "3s", "--format", "json"}, tt.args...)
			out, code := runDeprecationsCmd(t, scan, args...)
			if code != cli.ExitPass {
				t.Fatalf("exit %d: %s", code, out)
			}
			if got.Header.Get("X-Tenant") != "a" || got.Header.Get("Authorization") != "Bearer "+tt.wantToken ||
				got.Timeout != 5*time.Second || got.Limits.ReadTimeout != 3*time.Second {
				t.Errorf("scan got header %v, timeout %v, request timeout %v", got.Header, got.Timeout, got.Limits.ReadTimeout)
			}
			if !slices.Contains(got.Secrets, tt.wantToken) {
				t.Errorf("the token is not among the secrets the scan redacts: %v", len(got.Secrets))
			}
			if strings.Contains(out, tt.wantToken) {
				t.Error("the token was printed")
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
		})
	}
}

// legacyHandler is a 2025-06-18 server: it answers initialize (with a session id and the logging
// capability) and rejects everything else the way such servers do.
func legacyHandler(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&msg)
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost && msg.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", "legacy-session-1")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{}},"serverInfo":{"name":"old","version":"1"}}}`))
		return
	}
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`))
}

// TestDeprecationsAgainstServers runs the real scan against loopback servers: a legacy-only
// server yields its migration debt and exit 0; nothing listening, a server that wants a token
// and a web page yield exit 2, never "no deprecated feature in use".
func TestDeprecationsAgainstServers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a full scan")
	}
	srv := httptest.NewServer(http.HandlerFunc(legacyHandler))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer locked.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>Welcome</body></html>"))
	}))
	defer page.Close()
	tests := []struct {
		name     string
		endpoint string
		wantCode int
		wantIn   []string
	}{
		{"legacy server", srv.URL + "/mcp", cli.ExitPass, []string{"initialize-era protocol", "The initialize handshake", "Mcp-Session-Id", "Logging"}},
		{"nothing listening", closedURL + "/mcp", cli.ExitCannotRun, []string{"error:"}},
		{"an endpoint that wants a token", locked.URL + "/mcp", cli.ExitCannotRun, []string{"requires authorization (401", "--token-file or SENTINEL_TOKEN"}},
		{"a web page", page.URL + "/", cli.ExitCannotRun, []string{"not an MCP endpoint: POST / → 200 text/html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runDeprecationsCmd(t, debtScan, "--endpoint", tt.endpoint, "--timeout", "20s")
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d:\n%s", code, tt.wantCode, out)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}
