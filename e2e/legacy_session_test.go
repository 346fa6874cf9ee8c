package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// LegacyStep is one exchange of a scripted 2025-11-25 session.
type LegacyStep struct {
	Method string // JSON-RPC method, or "GET" / "DELETE" for the HTTP-level steps
	Status int    // HTTP status received
	Body   string // the raw response body (SSE included)
}

// LegacySession is the transcript DriveLegacySession returns.
type LegacySession struct {
	SessionID string
	Steps     []LegacyStep
}

// Step returns the first step for method, or a zero step.
func (s LegacySession) Step(method string) LegacyStep {
	for _, st := range s.Steps {
		if st.Method == method {
			return st
		}
	}
	return LegacyStep{}
}

// legacyScript is what an old client does with the unmigrated fixture: every tool, resource,
// prompt and utility, so a proxy in the path sees every seeded violation at least once.
var legacyScript = []struct{ method, params string }{
	{"tools/list", `{}`},
	{"tools/list", `{"cursor":"not-a-cursor"}`},
	{"ping", `{}`},
	{"logging/setLevel", `{"level":"info"}`},
	{"server/discover", `{}`},
	{"tools/call", `{"name":"server_time"}`},
	{"tools/call", `{"name":"fetch_page","arguments":{"url":"https://intranet/onboarding"}}`},
	{"tools/call", `{"name":"get_weather","arguments":{"city":"Paris"}}`},
	{"tools/call", `{"name":"get_weather","arguments":{"city":"Atlantis"}}`},
	{"tools/call", `{"name":"import_notes","arguments":{"count":3}}`},
	{"tools/call", `{"name":"summarize_workspace"}`},
	{"tools/call", `{"name":"bulk_export"}`},
	{"tools/call", `{"name":"sync_calendar"}`},
	{"tools/call", `{"name":"connect_db"}`},
	{"resources/list", `{}`},
	{"resources/read", `{"uri":"notes://logo.png"}`},
	{"resources/read", `{"uri":"notes://missing"}`},
	{"resources/subscribe", `{"uri":"notes://readme"}`},
	{"prompts/list", `{}`},
	{"prompts/get", `{"name":"daily_summary","arguments":{"date":"2025-11-03"}}`},
	{"completion/complete", `{"ref":{"type":"ref/prompt","name":"weather_report"},"argument":{"name":"station","value":"st"}}`},
}

// DriveLegacySession plays a whole 2025-11-25 client session against url (the fixture itself, or a
// proxy in front of it): initialize, notifications/initialized, every step of legacyScript with
// the session id (answering the server's roots and sampling requests), a short read of the GET
// stream, and DELETE. Each HTTP exchange has a 10 s deadline; transport errors fail the test.
func DriveLegacySession(t testing.TB, url string) LegacySession {
	t.Helper()
	d := &legacyDriver{t: t, url: url, client: &http.Client{Timeout: 10 * time.Second}}
	init := d.post("initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",`+
		`"capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"scripted-legacy-client","version":"1.0"}}}`)
	if d.session == "" {
		t.Fatalf("initialize at %s minted no Mcp-Session-Id (status %d): %s", url, init.Status, init.Body)
	}
	d.post("notifications/initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, s := range legacyScript {
		d.post(s.method, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, i+1, s.method, s.params))
	}
	d.stream()
	d.send(http.MethodDelete, "DELETE", "")
	return LegacySession{SessionID: d.session, Steps: d.steps}
}

type legacyDriver struct {
	t       testing.TB
	url     string
	client  *http.Client
	session string
	steps   []LegacyStep
}

// post sends one JSON-RPC message and records the step.
func (d *legacyDriver) post(method, body string) LegacyStep {
	d.t.Helper()
	return d.send(http.MethodPost, method, body)
}

func (d *legacyDriver) send(httpMethod, label, body string) LegacyStep {
	d.t.Helper()
	req, err := http.NewRequestWithContext(WithDeadline(d.t, 10*time.Second), httpMethod, d.url, strings.NewReader(body))
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if d.session != "" {
		req.Header.Set("Mcp-Session-Id", d.session)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		d.t.Fatalf("%s %s: %v", label, d.url, err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && d.session == "" {
		d.session = sid
	}
	var raw strings.Builder
	sc := bufio.NewScanner(io.TeeReader(io.LimitReader(resp.Body, 1<<20), &raw))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			d.answer(data)
		}
	}
	st := LegacyStep{Method: label, Status: resp.StatusCode, Body: raw.String()}
	d.steps = append(d.steps, st)
	return st
}

// answer replies to a server-to-client request seen on a stream, as an old client did.
func (d *legacyDriver) answer(data string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal([]byte(data), &m) != nil || len(m.ID) == 0 || m.Method == "" {
		return
	}
	result := map[string]string{
		"roots/list":             `{"roots":[{"uri":"file:///home/ana/notes","name":"notes"}]}`,
		"sampling/createMessage": `{"role":"assistant","content":{"type":"text","text":"two notebooks of team notes"},"model":"scripted"}`,
	}[m.Method]
	if result == "" {
		return
	}
	d.post("response:"+m.Method, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
}

// stream reads the standalone GET stream from the start until the first event or 2 s.
func (d *legacyDriver) stream() {
	d.t.Helper()
	req, err := http.NewRequestWithContext(WithDeadline(d.t, 2*time.Second), http.MethodGet, d.url, nil)
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", d.session)
	req.Header.Set("Last-Event-ID", "0")
	resp, err := d.client.Do(req)
	if err != nil {
		d.t.Fatalf("GET stream: %v", err)
	}
	defer resp.Body.Close()
	var got strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		got.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "data: ") {
			break
		}
	}
	d.steps = append(d.steps, LegacyStep{Method: "GET", Status: resp.StatusCode, Body: got.String()})
}

// TestLegacySessionAgainstUnmigratedFixture plays the scripted old client straight at the
// unmigrated fixture: every step must be served as a 2025 server serves it, which is what a proxy
// in the path will grade.
func TestLegacySessionAgainstUnmigratedFixture(t *testing.T) {
	srv := StartFixture(t, "unmigrated")
	s := DriveLegacySession(t, srv.URL)
	if n := len(s.Steps); n < len(legacyScript)+4 {
		t.Fatalf("only %d steps recorded", n)
	}
	checks := []struct {
		step, want string
	}{
		{"tools/list", `"notes/search"`},
		{"server/discover", `-32601`},
		{"resources/read", `"blob"`},
		{"response:sampling/createMessage", ``},
		{"GET", `id: 1`},
	}
	for _, c := range checks {
		st := s.Step(c.step)
		if st.Status == 0 || !strings.Contains(st.Body, c.want) {
			t.Errorf("step %s: status %d body %.200q, want it to contain %q", c.step, st.Status, st.Body, c.want)
		}
	}
	if st := s.Step("DELETE"); st.Status != http.StatusOK {
		t.Errorf("DELETE: %d", st.Status)
	}
	injected := false
	for _, st := range s.Steps {
		injected = injected || strings.Contains(st.Body, "Ignore previous instructions")
	}
	if !injected {
		t.Errorf("no step carried the prompt injection of fetch_page")
	}
}
