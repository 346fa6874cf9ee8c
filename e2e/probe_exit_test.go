package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
)

// The exit-code contract under every failure mode, through the real binaries: 0 the target passed
// the gate, 1 it failed, 2 the scan could not run or did not finish, each with a message that
// says what was seen and what to do.

// delayed is a reverse proxy to target that holds every request for d, as a slow network or a
// loaded server does.
func delayed(t *testing.T, target string, d time.Duration) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0) // cut requests are the point; their errors are noise
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path
}

// TestAScanThatRunsOutOfTimeExitsTwoWithItsPartialReport is the false green that started the
// issue: a short --timeout against a server whose full scan fails MUST rules (the Go SDK
// everything-server behind a slow link) exited 0. Now it exits 2 saying how many probes did not
// finish, the partial report is still written, and every format says it is incomplete.
func TestAScanThatRunsOutOfTimeExitsTwoWithItsPartialReport(t *testing.T) {
	if testing.Short() {
		t.Skip("scans a slowed-down everything-server; skipped under -short")
	}
	slow := delayed(t, StartEverythingServer(t).URL, 150*time.Millisecond)
	bin := BuildBinary(t, "sentinel")
	r := RunBinary(t, bin, "probe", "--endpoint", slow, "--timeout", "2s", "--format", "json")
	if r.ExitCode != 2 {
		t.Fatalf("exit %d, want 2\nstderr: %s", r.ExitCode, tail(r.Stderr, 10))
	}
	if !strings.Contains(r.Stderr, "INCOMPLETE: ") || !strings.Contains(r.Stderr, "probes did not finish before --timeout 2s; raise --timeout") {
		t.Errorf("stderr does not say the scan is incomplete and what to do:\n%s", tail(r.Stderr, 5))
	}
	res, err := report.Decode(bytes.NewReader([]byte(r.Stdout)))
	if err != nil {
		t.Fatalf("the partial JSON report does not decode: %v\n%s", err, tail(r.Stdout, 10))
	}
	if res.Incomplete == nil || res.Incomplete.Unfinished == 0 || report.GateMust.Verdict(res) != report.VerdictIncomplete {
		t.Errorf("the JSON report does not say it is incomplete: %+v", res.Incomplete)
	}
	out := filepath.Join(t.TempDir(), "report.sarif")
	r = RunBinary(t, bin, "probe", "--endpoint", slow, "--timeout", "2s", "--format", "sarif", "--out", out)
	sarif, err := os.ReadFile(out)
	if r.ExitCode != 2 || err != nil || !bytes.Contains(sarif, []byte(`"incomplete"`)) || !bytes.Contains(sarif, []byte(`"executionSuccessful": false`)) {
		t.Errorf("sarif: exit %d, err %v; the file must say the scan is incomplete:\n%.600s", r.ExitCode, err, sarif)
	}
	r = RunBinary(t, bin, "probe", "--endpoint", slow, "--timeout", "2s")
	if r.ExitCode != 2 || !strings.Contains(r.Stdout, "INCOMPLETE: ") {
		t.Errorf("text: exit %d; the report must say INCOMPLETE:\n%s", r.ExitCode, tail(r.Stdout, 10))
	}
}

// silentServer accepts connections and never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			select {
			case <-done:
				c.Close()
				return
			default:
				conns = append(conns, c) // held open, never answered; closed when the test ends
			}
		}
	}()
	t.Cleanup(func() {
		close(done)
		l.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String() + "/mcp"
}

// TestEndpointsThatCannotBeGradedExitTwo: a server that wants a token it was not given (the real
// broker with authorization on), a web page, a 404 and a silent server each exit 2 with a message
// that says what was seen and what to do, for probe and for deprecations alike. They used to exit
// 1 after grading the refusal as an MCP server (probe) or 0 with "no deprecated feature in use"
// (deprecations).
func TestEndpointsThatCannotBeGradedExitTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the broker and scans five endpoints; skipped under -short")
	}
	brokerURL, _ := startAuthBroker(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotImplemented)
		_, _ = w.Write([]byte("<!doctype html><html><body><h1>501 Not Implemented</h1></body></html>"))
	}))
	t.Cleanup(page.Close)
	missing := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(missing.Close)
	cases := []struct {
		name, url string
		want      []string
	}{
		{"the broker without a token", brokerURL, []string{"the endpoint requires authorization (401, WWW-Authenticate: Bearer", "resource metadata ", "pass --token-file or SENTINEL_TOKEN"}},
		{"a web page", page.URL + "/", []string{"not an MCP endpoint: POST / → 501 text/html", "check --endpoint"}},
		{"a 404", missing.URL + "/mcp", []string{"not an MCP endpoint: POST /mcp → 404 text/plain"}},
		{"a silent server", silentServer(t), []string{"did not answer", "no response before the deadline"}},
	}
	bin := BuildBinary(t, "sentinel")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, cmd := range [][]string{
				{"probe", "--endpoint", c.url, "--request-timeout", "2s", "--timeout", "30s", "--format", "json"},
				{"deprecations", "--endpoint", c.url, "--request-timeout", "2s", "--timeout", "30s"},
			} {
				r := RunBinaryEnv(t, []string{"SENTINEL_TOKEN="}, bin, cmd...)
				if r.ExitCode != 2 {
					t.Errorf("%s: exit %d, want 2\nstdout: %s\nstderr: %s", cmd[0], r.ExitCode, tail(r.Stdout, 5), tail(r.Stderr, 5))
				}
				for _, w := range c.want {
					if !strings.Contains(r.Stderr, w) {
						t.Errorf("%s: stderr lacks %q:\n%s", cmd[0], w, tail(r.Stderr, 5))
					}
				}
				if cmd[0] == "deprecations" && strings.Contains(r.Stdout, "No deprecated") {
					t.Errorf("deprecations reported a clean inventory for a server it could not read:\n%s", r.Stdout)
				}
				if cmd[0] == "probe" && c.name != "a silent server" {
					var doc struct {
						CouldNotRun *report.CouldNotRun `json:"couldNotRun"`
					}
					if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || doc.CouldNotRun == nil {
						t.Errorf("probe: the JSON report does not say the scan could not run (%v):\n%s", err, tail(r.Stdout, 10))
					}
				}
			}
		})
	}
}
