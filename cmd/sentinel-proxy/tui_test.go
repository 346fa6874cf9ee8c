package main

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/tui"
)

func TestTUIPassesFlagsToTheProgram(t *testing.T) {
	var got tui.RunOptions
	old := tuiRun
	t.Cleanup(func() { tuiRun = old })
	tuiRun = func(_ context.Context, o tui.RunOptions) error { got = o; return nil }
	t.Setenv("NO_COLOR", "1")
	if out, code := runSentinel(t, "tui", "--admin", "http://127.0.0.1:1234", "--keep", "50"); code != 0 {
		t.Fatalf("sentinel tui exited %d: %s", code, out)
	}
	if got.AdminURL != "http://127.0.0.1:1234" || got.Capacity != 50 || got.Color || !strings.HasPrefix(got.Tool, "sentinel ") {
		t.Fatalf("options = %+v, want the admin URL, capacity 50, no colour under NO_COLOR and a tool name", got)
	}
}

func TestTUIRejectsABadAdminURLAsCouldNotRun(t *testing.T) {
	out, code := runSentinel(t, "tui", "--admin", "not a url")
	if code != 2 || !strings.Contains(out, "running `sentinel proxy` admin API") {
		t.Fatalf("sentinel tui --admin 'not a url' = %d %q, want exit 2 saying what to give", code, out)
	}
}

func TestProxyTUIFlagStartsTheTUIOnTheAdminAPI(t *testing.T) {
	got := make(chan string, 1)
	old := tuiRun
	t.Cleanup(func() { tuiRun = old })
	tuiRun = func(_ context.Context, o tui.RunOptions) error { got <- o.AdminURL; return nil }
	out, code := runSentinel(t, "proxy", "--upstream", "http://127.0.0.1:1/mcp", "--listen", "127.0.0.1:0",
		"--admin", "127.0.0.1:0", "--db", t.TempDir()+"/f.db", "--tui")
	if code != 0 {
		t.Fatalf("sentinel proxy --tui exited %d: %s", code, out)
	}
	admin := <-got
	if !strings.HasPrefix(admin, "http://127.0.0.1:") || !strings.Contains(out, "admin on "+admin) {
		t.Fatalf("the TUI attached to %q, but the proxy said %q", admin, out)
	}
}
