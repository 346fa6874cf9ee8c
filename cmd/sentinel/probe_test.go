package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd/cmdtest"
	"github.com/mcp-sentinel/sentinel/wire"
)

// discoverOnly answers a well-formed server/discover and refuses everything else with 400
// -32600: modern enough to pass the era gate, wrong enough to fail MUST rules. It records the
// Authorization headers it saw.
type discoverOnly struct {
	mu    sync.Mutex
	auths []string
}

func (d *discoverOnly) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	d.auths = append(d.auths, r.Header.Get("Authorization"))
	d.mu.Unlock()
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m, err := wire.DecodeMessage(body)
	w.Header().Set("Content-Type", "application/json")
	if err == nil && m.Method == "server/discover" && r.Header.Get(wire.HeaderMethod) == "server/discover" {
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
			"resultType": "complete", "supportedVersions": []string{wire.ProtocolVersion}, "capabilities": map[string]any{},
			"ttlMs": 0, "cacheScope": "public"}})
		return
	}
	w.WriteHeader(http.StatusBadRequest)
	io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`)
}

// runCLI runs the tree the binary builds for args, as main does (cmdtest.Main).
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cmdtest.Main(newRootFor(args), args...)
}

func TestProbeExitsByTheGate(t *testing.T) {
	srv := httptest.NewServer(&discoverOnly{})
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"MUST failures fail the default gate", []string{"probe", "--endpoint", srv.URL, "--timeout", "20s"}, 1},
		{"gate none never fails", []string{"scan", "--endpoint", srv.URL, "--gate", "none", "--format", "json"}, 0},
		{"a rule subset that passes", []string{"probe", "--endpoint", srv.URL, "--rule", "discover-implemented"}, 0},
		{"unreachable endpoint could not run", []string{"probe", "--endpoint", refused, "--timeout", "5s"}, 2},
		{"bad gate could not run", []string{"probe", "--endpoint", srv.URL, "--gate", "maybe"}, 2},
		{"bad format could not run", []string{"probe", "--endpoint", srv.URL, "--format", "pdf"}, 2},
		{"unknown rule could not run", []string{"probe", "--endpoint", srv.URL, "--rule", "no-such-rule"}, 2},
		{"missing endpoint could not run", []string{"probe"}, 2},
		{"zero concurrency could not run", []string{"probe", "--endpoint", srv.URL, "--concurrency", "0"}, 2},
		{"a malformed origin could not run", []string{"probe", "--endpoint", srv.URL, "--origin", "localhost:3000"}, 2},
		{"an allowed origin is a control, not an error", []string{"probe", "--endpoint", srv.URL, "--rule", "discover-implemented", "--origin", "http://localhost:3000"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout: %.2000s\nstderr: %.2000s", code, tc.want, stdout, stderr)
			}
		})
	}
}

func TestProbeTextReportListsIndeterminateRules(t *testing.T) {
	srv := httptest.NewServer(&discoverOnly{})
	defer srv.Close()
	_, stdout, _ := runCLI(t, "probe", "--endpoint", srv.URL, "--area", "headers")
	if !strings.Contains(stdout, "\nIndeterminate: ") || !strings.Contains(stdout, "--show all") {
		t.Errorf("the default text report lacks the indeterminate count or the pointer to --show all:\n%.3000s", stdout)
	}
	_, all, _ := runCLI(t, "probe", "--endpoint", srv.URL, "--area", "headers", "--show", "all")
	_, section, _ := strings.Cut(all, "\nIndeterminate: ")
	if !strings.Contains(section, "why:") || !strings.Contains(section, "] ") {
		t.Errorf("--show all does not list the indeterminate rules with why:\n%.3000s", section)
	}
}

func TestProbeNeverPrintsTheToken(t *testing.T) {
	const token = "sk-live-TOPSECRET-0123456789"
	d := &discoverOnly{}
	srv := httptest.NewServer(d)
	defer srv.Close()
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "sarif", "junit"} {
		for _, how := range [][]string{{"--token", token}, {"--token-file", tokFile}, {"--header", "Authorization: Bearer " + token}} {
			out := filepath.Join(dir, format+".out")
			args := append([]string{"probe", "--endpoint", srv.URL, "--format", format, "--out", out, "--area", "headers"}, how...)
			_, stdout, stderr := runCLI(t, args...)
			file, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("%s %s: %v (stderr %s)", format, how[0], err, stderr)
			}
			for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "file": string(file)} {
				if strings.Contains(text, token) || strings.Contains(text, "TOPSECRET") {
					t.Errorf("%s with %s: the token appears in %s", format, how[0], what)
				}
			}
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.auths) == 0 || d.auths[0] != "Bearer "+token {
		t.Errorf("the server did not receive the real token: %q", d.auths)
	}
}

func TestSecretRedactsEveryRendering(t *testing.T) {
	s := Secret{"abc-secret"}
	var b bytes.Buffer
	j, _ := json.Marshal(map[string]any{"t": s})
	b.WriteString(s.String() + " " + s.GoString() + " " + string(j) + " " + s.LogValue().String())
	if strings.Contains(b.String(), "abc-secret") || s.Reveal() != "abc-secret" {
		t.Errorf("Secret leaked: %s", b.String())
	}
}

func TestResolveTokenPrecedence(t *testing.T) {
	env := func(string) string { return "from-env" }
	if s, _ := resolveToken(probeOptions{}, env); s.Reveal() != "from-env" {
		t.Errorf("env token %q", s.Reveal())
	}
	if s, _ := resolveToken(probeOptions{token: "flag"}, env); s.Reveal() != "flag" {
		t.Errorf("flag token %q", s.Reveal())
	}
	if _, err := resolveToken(probeOptions{token: "a", tokenFile: "b"}, env); err == nil {
		t.Error("both --token and --token-file accepted")
	}
}

// The endpoint may be the one argument before --, as people type it first; it counts as
// --endpoint, so a settings file cannot override it, and a stray word or a second endpoint is
// refused with a message that says what the command takes.
func TestEndpointAsTheArgument(t *testing.T) {
	srv := httptest.NewServer(&discoverOnly{})
	defer srv.Close()
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	cfg := filepath.Join(t.TempDir(), "sentinel.yaml")
	if err := os.WriteFile(cfg, []byte("endpoint: "+other.URL+"/mcp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	upper := "HTTP://" + strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		name       string
		args       []string
		want       int
		wantOutput string
	}{
		{"probe URL", []string{"probe", srv.URL, "--rule", "discover-implemented"}, 0, "PASSED"},
		{"scan URL, flags after it", []string{"scan", "--rule", "discover-implemented", upper}, 0, "PASSED"},
		{"the argument beats the settings file", []string{"probe", srv.URL, "--config", cfg, "--rule", "discover-implemented"}, 0, "PASSED"},
		{"deprecations URL", []string{"deprecations", srv.URL}, 0, ""},
		{"the endpoint twice", []string{"probe", srv.URL, "--endpoint", srv.URL}, 2, "given twice"},
		{"a stray word", []string{"probe", "localhost:8080"}, 2, `unexpected argument "localhost:8080": give the endpoint as an http(s) URL`},
		{"two arguments", []string{"probe", srv.URL, srv.URL}, 2, "unexpected argument"},
		{"an endpoint and a command", []string{"probe", srv.URL, "--", "node", "server.js"}, 2, "not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.want, stdout, stderr)
			}
			if !strings.Contains(stdout+stderr, tc.wantOutput) {
				t.Errorf("output does not say %q\nstdout: %s\nstderr: %s", tc.wantOutput, stdout, stderr)
			}
		})
	}
}

// TestBadFlagsStopTheScanBeforeItStarts: a flag that can only be wrong is refused before the
// first request, with a message naming it, so a long scan's result is never lost to a typo
// noticed only when the report is written. The server counts what reached it: nothing may.
func TestBadFlagsStopTheScanBeforeItStarts(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"--width too narrow", []string{"--width", "-5"}, "--width -5"},
		{"--show unknown", []string{"--show", "bogus"}, `--show "bogus"`},
		{"--show unknown for a file output", []string{"--format", "json", "--out-markdown", filepath.Join(t.TempDir(), "r.md"), "--show", "some"}, `--show "some"`},
		{"--concurrency negative", []string{"--concurrency", "-3"}, "--concurrency -3"},
		{"--origin without a scheme", []string{"--origin", "localhost:3000"}, `--origin "localhost:3000"`},
		{"--origin with a path", []string{"--origin", "https://app.example.com/login"}, "--origin"},
		{"--origin with a trailing slash", []string{"--origin", "https://app.example.com/"}, "--origin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			hits := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				hits++
				mu.Unlock()
				(&discoverOnly{}).ServeHTTP(w, r)
			}))
			defer srv.Close()
			code, stdout, stderr := runCLI(t, append([]string{"probe", "--endpoint", srv.URL}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want 2 with %q on stderr\nstdout: %.1000s\nstderr: %.1000s", code, tc.want, stdout, stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			if hits != 0 {
				t.Errorf("%d requests reached the server: the flag was checked only after the scan ran", hits)
			}
		})
	}
}

func TestCheckOrigin(t *testing.T) {
	for _, ok := range []string{"", "null", "http://localhost:3000", "https://app.example.com", "http://[::1]:8080"} {
		if err := checkOrigin(ok); err != nil {
			t.Errorf("checkOrigin(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"localhost", "localhost:3000", "https://", "https://a.example/x", "https://a.example/", "https://u@a.example", "https://a.example?x=1", "https://a.example?", "https://a.example#f", "http://a b"} {
		if err := checkOrigin(bad); err == nil {
			t.Errorf("checkOrigin(%q) = nil, want an error", bad)
		}
	}
}
