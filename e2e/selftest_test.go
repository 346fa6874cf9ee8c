package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStartEverythingServerAnswersDiscover checks the helper the prober's end-to-end tests use
// for a third-party server: it starts, is reachable at URL, and speaks 2026-07-28.
func TestStartEverythingServerAnswersDiscover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Go SDK everything-server; skipped under -short")
	}
	srv := StartEverythingServer(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(WithDeadline(t, 10*time.Second), http.MethodPost, srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", srv.URL, err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `"supportedVersions"`) {
		t.Errorf("discover: %d %s, want 200 with supportedVersions", resp.StatusCode, got)
	}
}
