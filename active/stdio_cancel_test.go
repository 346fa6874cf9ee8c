package active

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/stdio"
	"github.com/mcp-sentinel/sentinel/wire"
)

// envStdioProgressServer makes the test binary a stdio server (TestHelperStdioProgressServer):
// "honour" stops a cancelled call's work, "ignore" goes on sending its progress and its result.
const envStdioProgressServer = "SENTINEL_TEST_STDIO_PROGRESS_SERVER"

// TestHelperStdioProgressServer is not a test: run with envStdioProgressServer set, it is a small
// 2026-07-28 stdio server written for these tests only, with one read-only tool, "slow", that
// reports progress every 40 ms for 400 ms and then answers.
func TestHelperStdioProgressServer(t *testing.T) {
	mode := os.Getenv(envStdioProgressServer)
	if mode == "" {
		t.Skip("a helper process, not a test")
	}
	var mu sync.Mutex
	out := json.NewEncoder(os.Stdout)
	send := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		_ = out.Encode(v)
	}
	result := func(id json.RawMessage, r map[string]any) {
		r["resultType"] = "complete"
		r["_meta"] = map[string]any{wire.MetaServerInfo: map[string]any{"name": "progress", "version": "1"}}
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": r})
	}
	cancelled := map[string]chan struct{}{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
				Meta      struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "parse error"}})
			continue
		}
		switch {
		case m.Method == "notifications/cancelled":
			mu.Lock()
			if ch, ok := cancelled[string(m.Params.RequestID)]; ok && mode == "honour" {
				close(ch)
				delete(cancelled, string(m.Params.RequestID))
			}
			mu.Unlock()
		case m.ID == nil:
		case m.Method == "server/discover":
			result(m.ID, map[string]any{"supportedVersions": []string{wire.ProtocolVersion},
				"capabilities": map[string]any{"tools": map[string]any{}}, "ttlMs": 0, "cacheScope": "public"})
		case m.Method == "tools/list":
			result(m.ID, map[string]any{"ttlMs": 0, "cacheScope": "public", "tools": []any{map[string]any{
				"name": "slow", "description": "Counts to ten, slowly.", "annotations": map[string]any{"readOnlyHint": true},
				"inputSchema": map[string]any{"type": "object"}}}})
		case m.Method == "tools/call":
			stop := make(chan struct{})
			mu.Lock()
			cancelled[string(m.ID)] = stop
			mu.Unlock()
			go func(id, token json.RawMessage) {
				for i := 1; i <= 10; i++ {
					select {
					case <-stop:
						return
					case <-time.After(40 * time.Millisecond):
					}
					if len(token) > 0 {
						send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
							"params": map[string]any{"progressToken": token, "progress": i, "total": 10}})
					}
				}
				result(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "ten"}}})
			}(m.ID, m.Params.Meta.ProgressToken)
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
		}
	}
}

// TestStdioCancellationIsJudgedInEveryScan: over stdio the scan cancels a call of a tool that
// reports progress, on purpose, so stdio-nothing-after-cancel is decided in every scan and the
// same way each time: a server that stops the cancelled work passes, one that goes on sending
// its progress fails — where before only a call cut at its deadline was ever cancelled.
func TestStdioCancellationIsJudgedInEveryScan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the test binary as a stdio server")
	}
	for mode, want := range map[string]rules.Status{"honour": rules.Pass, "ignore": rules.Fail} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			for scan := range 2 {
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				out, err := Scan(ctx, Options{
					Command: &stdio.Options{Path: os.Args[0], Args: []string{"-test.run=^TestHelperStdioProgressServer$"},
						Env: []string{envStdioProgressServer + "=" + mode}},
					Rules:   []string{"stdio-nothing-after-cancel", "progress-token-scope"},
					Timeout: 50 * time.Second,
				})
				cancel()
				if err != nil {
					t.Fatalf("scan %d: %v", scan+1, err)
				}
				got := statusOf(t, out.Result, "stdio-nothing-after-cancel")
				if got != want {
					t.Errorf("scan %d: stdio-nothing-after-cancel is %s, want %s; %s", scan+1, got, want, evidenceOf(out.Result, "stdio-nothing-after-cancel"))
				}
			}
		})
	}
}

// evidenceOf is what the result says about the named rule, for a failure message.
func evidenceOf(res *report.Result, name string) string {
	id := rules.IDOf(name)
	for _, rr := range res.Rules {
		if rr.Rule.ID == id {
			var b strings.Builder
			for _, o := range rr.Evidence {
				fmt.Fprintf(&b, "[%s] %s; ", o.Status, o.Observed)
			}
			return b.String()
		}
	}
	return "not in the result"
}
