package e2e

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// EnvThirdParty names the folder scripts/deps.sh installs the third-party Node servers into.
const EnvThirdParty = "SENTINEL_THIRDPARTY"

// StartNodeServer runs a third-party Node server script (relative to SENTINEL_THIRDPARTY) with
// Node 22, its listen() bound to 127.0.0.1 on a free port by the loopback preload, and returns it
// once the port accepts connections. path is the MCP endpoint's path.
func StartNodeServer(t testing.TB, script, path string, args ...string) *Server {
	t.Helper()
	dir := RequireTool(t, EnvThirdParty)
	node := filepath.Join(RequireTool(t, EnvNodeBin), "node")
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(node, append([]string{"-r", filepath.Join(dir, "loopback.cjs"), filepath.Join(dir, script)}, args...)...)
	cmd.Env = append(os.Environ(), "SENTINEL_LISTEN_PORT="+port, "PORT="+port)
	srv := &Server{URL: "http://" + addr + path, Stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = srv.Stderr, srv.Stderr
	configureChild(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", script, err)
	}
	srv.PID = cmd.Process.Pid
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stop(cmd, exited) })
	for deadline := time.Now().Add(ReadyTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("%s exited; output:\n%s", script, srv.Stderr.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return srv
		}
	}
	t.Fatalf("%s did not accept connections on %s within %v", script, addr, ReadyTimeout)
	return nil
}

// legacyMustFailures are the MUST failures a scan reports on 2025-11-25 servers that answer
// server/discover with 400 and -32000, each demonstrated by hand below with one request, so the
// pin never rests on the prober's word. Nothing else at MUST level may fail.
var legacyMustFailures = map[string]func(t *testing.T, url string) (bool, string){
	// basic/lifecycle: servers MUST implement server/discover.
	"discover-implemented": demonstrateNoDiscover,
	// basic: servers MUST support the base protocol's request/response pattern of this revision.
	"support-message-patterns": demonstrateNoDiscover,
	// basic#error-responses: the error's id MUST be the request's unless it could not be read; the
	// body here is a well-formed request with id 1, and the error says id null.
	"error-id-echo": func(t *testing.T, url string) (bool, string) {
		ex := send(t, url, wire.NewCall("server/discover", nil, wire.WithID(1)))
		r := ex.Reply()
		return r != nil && r.Error != nil && r.IDString() != "1", ex.Summary() + " id " + r.IDString()
	},
	// streamable-http#server-validation: a header that differs from _meta protocolVersion MUST be
	// refused with 400 / -32020; these servers serve it.
	"pv-header-body-match": func(t *testing.T, url string) (bool, string) {
		opts := []wire.CallOption{wire.WithHeader(wire.HeaderProtocolVersion, "2025-11-25")}
		if sid := legacySessionID(t, url); sid != "" {
			opts = append(opts, wire.WithHeader(wire.HeaderSessionID, sid))
		}
		ex := send(t, url, wire.NewCall("ping", nil, opts...))
		return ex.Status() == http.StatusOK && ex.Reply() != nil && ex.Reply().Error == nil, ex.Summary()
	},
}

// legacySessionID opens a 2025-11-25 session as its clients do (initialize, then
// notifications/initialized) and returns the Mcp-Session-Id it minted ("" when none).
func legacySessionID(t *testing.T, url string) string {
	t.Helper()
	init := wire.RequestSpec{Method: http.MethodPost, Header: http.Header{wire.HeaderContentType: {wire.ContentTypeJSON}, wire.HeaderAccept: {wire.AcceptBoth}},
		Body: []byte(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`)}
	ex := send(t, url, init)
	sid := ex.Response.Header.Get(wire.HeaderSessionID)
	done := init.Clone()
	done.Body = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	done.Header.Set(wire.HeaderProtocolVersion, "2025-11-25")
	if sid != "" {
		done.Header.Set(wire.HeaderSessionID, sid)
	}
	send(t, url, done)
	return sid
}

// demonstrateNoDiscover sends a well-formed server/discover: it is refused.
func demonstrateNoDiscover(t *testing.T, url string) (bool, string) {
	ex := send(t, url, wire.NewCall("server/discover", nil))
	code, isErr := ex.ErrorCode()
	return ex.Status() == http.StatusBadRequest && isErr && code == -32000, ex.Summary()
}

// TestThirdPartyLegacyServersFailOnlyWhatARequestShows scans server-everything 2026.8.31 and
// 2025.9.25 and the TypeScript SDK v1 stateless example. They speak 2025-11-25 and refuse every
// request carrying the 2026-07-28 header, so every probe of the new era's negative rules would
// be refused for that reason alone; the scan must say so (indeterminate), and fail at MUST level
// only what one request demonstrates.
func TestThirdPartyLegacyServersFailOnlyWhatARequestShows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three Node servers and scans them; skipped under -short")
	}
	servers := []struct {
		name, script string
		extraMust    map[string]func(t *testing.T, url string) (bool, string)
	}{
		{"server-everything 2026.8.31", "everything-2026.8.31/node_modules/@modelcontextprotocol/server-everything/dist/index.js", nil},
		{"server-everything 2025.9.25", "everything-2025.9.25/node_modules/@modelcontextprotocol/server-everything/dist/streamableHttp.js", nil},
		{"TypeScript SDK v1 stateless example", "everything-2026.8.31/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStatelessStreamableHttp.js",
			map[string]func(t *testing.T, url string) (bool, string){
				// It serves initialize sent with a 2026-07-28 envelope, which this revision removed.
				"removed-methods-absent": func(t *testing.T, url string) (bool, string) {
					ex := send(t, url, wire.NewCall("initialize", map[string]any{"protocolVersion": wire.ProtocolVersion, "capabilities": map[string]any{},
						"clientInfo": map[string]any{"name": "curl", "version": "1"}}))
					return ex.Status() == http.StatusOK && ex.Reply() != nil && ex.Reply().Error == nil, ex.Summary()
				},
			}},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			var args []string
			if strings.HasSuffix(s.script, "index.js") {
				args = []string{"streamableHttp"}
			}
			srv := StartNodeServer(t, s.script, "/mcp", args...)
			code, res := scanJSON(t, srv.URL)
			if code != 1 || !strings.HasPrefix(res.Era, "legacy") {
				t.Fatalf("exit %d, era %q: want 1 and a legacy era", code, res.Era)
			}
			pinned := map[string]func(t *testing.T, url string) (bool, string){}
			for k, v := range legacyMustFailures {
				pinned[k] = v
			}
			for k, v := range s.extraMust {
				pinned[k] = v
			}
			var failed []string
			for _, rr := range res.Rules {
				if rr.Status != rules.Fail || !rr.Rule.Level.Mandatory() {
					continue
				}
				failed = append(failed, rr.Rule.Name)
				if _, ok := pinned[rr.Rule.Name]; !ok {
					t.Errorf("unpinned MUST failure %s: %s", rr.Rule.Name, rr.Observed())
				}
			}
			for name, demonstrate := range pinned {
				if !slices.Contains(failed, name) {
					t.Errorf("pinned %s did not fail", name)
				}
				if shows, got := demonstrate(t, srv.URL); !shows {
					t.Errorf("%s is not demonstrated by hand: %s", name, got)
				}
			}
			for _, name := range []string{"header-names-case-insensitive", "header-value-ows", "client-info-optional", "concurrent-streams", "resource-not-found-32602"} {
				if got := statusNames(res, rules.Fail); slices.Contains(got, name) {
					t.Errorf("%s failed, though the control request is refused too", name)
				}
			}
		})
	}
}
