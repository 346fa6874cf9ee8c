package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "modernc.org/sqlite" // the tampering step opens the file directly, as its owner would
)

// runCode runs the binary and returns stdout and the exit code.
func runCode(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, args...).Output()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out) + string(ee.Stderr), ee.ExitCode()
	}
	t.Fatalf("broker %v: %v", args, err)
	return "", -1
}

func TestAuditVerifyExitsZeroIntactAndOneNamingTheBreak(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	if out, code := runCode(t, "migrate", "--db", db); code != 0 || !strings.Contains(out, "schema version") {
		t.Fatalf("migrate: exit %d, %s", code, out)
	}
	// Populate the log through the real server over stdio.
	cs := connect(t, &mcp.CommandTransport{Command: exec.Command(binary, "serve", "--stdio", "--dev", "--db", db)})
	for i := range 4 {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flag_injection", Arguments: map[string]any{"response": strings.Repeat("hello ", i+1)}})
		cancel()
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %v", i, err, res)
		}
	}
	_ = cs.Close()
	// The broker checkpoints the head when it stops; wait for the stdio server to exit.
	waitFor(t, func() bool {
		out, code := runCode(t, "audit", "verify", "--db", db)
		return code == 0 && strings.Contains(out, "intact: 4 entries") && strings.Contains(out, "anchored: checkpoint at entry 4")
	})
	// Without a key only the links can be checked, and that is not a pass.
	noKey := exec.Command(binary, "audit", "verify", "--db", db)
	noKey.Env = append(os.Environ(), envStateDir+"="+t.TempDir())
	if out, err := noKey.CombinedOutput(); exitCode(err) != 2 || !strings.Contains(string(out), "not checked") {
		t.Fatalf("audit verify without a key: exit %d, %s; want 2", exitCode(err), out)
	}
	raw, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, stmt := range []string{`DROP TRIGGER audit_log_no_update`, `UPDATE audit_log SET outcome = 'ok', subject = 'someone-else' WHERE seq = 2`} {
		if _, err := raw.ExecContext(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	out, code := runCode(t, "audit", "verify", "--db", db)
	if code != 1 || !regexp.MustCompile(`REWRITTEN at entry 2\b`).MatchString(out) {
		t.Fatalf("audit verify after tampering: exit %d, %s; want exit 1 naming entry 2", code, out)
	}
}

func TestAuditVerifyNamesATruncatedTail(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	cs := connect(t, &mcp.CommandTransport{Command: exec.Command(binary, "serve", "--stdio", "--dev", "--db", db)})
	for i := range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flag_injection", Arguments: map[string]any{"response": strings.Repeat("hi ", i+1)}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	_ = cs.Close()
	waitFor(t, func() bool {
		out, code := runCode(t, "audit", "verify", "--db", db)
		return code == 0 && strings.Contains(out, "anchored: checkpoint at entry 3")
	})
	raw, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, stmt := range []string{`DROP TRIGGER audit_log_no_delete`, `DELETE FROM audit_log WHERE seq = 3`} {
		if _, err := raw.ExecContext(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	out, code := runCode(t, "audit", "verify", "--db", db)
	if code != 1 || !strings.Contains(out, "TRUNCATED at entry 3") {
		t.Fatalf("audit verify after deleting the last row: exit %d, %s; want exit 1, TRUNCATED at entry 3", code, out)
	}
}

// waitFor polls cond (bounded: 30 s) for what a process does as it exits.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 150 {
		if cond() {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("condition not met within 30s")
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestRederiveAndMigrateRefuseWhatTheyCannotDo(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	if _, code := runCode(t, "migrate", "--db", db); code != 0 {
		t.Fatalf("migrate exit %d", code)
	}
	if out, code := runCode(t, "rederive", "--db", db, "--tenant", "dev", "--subject", "developer", "hdl_unknown"); code != 2 || !strings.Contains(out, "unknown handle") {
		t.Fatalf("rederive of an unknown handle: exit %d, %s; want 2 and the handle refusal", code, out)
	}
	if out, code := runCode(t, "rederive", "--db", db, "hdl_x"); code != 2 || !strings.Contains(out, "--tenant and --subject") {
		t.Fatalf("rederive without principal: exit %d, %s", code, out)
	}
	if out, code := runCode(t, "audit", "verify", "--db", "host=/nonexistent-socket-dir dbname=x connect_timeout=2"); code != 2 {
		t.Fatalf("audit verify on an unreachable database: exit %d, %s; want 2", code, out)
	}
}

func TestRevokeMakesAHandleUnusable(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	cs := connect(t, &mcp.CommandTransport{Command: exec.Command(binary, "serve", "--stdio", "--dev", "--db", db)})
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	res := call("flag_injection", map[string]any{"response": "hello there"})
	out, _ := res.StructuredContent.(map[string]any)
	h, _ := out["handle"].(string)
	if h == "" {
		t.Fatalf("no handle in %v", res.StructuredContent)
	}
	if r := call("get_evaluation", map[string]any{"handle": h}); r.IsError {
		t.Fatalf("get_evaluation before revoking: %v", r.Content)
	}
	if out, code := runCode(t, "revoke", "--db", db, "--tenant", "dev", "--subject", "someone-else", h); code != 2 {
		t.Fatalf("revoke by another principal: exit %d, %s; want 2", code, out)
	}
	if out, code := runCode(t, "revoke", "--db", db, "--tenant", "dev", "--subject", "developer", h); code != 0 {
		t.Fatalf("revoke: exit %d, %s", code, out)
	}
	if r := call("get_evaluation", map[string]any{"handle": h}); !r.IsError {
		t.Fatalf("get_evaluation after revoking succeeded: %v", r.StructuredContent)
	}
}
