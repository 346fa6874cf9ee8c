package e2e

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/report/sarifcheck"
)

// updateScreens rewrites tui/testdata/e2e/*.txt, the capture-pane screenshots of a real run.
// They hold times and ports of that run, so they illustrate and are not compared; the
// compared goldens are tui/testdata/views (same screens, frozen clock).
var updateScreens = flag.Bool("update-screens", false, "rewrite tui/testdata/e2e screenshots from a real tmux run")

// tmuxSession drives one program in a detached 80x24 tmux session on a private server socket,
// so the test never touches the user's tmux and kills only the server it started.
type tmuxSession struct {
	t      *testing.T
	socket string
}

const tmuxSessionName = "tui"

func startTmux(t *testing.T, dir string, env []string, argv ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if testing.Short() {
			t.Skip("tmux is not installed")
		}
		t.Fatal("tmux is not installed: apt-get install tmux")
	}
	x := &tmuxSession{t: t, socket: fmt.Sprintf("sentinel-e2e-tui-%d", os.Getpid())}
	args := []string{"new-session", "-d", "-x", "80", "-y", "24", "-s", tmuxSessionName, "-c", dir}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	x.run(append(args, strings.Join(quoteAll(argv), " "))...)
	t.Cleanup(func() { _, _ = x.exec("kill-server") })
	return x
}

func quoteAll(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}

func (x *tmuxSession) exec(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (x *tmuxSession) run(args ...string) string {
	x.t.Helper()
	out, err := x.exec(args...)
	if err != nil {
		x.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return out
}

// keys sends named keys (Enter, Tab, Escape) one by one.
func (x *tmuxSession) keys(keys ...string) {
	x.t.Helper()
	for _, k := range keys {
		x.run("send-keys", "-t", tmuxSessionName, k)
	}
}

// typeText sends literal text.
func (x *tmuxSession) typeText(s string) {
	x.t.Helper()
	x.run("send-keys", "-t", tmuxSessionName, "-l", s)
}

func (x *tmuxSession) capture() string {
	x.t.Helper()
	return x.run("capture-pane", "-p", "-t", tmuxSessionName)
}

// waitFor polls the screen until cond holds, at most d; it fails with the last screen.
func (x *tmuxSession) waitFor(what string, d time.Duration, cond func(screen string) bool) string {
	x.t.Helper()
	deadline := time.Now().Add(d)
	var s string
	for time.Now().Before(deadline) {
		s = x.capture()
		if cond(s) {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	x.t.Fatalf("waited %v for %s; the screen:\n%s", d, what, s)
	return ""
}

func (x *tmuxSession) waitForText(d time.Duration, wants ...string) string {
	x.t.Helper()
	return x.waitFor(fmt.Sprintf("%q", wants), d, func(s string) bool {
		for _, w := range wants {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// saveScreen records a screenshot under -update-screens.
func saveScreen(t *testing.T, name, screen string) {
	t.Helper()
	t.Logf("screen %s:\n%s", name, screen)
	if !*updateScreens {
		return
	}
	path := filepath.Join(moduleRoot, "tui", "testdata", "e2e", name+".txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(screen), 0o644); err != nil {
		t.Fatal(err)
	}
}

// oldClient speaks the pre-2026 handshake to an endpoint, as an unmigrated client does.
type oldClient struct {
	t       *testing.T
	url     string
	session string
}

func (c *oldClient) post(body string) (int, string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", c.url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		c.session = s
	}
	return resp.StatusCode, string(b)
}

// TestTUIAgainstARealProxy drives `sentinel tui` in tmux against a real `sentinel proxy` in
// front of the unmigrated fixture: traffic appears with findings, a filter narrows them, p runs
// the prober through the proxy, e writes SARIF that validates, ? lists the keys, q quits.
func TestTUIAgainstARealProxy(t *testing.T) {
	sentinel := BuildBinary(t, "sentinel")
	fixture := StartFixture(t, "unmigrated")
	work := t.TempDir()
	admin := freeAddr(t)
	px := StartServer(t, sentinel, "proxy", "--upstream", fixture.URL, "--listen", "127.0.0.1:0",
		"--admin", admin, "--db", filepath.Join(work, "findings.db"))

	c := &oldClient{t: t, url: px.URL}
	if code, body := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`); code != http.StatusOK {
		t.Fatalf("initialize through the proxy: %d %s", code, body)
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fetch_page","arguments":{"url":"https://intranet/onboarding"}}}`)

	x := startTmux(t, work, []string{"NO_COLOR=1"}, sentinel, "tui", "--admin", "http://"+admin)
	// The rows arrive before their findings: until the findings poll lands, a row's badge says
	// "✖ n fail" and the header says its counts are not read yet. Both are true screens, so wait
	// for the graded one rather than reading whichever the first capture caught.
	badge := regexp.MustCompile(`✖ \d+ MUST|▲ \d+ SHOULD`)
	counted := regexp.MustCompile(`failing rules ✖ MUST [1-9]`)
	s := x.waitFor("rows with their verdict badges and the header's counts", 30*time.Second, func(s string) bool {
		for _, w := range []string{"● live", "era legacy (initialize)", "initialize", "tools/call", "fetch_page"} {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return badge.MatchString(s) && counted.MatchString(s)
	})
	saveScreen(t, "exchanges", s)

	// A filter narrows the list: only tools/call remains.
	x.keys("/")
	x.typeText("method:tools/call")
	x.keys("Enter")
	s = x.waitForText(10*time.Second, "filter: method:tools/call", "exchanges 1/")
	if strings.Contains(strings.Join(strings.Split(s, "\n")[3:], "\n"), " initialize ") {
		t.Fatalf("the filter kept initialize:\n%s", s)
	}
	saveScreen(t, "exchanges-filtered", s)

	// The detail of the selected exchange shows its request.
	x.keys("Enter")
	s = x.waitForText(10*time.Second, "exchange ", "── request POST")
	saveScreen(t, "detail", s)
	// A lone ESC is told apart from an escape sequence by a pause, so wait for its effect
	// before the next key (else ESC Tab reads as alt+tab).
	x.keys("Escape")
	x.waitForText(5*time.Second, "TIME", "VERDICT")

	// The findings view groups them by rule.
	x.keys("Tab")
	s = x.waitForText(10*time.Second, "LEVEL", "COUNT", "findings: ")
	saveScreen(t, "findings", s)

	// p runs the active prober through the proxy; its result arrives on screen.
	x.keys("p")
	s = x.waitForText(3*time.Minute, "probe finished")
	if !strings.Contains(s, "probe of ") || !strings.Contains(s, "MUST-level") {
		t.Fatalf("the probe result is not shown:\n%s", s)
	}
	saveScreen(t, "probe", s)

	// e exports the current filter to SARIF (the default name), which validates.
	x.keys("e")
	x.waitForText(5*time.Second, "export filtered findings to")
	x.keys("Enter")
	x.waitForText(10*time.Second, "finding(s) to sentinel-findings.sarif in ")
	data, err := os.ReadFile(filepath.Join(work, "sentinel-findings.sarif"))
	if err != nil {
		t.Fatalf("the export was not written where the TUI runs: %v", err)
	}
	if err := sarifcheck.Validate(data); err != nil {
		t.Fatalf("the exported SARIF does not validate: %v", err)
	}
	if !strings.Contains(string(data), "tools/call") {
		t.Fatalf("the export lost the filtered findings:\n%s", data)
	}

	// ? lists every key; q quits and ends the session.
	x.keys("?")
	s = x.waitForText(5*time.Second, "keys (any key closes this help)")
	for _, k := range []string{"k/↑", "j/↓", "g ", "G ", "ctrl+d", "ctrl+u", "enter", "esc", "tab", "/ ", "f ", "p ", "e ", "c ", "r ", "? ", "q "} {
		if !strings.Contains(s, k) {
			t.Errorf("help lacks %q:\n%s", k, s)
		}
	}
	saveScreen(t, "help", s)
	x.keys("j") // any key closes the help
	x.waitFor("the help to close", 5*time.Second, func(s string) bool { return !strings.Contains(s, "any key closes") })
	x.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := x.exec("has-session", "-t", tmuxSessionName); err != nil {
			return // the TUI exited and its session closed
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("q did not quit; the screen:\n%s", x.capture())
}
