package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

// modernRequests are what a client half-way through its migration sends with a 2026-07-28
// envelope (%s is the _meta): three whose mirrored headers disagree with the body (a client fault
// the server must answer with 400 and -32020), and the removed initialize and ping, which a
// 2026-07-28 server answers with 404 and -32601 and never with a session. The unmigrated fixture
// serves them all.
var modernRequests = []struct {
	rule, pv, method, name, body string
}{
	{"pv-header-body-match", "2025-11-25", "tools/list", "", `{"jsonrpc":"2.0","id":101,"method":"tools/list","params":{"_meta":%s}}`},
	{"mcp-method-match", "2026-07-28", "prompts/list", "", `{"jsonrpc":"2.0","id":102,"method":"tools/list","params":{"_meta":%s}}`},
	{"mcp-name-match", "2026-07-28", "tools/call", "other_tool", `{"jsonrpc":"2.0","id":103,"method":"tools/call","params":{"name":"server_time","_meta":%s}}`},
	{"removed-methods-absent", "2026-07-28", "ping", "", `{"jsonrpc":"2.0","id":104,"method":"ping","params":{"_meta":%s}}`},
	{"removed-methods-absent", "2026-07-28", "initialize", "", `{"jsonrpc":"2.0","id":105,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"},"_meta":%s}}`},
}

// notFlagged are rules this traffic must not fail: the scripted client's server/discover was
// refused, so the proxy knows the server does not speak 2026-07-28, and the advice on sessions
// and the GET stream addresses servers that support only that revision. They are migration debt.
var notFlagged = []string{"get-delete-405", "ignore-session-id"}

// deprecatedSeen are the seeded deprecations the scripted 2025-11-25 session itself shows: the
// old features in use.
var deprecatedSeen = []string{"deprecated-features-avoided"}

// TestProxyFlagsTheUnmigratedFixture drives a scripted 2025-11-25 client, then requests with a
// 2026-07-28 envelope (header/body mismatches, removed methods), through `sentinel proxy` in
// front of the unmigrated fixture, and requires a finding for each deprecated feature this
// traffic shows and for each mismatch.
func TestProxyFlagsTheUnmigratedFixture(t *testing.T) {
	fx := StartFixture(t, "unmigrated")
	admin, token := freeAddr(t), filepath.Join(t.TempDir(), "admin-token")
	px := StartServer(t, BuildBinary(t, "sentinel"), "proxy", "--upstream", fx.URL, "--listen", "127.0.0.1:0",
		"--admin", admin, "--admin-token-file", token, "--db", filepath.Join(t.TempDir(), "findings.db"), "--log-level", "warn")

	DriveLegacySession(t, px.URL)
	session := initialize(t, px.URL)
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, m := range modernRequests {
		req, _ := http.NewRequestWithContext(WithDeadline(t, 10*time.Second), http.MethodPost, px.URL,
			strings.NewReader(fmt.Sprintf(m.body, meta)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", m.pv)
		req.Header.Set("Mcp-Method", m.method)
		if m.name != "" {
			req.Header.Set("Mcp-Name", m.name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s request through the proxy: %v", m.method, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// A client that claims 2026-07-28 and sends DELETE would get 405 from a server that supports
	// only that revision; the fixture, which refused server/discover, ends the session instead:
	// migration debt, not a get-delete-405 failure (notFlagged).
	del, _ := http.NewRequestWithContext(WithDeadline(t, 10*time.Second), http.MethodDelete, px.URL, nil)
	del.Header.Set("Mcp-Session-Id", session)
	del.Header.Set("MCP-Protocol-Version", "2026-07-28")
	if resp, err := http.DefaultClient.Do(del); err != nil {
		t.Fatalf("DELETE through the proxy: %v", err)
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	seeded := FixtureSeeded(t)
	want := map[string]bool{}
	for _, name := range deprecatedSeen {
		want[rules.IDOf(name)] = true
	}
	for _, m := range modernRequests {
		want[rules.IDOf(m.rule)] = true
	}
	for id := range want {
		if name := id[strings.LastIndex(id, "/")+1:]; !slices.Contains(seeded, name) {
			t.Fatalf("%s is expected here but the fixture is not seeded with it: fix the test", name)
		}
	}

	var got map[string]bool
	deadline := time.Now().Add(30 * time.Second)
	for {
		got = storedRules(t, "http://"+admin, token)
		missing := missingFrom(want, got)
		if len(missing) == 0 {
			for _, name := range notFlagged {
				if got[rules.IDOf(name)] {
					t.Errorf("%s was flagged on a server that refused server/discover", name)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no finding for %d expected rule(s):\n  %s\nfound: %v", len(missing), strings.Join(missing, "\n  "), sortedKeys(got))
		}
		time.Sleep(200 * time.Millisecond)
	}

}

// initialize opens a fresh 2025-11-25 session through url and returns its id.
func initialize(t *testing.T, url string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(WithDeadline(t, 10*time.Second), http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("initialize through the proxy: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize through the proxy minted no session (status %d)", resp.StatusCode)
	}
	return sid
}

// storedRules reads every page of the admin API's findings and returns the rule IDs they name.
func storedRules(t *testing.T, admin, tokenFile string) map[string]bool {
	t.Helper()
	var fs []findings.Finding
	adminPages(t, admin+"/findings?limit=1000", tokenFile, func(dec *json.Decoder) error {
		var page []findings.Finding
		err := dec.Decode(&page)
		fs = append(fs, page...)
		return err
	})
	out := map[string]bool{}
	for _, f := range fs {
		out[f.RuleID] = true
	}
	return out
}

func missingFrom(want, got map[string]bool) []string {
	var out []string
	for id := range want {
		if !got[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// adminPages GETs url from the admin API with the token in tokenFile, and each next page its
// Link header names, handing each body to decode.
func adminPages(t *testing.T, url, tokenFile string, decode func(*json.Decoder) error) {
	t.Helper()
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatalf("reading the admin token: %v", err)
	}
	base := url[:strings.Index(url[len("http://"):], "/")+len("http://")]
	for page := 0; url != "" && page < 1000; page++ {
		req, _ := http.NewRequestWithContext(WithDeadline(t, 30*time.Second), http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("reading %s from the admin API: %v", url, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			t.Fatalf("GET %s from the admin API: %s", url, resp.Status)
		}
		err = decode(json.NewDecoder(resp.Body))
		resp.Body.Close()
		if err != nil {
			t.Fatalf("decoding %s: %v", url, err)
		}
		url = ""
		if l := resp.Header.Get("Link"); strings.HasSuffix(l, `>; rel="next"`) {
			url = base + strings.TrimSuffix(strings.TrimPrefix(l, "<"), `>; rel="next"`)
		}
	}
}
