package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/internal/adminstate"
)

// shimLegacyScript is what the scripted client sends the unmigrated fixture, one request at a time:
// the legacy handshake, lists, a tool call, a missing resource (the fixture answers it with the
// retired -32002), and a line that is not JSON.
var shimLegacyScript = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scripted","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`,
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"notes://missing"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`,
	`not json at all`,
}

// shimModernMeta is the _meta every 2026-07-28 request of shimModernScript carries.
const shimModernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// shimModernScript is a 2026-07-28 client's conversation with the conformant fixture, whose answers
// are the same on every run, so two runs can be compared byte for byte.
var shimModernScript = []string{
	`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + shimModernMeta + `}}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + shimModernMeta + `}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},` + shimModernMeta + `}}`,
	`{"jsonrpc":"2.0","id":"p","method":"prompts/get","params":{"name":"test_simple_prompt",` + shimModernMeta + `}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
	`{"jsonrpc":"2.0","id":5,"method":"nope/nothing","params":{` + shimModernMeta + `}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{\"uri\":\"test://static-text\",\"note\":\"caf\u00e9 \u2603\"," + shimModernMeta + "}}",
}

// converse runs cmd as a stdio server for the scripted client: each line is written, and what the
// server sends back is read until the reply carrying the line's id (or, for a notification or a
// broken line, until a short quiet spell), so both runs see the same conversation. It returns
// every byte the client received, and the command's exit code once stdin is closed.
func converse(t *testing.T, cmd *exec.Cmd, script []string) ([]byte, int) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []byte, 64)
	go func() {
		r := bufio.NewReader(out)
		for {
			l, err := r.ReadBytes('\n')
			if len(l) > 0 {
				lines <- l
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	var got bytes.Buffer
	for _, msg := range script {
		if _, err := io.WriteString(in, msg+"\n"); err != nil {
			t.Fatalf("writing %q: %v", msg, err)
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		wantID := ""
		if json.Unmarshal([]byte(msg), &m) == nil && m.ID != nil {
			wantID = `"id":` + string(m.ID) + `,`
		}
		deadline := time.After(30 * time.Second)
	read:
		for {
			quiet := time.After(500 * time.Millisecond)
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				got.Write(l)
				if wantID != "" && bytes.Contains(l, []byte(wantID)) {
					break read
				}
			case <-quiet:
				if wantID == "" {
					break read
				}
			case <-deadline:
				t.Fatalf("no reply to %s", msg)
			}
		}
	}
	_ = in.Close()
	for l := range lines {
		got.Write(l)
	}
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return got.Bytes(), code
}

// TestShimIsByteExactWithARealServer drives `sentinel shim -- fixture serve conformant --stdio`
// with a scripted client and compares bytes with the same conversation on a direct pipe: the
// client receives exactly what the server sent, the shim exits with the server's status, and its
// stdout carries nothing of its own.
func TestShimIsByteExactWithARealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and the fixture; skipped under -short")
	}
	fixture, sentinel := BuildBinary(t, "fixture"), BuildBinary(t, "sentinel")
	direct, directCode := converse(t, exec.Command(fixture, "serve", "conformant", "--stdio"), shimModernScript)
	cmd := exec.Command(sentinel, "shim", "--db", filepath.Join(t.TempDir(), "shim.db"), "--", fixture, "serve", "conformant", "--stdio")
	cmd.Env = append(os.Environ(), adminstate.EnvStateHome+"="+t.TempDir())
	configureChild(cmd)
	shimmed, shimCode := converse(t, cmd, shimModernScript)
	if len(direct) == 0 || !bytes.Equal(shimmed, direct) {
		t.Errorf("through the shim the client received %d bytes, directly %d:\nshim:   %q\ndirect: %q", len(shimmed), len(direct), shimmed, direct)
	}
	if shimCode != directCode {
		t.Errorf("shim exit %d, server's own %d", shimCode, directCode)
	}
}

// TestShimGradesAClientsTrafficIntoTheStore puts the shim between a scripted 2025 client and the
// unmigrated fixture: it says on stderr where its admin API is, records its state file while it
// runs (as sentinel tui finds it) and removes it after, and the findings of the conversation are
// in the store it was given.
func TestShimGradesAClientsTrafficIntoTheStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and the fixture; skipped under -short")
	}
	fixture, sentinel := BuildBinary(t, "fixture"), BuildBinary(t, "sentinel")
	state := t.TempDir()
	db := filepath.Join(t.TempDir(), "shim.db")
	cmd := exec.Command(sentinel, "shim", "--db", db, "--", fixture, "serve", "unmigrated", "--stdio")
	cmd.Env = append(os.Environ(), adminstate.EnvStateHome+"="+state)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	configureChild(cmd)
	found := make(chan adminstate.State, 1)
	go func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if s, err := adminstate.Find(filepath.Join(state, "sentinel"), ""); err == nil {
				found <- s
				return
			}
		}
		close(found)
	}()
	if _, code := converse(t, cmd, shimLegacyScript); code != 0 {
		t.Errorf("shim exit %d, want the fixture's 0", code)
	}
	if !strings.Contains(stderr.String(), "admin on http://127.0.0.1:") {
		t.Errorf("the shim did not say on stderr where its admin API is:\n%s", stderr.String())
	}
	if s, ok := <-found; !ok || s.Kind != "shim" || s.Token == "" {
		t.Errorf("no shim state file in %s while it ran (%+v)", state, s)
	}
	if left, _ := filepath.Glob(filepath.Join(state, "sentinel", "admin-*.json")); len(left) > 0 {
		t.Errorf("the shim left its state file behind: %v", left)
	}
	out := RunBinary(t, sentinel, "findings", "list", "--db", db, "--format", "json")
	for _, rule := range []string{"retired-codes", "cache-hints-present", "result-type-present"} {
		if !strings.Contains(out.Stdout, rule) {
			t.Errorf("finding %s not stored from the shim's traffic:\n%s", rule, tail(out.Stdout, 30))
		}
	}
	if strings.Contains(out.Stdout, "pv-header-required") {
		t.Error("an HTTP-only rule was graded on stdio traffic")
	}
}

// TestShimAdminAPIServesWhileRunning holds a session open and reads the shim's admin API with the
// token from its state file, as sentinel tui does: the exchanges of the conversation so far are
// listed, and a request without the token is refused.
func TestShimAdminAPIServesWhileRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and the fixture; skipped under -short")
	}
	fixture, sentinel := BuildBinary(t, "fixture"), BuildBinary(t, "sentinel")
	state := t.TempDir()
	cmd := exec.Command(sentinel, "shim", "--db", filepath.Join(t.TempDir(), "shim.db"), "--", fixture, "serve", "conformant", "--stdio")
	cmd.Env = append(os.Environ(), adminstate.EnvStateHome+"="+state)
	configureChild(cmd)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadBytes('\n'); err != nil {
		t.Fatalf("no reply through the shim: %v", err)
	}
	var s adminstate.State
	var body []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var err error
		if s, err = adminstate.Find(filepath.Join(state, "sentinel"), ""); err != nil {
			continue
		}
		body = adminGet(t, s.Admin+"/exchanges", s.Token, http.StatusOK)
		if bytes.Contains(body, []byte("server/discover")) {
			break
		}
	}
	if !bytes.Contains(body, []byte("server/discover")) {
		t.Fatalf("the admin API did not list the exchange: %s", body)
	}
	adminGet(t, s.Admin+"/exchanges", "", http.StatusUnauthorized)
}

func adminGet(t *testing.T, url, token string, want int) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d: %s", url, resp.StatusCode, want, b)
	}
	return b
}
