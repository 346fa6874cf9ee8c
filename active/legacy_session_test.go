package active

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// legacyServer is a 2025-11-25 server written for these tests: initialize mints a session, every
// other request needs it (400 without, 404 for an unknown one), headers other than the session
// are never read, ping answers, server/discover is an unknown method.
type legacyServer struct {
	mu       sync.Mutex
	sessions map[string]bool
	methods  []string // methods seen inside a session
}

func (l *legacyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m, err := wire.DecodeMessage(body)
	if r.Method != http.MethodPost || err != nil {
		writeErr(w, http.StatusBadRequest, nil, -32000, "Bad Request", nil)
		return
	}
	if m.Method == "initialize" {
		l.mu.Lock()
		if l.sessions == nil {
			l.sessions = map[string]bool{}
		}
		l.sessions["s-1"] = true
		l.mu.Unlock()
		w.Header().Set(wire.HeaderSessionID, "s-1")
		writeResult(w, m.ID, map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "old", "version": "1"}})
		return
	}
	sid := r.Header.Get(wire.HeaderSessionID)
	l.mu.Lock()
	known := l.sessions[sid]
	if known {
		l.methods = append(l.methods, m.Method)
	}
	l.mu.Unlock()
	switch {
	case sid == "":
		writeErr(w, http.StatusBadRequest, m.ID, -32000, "Bad Request: No valid session ID provided", nil)
	case !known:
		writeErr(w, http.StatusNotFound, m.ID, -32001, "Session not found", nil)
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "ping":
		writeResult(w, m.ID, map[string]any{})
	default:
		writeErr(w, http.StatusOK, m.ID, -32601, "Method not found", nil)
	}
}

// TestLegacySessionKeepsFailuresAndNoPasses proves the era gate's handling of a legacy server:
// the scan runs inside the session the initialize minted, a mismatched Mcp-Method that the
// server serves is a failure naming the request that really went out (ping in place of
// server/discover), the minted session id is migration debt (ignore-session-id is n/a: the
// clause addresses servers that support only this revision), and nothing passes.
func TestLegacySessionKeepsFailuresAndNoPasses(t *testing.T) {
	ls := &legacyServer{}
	srv := httptest.NewServer(ls)
	defer srv.Close()
	out := scan(t, srv.URL, Options{})
	if !out.Target.LegacySession || out.Target.SessionID != "s-1" {
		t.Fatalf("legacy session = %v, id %q; want the session the initialize minted", out.Target.LegacySession, out.Target.SessionID)
	}
	byName := map[string]rules.Status{}
	for _, rr := range out.Result.Rules {
		byName[rr.Rule.Name] = rr.Status
		if rr.Status == rules.Pass {
			t.Errorf("%s passed on a legacy server: %s", rr.Rule.Name, rr.Observed())
		}
		if rr.Rule.Name == "mcp-method-match" && !strings.Contains(rr.Observed(), "ping (in place of server/discover)") {
			t.Errorf("mcp-method-match evidence does not name the request sent: %s", rr.Observed())
		}
	}
	for _, name := range []string{"mcp-method-match", "discover-implemented"} {
		if byName[name] != rules.Fail {
			t.Errorf("%s = %s, want fail", name, byName[name])
		}
	}
	if byName["ignore-session-id"] != rules.NotApplicable {
		t.Errorf("ignore-session-id = %s, want n/a on a server that does not speak 2026-07-28", byName["ignore-session-id"])
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if len(ls.methods) == 0 {
		t.Error("no request was sent inside the legacy session")
	}
	for _, m := range ls.methods {
		if m == "server/discover" {
			t.Error("server/discover was sent inside the legacy session; ping must stand in for it")
			break
		}
	}
}

func TestStandInRewritesOnlyDiscover(t *testing.T) {
	tests := []struct {
		name, method, header, wantMethod, wantHeader string
	}{
		{"discover with its own header", "server/discover", "server/discover", "ping", "ping"},
		{"discover with a mismatched header", "server/discover", "tools/list", "ping", "tools/list"},
		{"another method", "tools/list", "tools/list", "tools/list", "tools/list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := standIn(wire.NewCall(tt.method, nil, wire.WithHeader(wire.HeaderMethod, tt.header)))
			var body struct {
				Method string `json:"method"`
			}
			if err := json.Unmarshal(spec.Body, &body); err != nil {
				t.Fatal(err)
			}
			if body.Method != tt.wantMethod || spec.Header.Get(wire.HeaderMethod) != tt.wantHeader {
				t.Errorf("method %q, Mcp-Method %q; want %q, %q", body.Method, spec.Header.Get(wire.HeaderMethod), tt.wantMethod, tt.wantHeader)
			}
		})
	}
}
