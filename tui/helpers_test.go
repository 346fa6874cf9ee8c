package tui

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// t0 is the frozen clock every model test uses.
var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fakeAPI answers the model's on-demand requests from memory.
type fakeAPI struct {
	exchanges map[string]findings.Exchange
	steps     []ProbeProgress
	result    *report.Result
	probeErr  error
}

func (f *fakeAPI) URL() string { return "http://127.0.0.1:9101" }

func (f *fakeAPI) Exchange(_ context.Context, r Row) (findings.Exchange, error) {
	ex, ok := f.exchanges[r.ID]
	if !ok {
		return findings.Exchange{}, ErrExchangeGone
	}
	return ex, nil
}

func (f *fakeAPI) Probe(_ context.Context, _ string, progress func(ProbeProgress)) (*report.Result, error) {
	for _, s := range f.steps {
		progress(s)
	}
	return f.result, f.probeErr
}

// ruleID is a registry rule's full ID, looked up by name so a level correction breaks nothing.
func ruleID(t testing.TB, name string) string {
	t.Helper()
	id := rules.IDOf(name)
	if id == "" {
		t.Fatalf("rule %q is not in the registry", name)
	}
	return id
}

// finding builds a stored finding for a registry rule, as the proxy records it.
func finding(t testing.TB, name, key, exchange string, count int64) findings.Finding {
	t.Helper()
	f := findings.FromOutcome("http://127.0.0.1:8080/mcp", key,
		rules.Outcome{RuleID: ruleID(t, name), Status: rules.Fail, Observed: "observed \x1b[31mred\x1b[0m for " + name, Exchange: exchange}, t0)
	f.Count = count
	f.LastSeen = t0.Add(time.Duration(count) * time.Second)
	return f
}

// fixture is a model over a cache with a few exchanges of an old-style client.
type fixture struct {
	cache *Cache
	api   *fakeAPI
	m     *Model
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	cache := NewCache(0)
	sess := finding(t, "result-type-present", "initialize", "ex-1", 1)
	disc := finding(t, "deprecated-features-avoided", "tools/call:search", "ex-3", 2)
	cache.SetFindings([]findings.Finding{disc, sess}, false)
	rows := []Row{
		{ID: "ex-3", Target: "http://127.0.0.1:8080/mcp", Started: t0.Add(2 * time.Second), Method: "tools/call", Key: "tools/call:search", Status: 200, Graded: "graded", Count: 1, Duration: 12 * time.Millisecond},
		{ID: "ex-2", Target: "http://127.0.0.1:8080/mcp", Started: t0.Add(time.Second), Method: "tools/list", Key: "tools/list", Status: 200, Graded: "graded", Duration: 3 * time.Millisecond},
		{ID: "ex-1", Target: "http://127.0.0.1:8080/mcp", Started: t0, Method: "initialize", Key: "initialize", Status: 200, Graded: "graded", Count: 1, Duration: 5 * time.Millisecond},
	}
	cache.AddExchanges(rows)
	cache.AddFeatures([]string{"logging"})
	cache.SetConn(Conn{State: Live, Since: t0})
	api := &fakeAPI{exchanges: map[string]findings.Exchange{
		"ex-3": {ID: "ex-3", Target: "http://127.0.0.1:8080/mcp", HTTPMethod: "POST", URL: "http://127.0.0.1:8080/mcp", Status: 200,
			RequestHeader:  http.Header{"Content-Type": {"application/json"}, "Authorization": {findings.Redacted}},
			RequestBody:    []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"q":"it's"}}}`),
			ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}},
			ResponseBody:   []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\"}}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[]}}\n\n")},
	}}
	m := New(Options{Source: cache, API: api, Now: func() time.Time { return t0 }, Location: time.UTC, Tool: "sentinel test"})
	f := &fixture{cache: cache, api: api, m: m}
	drive(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	return f
}

// drive feeds messages to the model in order and returns the command the last one produced.
func drive(t testing.TB, m *Model, msgs ...tea.Msg) tea.Cmd {
	t.Helper()
	var cmd tea.Cmd
	for _, msg := range msgs {
		_, cmd = m.Update(msg)
	}
	return cmd
}

// exec runs a command that returns promptly (a fetch, an export) and feeds its message back,
// following probe channels until the run is done.
func exec(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	for i := 0; cmd != nil && i < 1000; i++ {
		done := make(chan tea.Msg, 1)
		go func() { done <- cmd() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("a command did not return within 5s")
		}
		if msg == nil {
			return
		}
		cmd = drive(t, m, msg)
	}
}

// refresh makes the model pick up the cache now, as the tick would.
func refresh(t testing.TB, m *Model) { drive(t, m, changedMsg{}, tickMsg(t0)) }

// keys turns a key description into key presses: single characters, or named keys in angle
// brackets (<enter> <tab> <esc> <ctrl+d> <ctrl+u> <backspace>).
func keys(s string) []tea.Msg {
	var out []tea.Msg
	for len(s) > 0 {
		if s[0] == '<' {
			end := strings.IndexByte(s, '>')
			out = append(out, named(s[1:end]))
			s = s[end+1:]
			continue
		}
		r := []rune(s)[0]
		if r == ' ' {
			out = append(out, tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
		} else {
			out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		s = s[len(string(r)):]
	}
	return out
}

func named(n string) tea.KeyPressMsg {
	switch n {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	}
	panic("unknown key " + n)
}

// press types keys and runs what they start (fetches, exports, probes) to completion.
func press(t testing.TB, m *Model, s string) {
	t.Helper()
	for _, k := range keys(s) {
		exec(t, m, drive(t, m, k))
	}
}

// screen is the view with ANSI stripped.
func screen(m *Model) string { return ansi.Strip(m.Render()) }

func mustContain(t testing.TB, view string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(view, w) {
			t.Fatalf("screen lacks %q:\n%s", w, view)
		}
	}
}

func mustNotContain(t testing.TB, view string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(view, w) {
			t.Fatalf("screen shows %q:\n%s", w, view)
		}
	}
}

var errBoom = errors.New("boom")
