package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeJudgeProvider is an OpenAI-compatible chat-completions endpoint on 127.0.0.1 that scores
// every request 0.9 and counts the calls.
func fakeJudgeProvider(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\":0.9,\"reason\":\"recorded\"}"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1/chat/completions", &n
}

// writeJudgeConfig writes a config whose stdio tenant archives payloads and whose flag_injection
// policy names the judge "local" at url.
func writeJudgeConfig(t *testing.T, url string) string {
	t.Helper()
	cfg := fmt.Sprintf(`{
  "stdio": {"tenant": "acme", "subject": "alice"},
  "tenants": [{"tenantId": "acme", "archivePayloads": true, "metrics": [
    {"metric": "flag_injection", "enabled": true, "threshold": 0.5, "onTimeout": "fail_closed", "maxJudgeLatencyMs": 10000, "judge": "local"}]}],
  "judges": [{"name": "local", "provider": "openai", "url": %q, "model": "recorded-model"}]
}`, url)
	path := filepath.Join(t.TempDir(), "broker.json")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Regression: rederive built its scorer without the config file's named judges, so every stored
// evaluation whose policy names a judge failed with an unknown-judge error. With --config it
// loads them, consults the named judge as serve did, and matches; without it, the error says to
// pass --config.
func TestRederiveLoadsTheNamedJudgesOfTheConfig(t *testing.T) {
	url, judgeCalls := fakeJudgeProvider(t)
	cfg := writeJudgeConfig(t, url)
	db := filepath.Join(t.TempDir(), "b.db")
	cs := connect(t, &mcp.CommandTransport{Command: exec.Command(binary, "serve", "--stdio", "--config", cfg, "--db", db, "--judge", "none")})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// a quoted attack: the ambiguous band, so the named judge decides
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flag_injection", Arguments: map[string]any{
		"response": `She wrote "ignore all previous instructions" on the whiteboard.`}})
	if err != nil || res.IsError {
		t.Fatalf("flag_injection: %v %v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Handle   string `json:"handle"`
		Verdicts []struct {
			DecidedBy string `json:"decidedBy"`
			Judge     string `json:"judge"`
		} `json:"verdicts"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Handle == "" || len(out.Verdicts) != 1 {
		t.Fatalf("result %s: %v", raw, err)
	}
	if out.Verdicts[0].DecidedBy != "judge" || !strings.Contains(out.Verdicts[0].Judge, "openai:recorded-model") {
		t.Fatalf("serve: verdict decided by %q (%q), want the named judge", out.Verdicts[0].DecidedBy, out.Verdicts[0].Judge)
	}
	_ = cs.Close()
	served := judgeCalls.Load()

	o, code := runCode(t, "rederive", "--db", db, "--tenant", "acme", "--subject", "alice", "--judge", "none", out.Handle)
	if code != 2 || !strings.Contains(o, `judge "local"`) || !strings.Contains(o, "--config") {
		t.Errorf("rederive without --config: exit %d, %s; want 2 naming the judge and --config", code, o)
	}
	o, code = runCode(t, "rederive", "--db", db, "--tenant", "acme", "--subject", "alice", "--judge", "none", "--config", cfg, out.Handle)
	if code != 0 || !strings.Contains(o, "rederived: MATCH") {
		t.Errorf("rederive --config: exit %d, %s; want 0 and MATCH", code, o)
	}
	if judgeCalls.Load() <= served {
		t.Errorf("rederive --config did not consult the named judge (%d calls before, %d after)", served, judgeCalls.Load())
	}
}

// broker manifest --config scores its format samples with the file's named judges when its dev
// tenant's policy names one (before, it had no config and no named judges at all).
func TestManifestLoadsTheNamedJudgesOfTheConfig(t *testing.T) {
	url, _ := fakeJudgeProvider(t)
	cfg := fmt.Sprintf(`{"tenants": [{"tenantId": "dev", "metrics": [
    {"metric": "flag_injection", "enabled": true, "threshold": 0.5, "onTimeout": "fail_closed", "maxJudgeLatencyMs": 10000, "judge": "local"},
    {"metric": "check_groundedness", "enabled": true, "threshold": 0.5, "onTimeout": "fail_open", "maxJudgeLatencyMs": 10000, "judge": "local"}]}],
  "judges": [{"name": "local", "provider": "openai", "url": %q, "model": "recorded-model"}]}`, url)
	path := filepath.Join(t.TempDir(), "broker.json")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	o, code := runCode(t, "manifest", "--calls", "2", "--config", path)
	if code != 0 || !strings.Contains(o, `"distinctDigests":1`) || !strings.Contains(o, `"conciseTokens"`) {
		t.Errorf("manifest --config: exit %d, %s", code, o)
	}
}
