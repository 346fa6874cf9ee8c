package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/internal/adminstate"
)

// runShimCmd runs `sentinel shim ARGS` in process with stdin and returns stdout, stderr and the
// exit code the contract gives.
func runShimCmd(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errb)
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	root.SetArgs(append([]string{"shim", "--db", filepath.Join(dir, "f.db")}, args...))
	root.SilenceErrors, root.SilenceUsage = true, true
	err := root.ExecuteContext(t.Context())
	if err != nil {
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), cli.ExitCode(err)
}

func TestShimCommand(t *testing.T) {
	tests := []struct {
		name             string
		stdin            string
		args             []string
		wantOut, wantErr string
		wantCode         int
	}{
		{"bytes pass through and the server's status is the shim's", "hello\r\nworld",
			[]string{"--", "sh", "-c", "cat; echo bye; exit 4"}, "hello\r\nworldbye\n", "exited with status 4", 4},
		{"a clean exit is 0 and stdout holds only what the server wrote", "{}\n",
			[]string{"--", "sh", "-c", "cat >/dev/null; printf x"}, "x", "", 0},
		{"the server's stderr reaches stderr, not stdout", "",
			[]string{"--", "sh", "-c", "echo oops >&2"}, "", "oops", 0},
		{"--env and --cwd reach the server", "",
			[]string{"--env", "SENTINEL_SHIM_T=v1", "--cwd", "/", "--", "sh", "-c", "printf %s:%s \"$SENTINEL_SHIM_T\" \"$PWD\""}, "v1:/", "", 0},
		{"a command without -- is refused", "", []string{"sh"}, "", "after --", cli.ExitCannotRun},
		{"a malformed --env is refused", "", []string{"--env", "NOEQUALS", "--", "true"}, "", "KEY=VALUE", cli.ExitCannotRun},
		{"a missing program cannot run", "", []string{"--", "sentinel-no-such-program"}, "", "sentinel-no-such-program", cli.ExitCannotRun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runShimCmd(t, tt.stdin, tt.args...)
			if out != tt.wantOut {
				t.Errorf("stdout = %q, want %q", out, tt.wantOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.wantErr)
			}
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
		})
	}
}

// TestTUIFindsARunningShim: the state a shim records is what `sentinel tui` resolves by default.
func TestTUIFindsARunningShim(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == adminstate.EnvStateHome {
			return dir
		}
		return ""
	}
	sdir, err := adminstate.Dir(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := adminstate.Write(sdir, adminstate.State{Kind: "shim", PID: os.Getpid(), Admin: "http://127.0.0.1:45678",
		Listen: "stdio: node server.js", Token: "0123456789abcdef0123", Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	url, tok, err := resolveAdmin("", "", getenv)
	if err != nil || url != "http://127.0.0.1:45678" || tok != "0123456789abcdef0123" {
		t.Errorf("resolveAdmin = %q, %q, %v; want the shim's", url, tok, err)
	}
}
