package active

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcp-sentinel/sentinel/wire"
)

// fakeServer is a small 2026-07-28 server written for these tests only (the harness never imports
// fixtures): it validates in the order the digest suggests and serves discover, tools/list and
// prompts/get. Each bug field switches one validation off so a test can show the probe catches it.
type fakeServer struct {
	skipMethodHeader bool // accept a missing or mismatched Mcp-Method
	skipOrigin       bool // accept any Origin
	noDecodeName     bool // compare Mcp-Name without decoding base64
}

func (f *fakeServer) start(t *testing.T) *httptest.Server { return f.startB(t) }

func (f *fakeServer) startB(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return srv
}

func writeErr(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	body := map[string]any{"jsonrpc": "2.0", "error": e}
	if id != nil {
		body["id"] = id
	}
	json.NewEncoder(w).Encode(body)
}

func writeResult(w http.ResponseWriter, id json.RawMessage, result map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	result["resultType"] = "complete"
	result["_meta"] = map[string]any{wire.MetaServerInfo: map[string]any{"name": "fake", "version": "1"}}
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://allowed.example" && !f.skipOrigin {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m, err := wire.DecodeMessage(body)
	if err != nil {
		writeErr(w, 400, nil, wire.CodeParseError, "parse error", nil)
		return
	}
	if m.IsNotification() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !m.IsRequest() {
		writeErr(w, 400, nil, wire.CodeInvalidRequest, "invalid request", nil)
		return
	}
	pv, okPV := m.MetaString(wire.MetaProtocolVersion)
	if _, okCaps := m.Meta()[wire.MetaClientCapabilities]; !okPV || !okCaps {
		if m.Method == "initialize" {
			writeErr(w, 400, m.ID, wire.CodeUnsupportedVersion, "this server speaks only 2026-07-28",
				map[string]any{"supported": []string{wire.ProtocolVersion}, "requested": "2025-11-25"})
			return
		}
		writeErr(w, 400, m.ID, wire.CodeInvalidParams, "missing _meta", nil)
		return
	}
	if h := r.Header.Get(wire.HeaderProtocolVersion); h != pv {
		writeErr(w, 400, m.ID, wire.CodeHeaderMismatch, "protocol version header mismatch", nil)
		return
	}
	if pv != wire.ProtocolVersion {
		writeErr(w, 400, m.ID, wire.CodeUnsupportedVersion, "unsupported version; supported: 2026-07-28",
			map[string]any{"supported": []string{wire.ProtocolVersion}, "requested": pv})
		return
	}
	if r.Header.Get(wire.HeaderMethod) != m.Method && !f.skipMethodHeader {
		writeErr(w, 400, m.ID, wire.CodeHeaderMismatch, "Mcp-Method mismatch", nil)
		return
	}
	switch m.Method {
	case "server/discover":
		writeResult(w, m.ID, map[string]any{"supportedVersions": []string{wire.ProtocolVersion},
			"capabilities": map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}}, "ttlMs": 0, "cacheScope": "public"})
	case "tools/list":
		writeResult(w, m.ID, map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"},
			"annotations": map[string]any{"readOnlyHint": true}}}, "ttlMs": 0, "cacheScope": "public"})
	case "prompts/get":
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Params, &p)
		h := r.Header.Get(wire.HeaderName)
		if !f.noDecodeName {
			var err error
			if h, _, err = wire.DecodeHeaderValue(h); err != nil {
				writeErr(w, 400, m.ID, wire.CodeHeaderMismatch, "bad base64", nil)
				return
			}
		}
		if h == "" || h != p.Name {
			writeErr(w, 400, m.ID, wire.CodeHeaderMismatch, fmt.Sprintf("Mcp-Name %q does not match %q", h, p.Name), nil)
			return
		}
		writeErr(w, 200, m.ID, wire.CodeInvalidParams, "unknown prompt", nil)
	default:
		writeErr(w, 404, m.ID, wire.CodeMethodNotFound, "method not found", nil)
	}
}
