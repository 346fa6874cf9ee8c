package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const stdioMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// Regression: one malformed line on stdio (plain text, truncated JSON, [], null, an object id, a
// line over the SDK's 16 MiB) ended `broker serve --stdio`. Through the real binary, each gets a
// JSON-RPC error and the request after it is still answered.
func TestStdioBinarySurvivesMalformedLines(t *testing.T) {
	cmd := exec.Command(binary, "serve", "--stdio", "--dev")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	replies := make(chan map[string]any, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 32<<20)
		for sc.Scan() {
			var m map[string]any
			_ = json.Unmarshal(sc.Bytes(), &m)
			replies <- m
		}
		close(replies)
	}()
	recv := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-replies:
			if !ok {
				t.Fatalf("%s: the broker closed stdout (it stopped serving)", what)
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no reply within 30s", what)
		}
		return nil
	}
	bad := []string{
		"this is not JSON",
		`{"jsonrpc":"2.0","id":1,"method":"tools/li`,
		`[]`,
		`null`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list","params":{` + stdioMeta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + stdioMeta + `,"pad":"` + strings.Repeat("a", 17<<20) + `"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + stdioMeta + `}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	}
	for i, line := range bad {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("bad line %d: writing: %v (the broker stopped reading)", i, err)
		}
		if r := recv("bad line"); r["error"] == nil || r["result"] != nil {
			t.Fatalf("bad line %d (%.40q) got %v, want a JSON-RPC error", i, line, r)
		}
		if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":"ok","method":"tools/list","params":{`+stdioMeta+`}}`+"\n"); err != nil {
			t.Fatalf("after bad line %d: writing: %v", i, err)
		}
		if r := recv("the request after a bad line"); r["result"] == nil {
			t.Fatalf("after bad line %d (%.40q) tools/list got %v", i, line, r)
		}
	}
}
