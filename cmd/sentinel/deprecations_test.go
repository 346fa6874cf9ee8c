package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/wire"
)

// runDeprecationsCmd runs `sentinel deprecations` in-process with the scan replaced, and returns
// stdout and the exit code.
func runDeprecationsCmd(t *testing.T, scan func(context.Context, string, http.Header, string, time.Duration) ([]*wire.Exchange, error), args ...string) (string, int) {
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

// legacyExchanges is what a scan of an initialize-era server records.
func legacyExchanges(context.Context, string, http.Header, string, time.Duration) ([]*wire.Exchange, error) {
	return []*wire.Exchange{{
		ID: "ex-1", Target: "http://127.0.0.1:1/mcp",
		Request: wire.Request{Method: "POST", Header: http.Header{}, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)},
		Response: &wire.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"s"}},
			Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}}}}`)},
	}}, nil
}

func TestDeprecationsCommand(t *testing.T) {
	unreachable := func(context.Context, string, http.Header, string, time.Duration) ([]*wire.Exchange, error) {
		return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
	}
	tests := []struct {
		name     string
		scan     func(context.Context, string, http.Header, string, time.Duration) ([]*wire.Exchange, error)
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

// TestDeprecationsPassesFlags proves headers, the token and the timeout reach the scan.
func TestDeprecationsPassesFlags(t *testing.T) {
	var gotHeader http.Header
	var gotToken string
	var gotTimeout time.Duration
	scan := func(ctx context.Context, _ string, h http.Header, token string, timeout time.Duration) ([]*wire.Exchange, error) {
		gotHeader, gotToken, gotTimeout = h, token, timeout
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the scan context has no deadline")
		}
		return nil, nil
	}
	out, code := runDeprecationsCmd(t, scan, "--endpoint", "http://127.0.0.1:1/mcp", "--header", "X-Tenant: a", "--token", "sekret", "--timeout", "5s", "--format", "json")
	if code != cli.ExitPass {
		t.Fatalf("exit %d: %s", code, out)
	}
	if gotHeader.Get("X-Tenant") != "a" || gotToken != "sekret" || gotTimeout != 5*time.Second {
		t.Errorf("scan got header %v, token %q, timeout %v", gotHeader, gotToken, gotTimeout)
	}
	if strings.Contains(out, "sekret") {
		t.Error("the token was printed")
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
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
// server yields its migration debt and exit 0; nothing listening yields exit 2.
func TestDeprecationsAgainstServers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a full scan")
	}
	srv := httptest.NewServer(http.HandlerFunc(legacyHandler))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	tests := []struct {
		name     string
		endpoint string
		wantCode int
		wantIn   []string
	}{
		{"legacy server", srv.URL + "/mcp", cli.ExitPass, []string{"initialize-era protocol", "The initialize handshake", "Mcp-Session-Id", "Logging"}},
		{"nothing listening", closedURL + "/mcp", cli.ExitCannotRun, []string{"error:"}},
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
