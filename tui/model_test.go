package tui

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/report/sarifcheck"
	"github.com/mcp-sentinel/sentinel/rules"
)

func TestHeaderSaysWhatWasSeen(t *testing.T) {
	f := newFixture(t)
	mustContain(t, screen(f.m),
		"upstream http://127.0.0.1:8080/mcp", "era legacy (initialize)",
		"✖ MUST 1", "▲ SHOULD NOT 1", "● live",
		"▲ deprecated in use: Logging · removable on or after 2027-07-28")
}

func TestHeaderNamesTheRuleWhenTheFeatureIsNotKnown(t *testing.T) {
	cache := NewCache(0)
	cache.SetFindings([]findings.Finding{finding(t, "deprecated-features-avoided", "initialize", "ex-1", 1)}, false)
	m := New(Options{Source: cache, API: &fakeAPI{}, Now: func() time.Time { return t0 }, Location: time.UTC})
	mustContain(t, screen(m), "▲ deprecated feature(s) in use, see rule deprecated-features-avoided")
}

func TestFeaturesOfReadsTheBodies(t *testing.T) {
	ex := findings.Exchange{ID: "x", HTTPMethod: "POST", URL: "http://u/mcp", Status: 200,
		RequestHeader:  http.Header{"Content-Type": {"application/json"}},
		RequestBody:    []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody:   []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}},"serverInfo":{"name":"s","version":"1"}}}`)}
	got := featuresOf(ex)
	if !slices.Contains(got, "logging") || !slices.Contains(got, "initialize") {
		t.Fatalf("featuresOf = %v, want logging and initialize", got)
	}
}

func TestHeaderSaysNothingSeenYetBeforeTraffic(t *testing.T) {
	m := New(Options{Source: NewCache(0), API: &fakeAPI{}, Now: func() time.Time { return t0 }, Location: time.UTC})
	mustContain(t, screen(m), "upstream not seen yet", "era not seen yet", "connecting to http://127.0.0.1:9101",
		"deprecated features in use: none seen", "no exchanges match yet")
}

func TestUnreachableAdminAPIIsShownWithRetry(t *testing.T) {
	f := newFixture(t)
	f.cache.SetConn(Conn{State: Down, Err: "dial tcp: connection refused", RetryAt: t0.Add(4 * time.Second), Attempt: 3})
	refresh(t, f.m)
	mustContain(t, screen(f.m), "! admin API unreachable (retry in 4s): dial tcp: connection refused")
}

func TestListShowsExchangesWithVerdictBadges(t *testing.T) {
	f := newFixture(t)
	v := screen(f.m)
	mustContain(t, v, "12:00:00 initialize", "tools/list", "search", "✓ ok", "✖ 1 MUST", "▲ 1 SHOULD NOT", "exchanges 3/3", "following")
	if !strings.Contains(lineWith(v, "search"), "▶") {
		t.Fatalf("following should select the newest exchange:\n%s", v)
	}
}

func TestNewExchangesAppearOnlyAfterATick(t *testing.T) {
	f := newFixture(t)
	f.cache.AddExchange(Row{ID: "ex-4", Target: "t", Started: t0.Add(3 * time.Second), Method: "ping", Key: "ping", Status: 200, Graded: "graded"})
	drive(t, f.m, changedMsg{})
	mustNotContain(t, screen(f.m), "ping")
	drive(t, f.m, tickMsg(t0))
	mustContain(t, screen(f.m), "ping", "exchanges 4/4")
}

func TestMovingUpPausesAndFResumes(t *testing.T) {
	f := newFixture(t)
	press(t, f.m, "k")
	if !f.m.paused {
		t.Fatal("moving up while following did not pause")
	}
	f.cache.AddExchange(Row{ID: "ex-4", Target: "t", Started: t0, Method: "ping", Key: "ping", Status: 200, Graded: "graded"})
	refresh(t, f.m)
	v := screen(f.m)
	mustContain(t, v, "PAUSED (1 new)")
	mustNotContain(t, v, " ping ")
	if !strings.Contains(lineWith(v, "tools/list"), "▶") {
		t.Fatalf("k should select the previous exchange:\n%s", v)
	}
	press(t, f.m, "f")
	v = screen(f.m)
	mustContain(t, v, "ping", "following")
	if !strings.Contains(lineWith(v, "ping"), "▶") {
		t.Fatalf("f should resume on the newest exchange:\n%s", v)
	}
}

func TestVimMovement(t *testing.T) {
	f := newFixture(t)
	tests := []struct{ keys, want string }{
		{"g", "initialize"}, {"j", "tools/list"}, {"G", "search"}, {"<ctrl+u>", "initialize"}, {"<ctrl+d>", "search"},
	}
	for _, tt := range tests {
		press(t, f.m, tt.keys)
		if r := f.m.list.Selected(); r == nil || !strings.Contains(r.Key, tt.want) {
			t.Fatalf("after %s selected %v, want %s", tt.keys, r, tt.want)
		}
	}
}

func TestFilterNarrowsAndComposes(t *testing.T) {
	f := newFixture(t)
	press(t, f.m, "/method:tools/list<enter>")
	v := body(f.m)
	mustContain(t, v, "exchanges 1/3", "filter: method:tools/list")
	mustNotContain(t, v, "initialize ")
	press(t, f.m, "/<ctrl+u>verdict:fail level:must<enter>")
	v = body(f.m)
	mustContain(t, v, "exchanges 1/3", "initialize")
	mustNotContain(t, v, "tools/list")
	press(t, f.m, "<tab>")
	v = body(f.m)
	mustContain(t, v, "result-type-present", "findings: 1 rule(s)")
	mustNotContain(t, v, "deprecated-features-avoided")
}

func TestBadFilterIsRejectedAndKeepsThePrevious(t *testing.T) {
	f := newFixture(t)
	press(t, f.m, "/method:ping<enter>/<ctrl+u>level:may<enter>")
	v := screen(f.m)
	mustContain(t, v, "filter: method:ping", "level:may: use must")
}

func TestEscCancelsAPrompt(t *testing.T) {
	f := newFixture(t)
	press(t, f.m, "/method:ping<esc>")
	if f.m.filterText != "" || f.m.prompt != nil {
		t.Fatalf("esc left filter %q prompt %v", f.m.filterText, f.m.prompt)
	}
}

func TestDetailShowsHeadersBodiesEventsAndFindings(t *testing.T) {
	f := newFixture(t)
	f.m.list.rows[2].Findings = []findings.Finding{finding(t, "deprecated-features-avoided", "tools/call:search", "ex-3", 2)}
	press(t, f.m, "G<enter>")
	f.m.resize(80, 200) // tall enough to see the whole pane
	v := screen(f.m)
	mustContain(t, v, "exchange ex-3", "── request POST http://127.0.0.1:8080/mcp", "Authorization: [redacted]",
		`"method": "tools/call"`, "event 1: message", "event 2: message", `"level": "info"`,
		"── findings: 1 reported, 1 known here", "▲ SHOULD NOT  MCP/2026-07-28/SHOULD-NOT/deprecated-features-avoided",
		"fix: ", "spec: https://", `observed: observed \u001b[31mred`)
	press(t, f.m, "r")
	mustContain(t, screen(f.m), "request body (raw)", `data: {"jsonrpc":"2.0","id":3,"result":{"content":[]}}`)
	press(t, f.m, "<esc>")
	mustContain(t, screen(f.m), "exchanges 3/3")
}

func TestDetailSaysWhenTheExchangeIsGone(t *testing.T) {
	f := newFixture(t)
	press(t, f.m, "g<enter>")
	mustContain(t, screen(f.m), "could not load the exchange: the admin API no longer returns", "── findings: 1 reported, 1 known here")
}

func TestDetailSaysWhenFindingsAreNotKnown(t *testing.T) {
	f := newFixture(t)
	f.cache.AddExchange(Row{ID: "ex-9", Started: t0, Method: "ping", Key: "ping", Status: 200, Graded: "graded", Count: 2})
	refresh(t, f.m)
	press(t, f.m, "G<enter>")
	mustContain(t, screen(f.m), "── findings: 2 reported, 0 known here", "the store keeps each finding's latest exchange only")
}

func TestFindingsViewGroupsByRuleAndOpensARule(t *testing.T) {
	f := newFixture(t)
	extra := finding(t, "result-type-present", "tools/list", "ex-2", 4)
	all := append(f.m.shown.Findings, extra)
	f.cache.SetFindings(all, false)
	refresh(t, f.m)
	press(t, f.m, "<tab>")
	v := body(f.m)
	line := lineWith(v, "result-type-present")
	mustContain(t, line, "✖ MUST", "     5 ", "   2 ", "12:00:00 12:00:04")
	mustContain(t, v, "deprecated-features-avoided")
	if strings.Index(v, "result-type-present") > strings.Index(v, "deprecated-features-avoided") {
		t.Fatalf("MUST rules should sort above SHOULD NOT:\n%s", v)
	}
	press(t, f.m, "<enter>")
	mustContain(t, screen(f.m), "rule MCP/2026-07-28/MUST/result-type-present", "5 occurrence(s) on 2 method/tool key(s)",
		"requirement: ", "── tools/list · 4 time(s) · last exchange ex-2")
}

func TestTabCyclesViews(t *testing.T) {
	f := newFixture(t)
	for _, want := range []string{"findings: 2 rule(s)", "no probe run yet", "exchanges 3/3"} {
		press(t, f.m, "<tab>")
		mustContain(t, screen(f.m), want)
	}
}

func TestProbeShowsProgressThenResult(t *testing.T) {
	f := newFixture(t)
	disc, _ := rules.ByID(ruleID(t, "discover-implemented"))
	env, _ := rules.ByID(ruleID(t, "jsonrpc-envelope"))
	f.api.steps = []ProbeProgress{{Message: "era gate"}, {Message: "checked", RuleID: disc.ID, Status: rules.Fail}}
	f.api.result = &report.Result{Target: "http://127.0.0.1:9100/mcp", Era: "legacy (2025-11-25)", Rules: []report.RuleResult{
		{Rule: env, Status: rules.Pass}, {Rule: disc, Status: rules.Fail}}}
	// Stop after the first progress message to see the run in flight.
	start := drive(t, f.m, keys("p")...)
	drive(t, f.m, start())
	mustContain(t, screen(f.m), "probe running… 0 step(s)", "probing the upstream")
	press(t, f.m, "p")
	mustContain(t, screen(f.m), "a probe is already running")
	exec(t, f.m, nextProbeMsg(f.m.probe.ch))
	v := screen(f.m)
	mustContain(t, v, "probe of http://127.0.0.1:9100/mcp · era legacy (2025-11-25)", "MUST-level    ✓ pass 1  ✖ fail 1",
		"✖ fail", "discover-implemented", "── progress", "era gate", "probe finished: 1 MUST-level", "era legacy (2025-11-25) (probe)")
	if strings.Index(v, "discover-implemented") > strings.Index(v, "jsonrpc-envelope") {
		t.Fatalf("failures should be listed first:\n%s", v)
	}
}

func TestProbeErrorIsShown(t *testing.T) {
	f := newFixture(t)
	f.api.probeErr = fmt.Errorf("the probe could not run: %w", errBoom)
	press(t, f.m, "p")
	mustContain(t, screen(f.m), "! the probe could not run: boom")
}

func TestExportWritesValidSARIFOfTheFilteredFindings(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.sarif")
	drive(t, f.m, tea.WindowSizeMsg{Width: 300, Height: 24})
	press(t, f.m, "/level:must<enter>e<ctrl+u>"+path+"<enter>")
	mustContain(t, screen(f.m), "exported 1 finding(s) to out.sarif in "+dir)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(data); err != nil {
		t.Fatalf("exported SARIF is invalid: %v", err)
	}
	if !strings.Contains(string(data), "result-type-present") || strings.Contains(string(data), "deprecated-features-avoided") {
		t.Fatalf("export ignored the filter:\n%s", data)
	}
}

func TestExportJSONAndRefusesUnknownExtension(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	drive(t, f.m, tea.WindowSizeMsg{Width: 300, Height: 24})
	press(t, f.m, "e<ctrl+u>"+filepath.Join(dir, "out.json")+"<enter>")
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil || !strings.Contains(string(data), report.SchemaVersion) {
		t.Fatalf("JSON export: %v\n%s", err, data)
	}
	press(t, f.m, "e<ctrl+u>"+filepath.Join(dir, "out.md")+"<enter>")
	if data, err := os.ReadFile(filepath.Join(dir, "out.md")); err != nil || !strings.HasPrefix(string(data), "## ") {
		t.Fatalf("Markdown export: %v\n%s", err, data)
	}
	press(t, f.m, "e<ctrl+u>"+filepath.Join(dir, "out.docx")+"<enter>")
	mustContain(t, screen(f.m), "the file name says no format; end it with one of .txt, .json, .sarif")
}

func TestCopyWritesACurlCommand(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(t.TempDir(), "req.sh")
	drive(t, f.m, tea.WindowSizeMsg{Width: 300, Height: 24})
	press(t, f.m, "c<ctrl+u>"+path+"<enter>")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(data), "curl -sS -X 'POST' 'http://127.0.0.1:8080/mcp'", "-H 'Authorization: [redacted]'",
		"put the real ones back", `"arguments":{"q":"it'\''s"}`)
	mustContain(t, screen(f.m), "wrote curl command to req.sh in "+filepath.Dir(path))
	press(t, f.m, "<tab>c")
	mustContain(t, screen(f.m), "select an exchange first")
}

func TestHelpListsEveryKey(t *testing.T) {
	f := newFixture(t)
	press(t, f.m, "?")
	v := screen(f.m)
	for _, group := range f.m.keys.FullHelp() {
		for _, b := range group {
			mustContain(t, v, b.Help().Key+" ")
		}
	}
	mustContain(t, v, "method:tools/call", "verdict:fail")
	press(t, f.m, "j")
	mustNotContain(t, screen(f.m), "any key closes this help")
}

// TestEveryBindingIsInHelp guards the one keyMap: a binding added without a help entry fails.
func TestEveryBindingIsInHelp(t *testing.T) {
	k := defaultKeys()
	inHelp := map[string]bool{}
	for _, g := range k.FullHelp() {
		for _, b := range g {
			inHelp[b.Help().Key] = true
		}
	}
	for _, b := range []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.HalfDown, k.HalfUp, k.Enter, k.Back, k.Tab,
		k.Filter, k.Follow, k.Probe, k.Export, k.Copy, k.Raw, k.Help, k.Quit} {
		if !inHelp[b.Help().Key] {
			t.Errorf("binding %v is not in the help screen", b.Keys())
		}
	}
}

func TestQuit(t *testing.T) {
	f := newFixture(t)
	cmd := drive(t, f.m, keys("q")...)
	if cmd == nil {
		t.Fatal("q returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not quit")
	}
}

func TestControlCharactersNeverReachTheScreen(t *testing.T) {
	f := newFixture(t)
	f.cache.AddExchange(Row{ID: "evil", Target: "http://x/\x1b]52;c;aGk=\x07", Started: t0, Method: "tools/call\x1b[2J", Key: "tools/call:\u202eevil", Status: 200, Graded: "graded"})
	refresh(t, f.m)
	raw := f.m.Render()
	for _, bad := range []string{"\x1b]52", "\x1b[2J", "\u202e", "\x07"} {
		if strings.Contains(raw, bad) {
			t.Fatalf("server-supplied %q reached the terminal", bad)
		}
	}
}

func TestRingBufferSaysHowManyAreNotShown(t *testing.T) {
	cache := NewCache(2)
	for i := range 5 {
		cache.AddExchange(Row{ID: fmt.Sprint(i), Started: t0, Method: "ping", Graded: "graded"})
	}
	m := New(Options{Source: cache, API: &fakeAPI{}, Now: func() time.Time { return t0 }, Location: time.UTC})
	mustContain(t, screen(m), "exchanges 2/2", "3 older not shown")
}

func TestLayoutFitsEverySize(t *testing.T) {
	f := newFixture(t)
	for _, size := range [][2]int{{80, 24}, {120, 40}, {40, 10}, {200, 60}} {
		for _, view := range []string{"", "<tab>", "<tab>", "<tab>", "G<enter>", "?"} {
			press(t, f.m, view)
			drive(t, f.m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			lines := strings.Split(screen(f.m), "\n")
			if len(lines) != size[1] {
				t.Fatalf("at %dx%d after %q the screen has %d lines", size[0], size[1], view, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Fatalf("at %dx%d after %q line %d is %d wide: %q", size[0], size[1], view, i, w, l)
				}
			}
			press(t, f.m, "<esc>")
		}
	}
}

func TestPlainStylesUseNoColour(t *testing.T) {
	f := newFixture(t)
	raw := f.m.Render()
	for _, sgr := range []string{"\x1b[31m", "\x1b[91m", "\x1b[38;", "\x1b[93m", "\x1b[92m"} {
		if strings.Contains(raw, sgr) {
			t.Fatalf("plain styles (NO_COLOR) emitted colour %q", sgr)
		}
	}
	colored := New(Options{Source: f.cache, API: f.api, Now: f.m.opts.Now, Location: time.UTC, Color: true})
	if ansi.Strip(colored.Render()) != ansi.Strip(New(Options{Source: f.cache, API: f.api, Now: f.m.opts.Now, Location: time.UTC}).Render()) {
		t.Fatal("colour changed the text: severity must not depend on colour")
	}
}

// body is the screen without the header, which always shows the unfiltered state.
func body(m *Model) string {
	lines := strings.Split(screen(m), "\n")
	return strings.Join(lines[headerHeight:], "\n")
}

func lineWith(view, s string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
