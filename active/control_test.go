package active

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// refuses2026 is shaped like server-everything 2026.8.31: a 2025-11-25 server with sessions that
// answers every request carrying MCP-Protocol-Version: 2026-07-28 with 400 and -32000, whatever
// else the request says, and serves the same requests without that header.
func refuses2026(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m, err := wire.DecodeMessage(body)
	if r.Method != http.MethodPost || err != nil {
		writeErr(w, http.StatusMethodNotAllowed, nil, -32000, "Method not allowed.", nil)
		return
	}
	if r.Header.Get(wire.HeaderProtocolVersion) == wire.ProtocolVersion {
		writeErr(w, http.StatusBadRequest, nil, -32000, "Bad Request: Unsupported protocol version: 2026-07-28", nil)
		return
	}
	if m.Method == "initialize" {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		version := "2025-11-25"
		if p.ProtocolVersion == "2025-03-26" {
			version = p.ProtocolVersion // it serves clients older than the header, too
		}
		w.Header().Set(wire.HeaderSessionID, "s-2026")
		legacyResult(w, m.ID, map[string]any{"protocolVersion": version,
			"capabilities": map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}, "resources": map[string]any{}},
			"serverInfo":   map[string]any{"name": "everything", "version": "2026.8.31"}})
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch m.Method {
	case "ping":
		legacyResult(w, m.ID, map[string]any{})
	case "prompts/list":
		legacyResult(w, m.ID, map[string]any{"prompts": []any{map[string]any{"name": "args-prompt",
			"arguments": []any{map[string]any{"name": "city", "required": true}}}}})
	default:
		writeErr(w, http.StatusOK, m.ID, wire.CodeMethodNotFound, "Method not found", nil)
	}
}

// legacyResult writes a 2025-era result: no resultType, no _meta.
func legacyResult(w http.ResponseWriter, id json.RawMessage, result map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// TestALegacyServerIsNotFailedForWhatItsControlRequestGetsToo: a server that refuses the
// 2026-07-28 envelope as such refuses a lower-case header name, a padded header value, a request
// without clientInfo, concurrent requests and a read of a missing resource for that reason alone.
// Those refusals say nothing about the rules, so they are indeterminate, saying why; and a prompt
// list the server refused proves no absence, so the prompt-argument rules are indeterminate, not
// n/a.
func TestALegacyServerIsNotFailedForWhatItsControlRequestGetsToo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(refuses2026))
	defer srv.Close()
	out := scan(t, srv.URL, Options{})
	if !out.Target.LegacySession {
		t.Fatalf("era %q: want a legacy session", out.Result.Era)
	}
	for _, name := range []string{"header-names-case-insensitive", "header-value-ows", "client-info-optional",
		"concurrent-streams", "resource-not-found-32602", "mcp-method-required", "unknown-prompt-32602"} {
		if got := statusOf(t, out.Result, name); got != rules.Indeterminate {
			t.Errorf("%s = %s, want indeterminate: the control request was refused too", name, got)
		}
	}
	for _, name := range []string{"missing-prompt-args-32602", "validate-prompt-args"} {
		if got := statusOf(t, out.Result, name); got != rules.Indeterminate {
			t.Errorf("%s = %s, want indeterminate: prompts/list was refused, which proves no absence", name, got)
		}
	}
	for _, name := range []string{"ignore-session-id", "get-delete-405", "ignore-last-event-id"} {
		if got := statusOf(t, out.Result, name); got != rules.NotApplicable {
			t.Errorf("%s = %s, want n/a: the clause addresses servers that support only this revision", name, got)
		}
	}
	if got := statusOf(t, out.Result, "pv-header-required"); got != rules.NotApplicable {
		t.Errorf("pv-header-required = %s, want n/a: a server that serves 2025-03-26 clients MAY treat a request without the header as 2025-03-26", got)
	}
	if got := statusOf(t, out.Result, "removed-methods-absent"); got == rules.Fail {
		t.Errorf("removed-methods-absent failed: a ping whose header names 2025-11-25 is 2025 traffic, and the ping with the 2026 header was refused as everything is")
	}
	if got := statusOf(t, out.Result, "discover-implemented"); got != rules.Fail {
		t.Errorf("discover-implemented = %s, want fail", got)
	}
}
