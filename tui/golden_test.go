package tui

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// updating reports whether -update was given. The flag is registered by the golden package
// that teatest uses, so one flag rewrites every golden file of this package.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGolden compares a screen with testdata/views/<name>.txt, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "views", name+".txt")
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (run go test ./tui -update to create it): %v", path, err)
	}
	if string(want) != got {
		t.Errorf("%s changed (go test ./tui -update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// TestViewsGolden pins the main screens at 80x24 as text, the way `tmux capture-pane -p` shows
// them: these files are the screenshots reviewers read.
func TestViewsGolden(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture)
		keys  string
	}{
		{name: "exchanges"},
		{name: "exchanges-filtered", keys: "/verdict:fail<enter>"},
		{name: "exchanges-paused", keys: "k"},
		{name: "detail", keys: "G<enter>"},
		{name: "detail-raw", keys: "G<enter>r"},
		{name: "findings", keys: "<tab>"},
		{name: "finding-rule", keys: "<tab><enter>"},
		{name: "probe", keys: "p", setup: withProbe},
		{name: "help", keys: "?"},
		{name: "filter-prompt", keys: "/level:must"},
		{name: "unreachable", setup: func(t *testing.T, f *fixture) {
			f.cache.SetConn(Conn{State: Down, Err: "GET /findings: dial tcp 127.0.0.1:9101: connect: connection refused", RetryAt: t0.Add(2 * time.Second)})
			refresh(t, f.m)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			press(t, f.m, tt.keys)
			checkGolden(t, tt.name, screen(f.m)+"\n")
		})
	}
}

func withProbe(t *testing.T, f *fixture) {
	disc, _ := rules.ByID(ruleID(t, "discover-implemented"))
	env, _ := rules.ByID(ruleID(t, "jsonrpc-envelope"))
	hint, _ := rules.ByID(ruleID(t, "deprecated-features-avoided"))
	f.api.steps = []ProbeProgress{{Message: "era gate: no server/discover"}, {Message: "checked", RuleID: disc.ID, Status: rules.Fail},
		{Message: "checked", RuleID: env.ID, Status: rules.Pass}}
	f.api.result = &report.Result{Target: "http://127.0.0.1:9100/mcp", Era: "legacy (2025-11-25)", Rules: []report.RuleResult{
		{Rule: env, Status: rules.Pass}, {Rule: disc, Status: rules.Fail}, {Rule: hint, Status: rules.Indeterminate}}}
}

// TestProgramGolden runs the whole program headless (teatest) at 80x24 with a frozen clock:
// keys go in through the program's input, and the final screen is compared with a golden file.
func TestProgramGolden(t *testing.T) {
	f := newFixture(t)
	tm := teatest.NewTestModel(t, f.m, teatest.WithInitialTermSize(80, 24))
	waitFor(t, tm, "search")
	tm.Type("/method:tools/call")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor(t, tm, "1/3")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor(t, tm, "Authorization")
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	golden.RequireEqual(t, screen(final)+"\n")
}

func waitFor(t *testing.T, tm *teatest.TestModel, s string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
		teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}
