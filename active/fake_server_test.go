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
	skipParamCheck   bool // accept Mcp-Param-* headers without comparing them
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
		writeResult(w, m.ID, map[string]any{"tools": []any{
			map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}},
			map[string]any{"name": "region", "annotations": map[string]any{"readOnlyHint": true}, "inputSchema": map[string]any{"type": "object",
				"properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
					"level": map[string]any{"type": "integer", "x-mcp-header": "Level"}}}},
		}, "ttlMs": 0, "cacheScope": "public"})
	case "tools/call":
		f.toolsCall(w, r, m)
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

// toolsCall validates the Mcp-Name and Mcp-Param-* headers of a call to "region" and answers a
// text result; any other tool is unknown.
func (f *fakeServer) toolsCall(w http.ResponseWriter, r *http.Request, m *wire.Message) {
	var p struct {
		Name      string                     `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	json.Unmarshal(m.Params, &p)
	if h, _, err := wire.DecodeHeaderValue(r.Header.Get(wire.HeaderName)); err != nil || h != p.Name {
		writeErr(w, 400, m.ID, wire.CodeHeaderMismatch, "Mcp-Name mismatch", nil)
		return
	}
	if p.Name != "region" {
		writeErr(w, 200, m.ID, wire.CodeInvalidParams, "unknown tool", nil)
		return
	}
	for header, arg := range map[string]string{"Region": "region", "Level": "level"} {
		raw, ok := p.Arguments[arg]
		vals := r.Header.Values(wire.ParamHeader(header))
		if f.skipParamCheck || !ok || string(raw) == "null" {
			continue
		}
		if len(vals) != 1 {
			writeErr(w, 400, m.ID, wire.CodeHeaderMismatch, "missing "+header, nil)
			return
		}
		for _, c := range []byte(vals[0]) {
			if c < 0x20 || c >= 0x7f {
				writeErr(w, 400, m.ID, wire.CodeHeaderMismatch, "invalid characters in "+header, nil)
				return
			}
		}
		v, _, err := wire.DecodeHeaderValue(vals[0])
		var body any
		json.Unmarshal(raw, &body)
		var hv any = v
		if _, isNum := body.(float64); isNum {
			var n float64
			if _, e := fmt.Sscan(v, &n); e == nil {
				hv = n
			}
		}
		if err != nil || hv != body {
			writeErr(w, 400, m.ID, wire.CodeHeaderMismatch, "Mcp-Param-"+header+" mismatch", nil)
			return
		}
	}
	writeResult(w, m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}})
}
