package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/stdio"
	"github.com/mcp-sentinel/sentinel/wire"
)

// The stdio acceptance: `sentinel probe --command` against real stdio servers that are not the
// harness's (the broker's serve --stdio, both fixtures over stdio, server-everything 2026.8.31 and
// 2025.9.25 from npm), and against servers that misbehave in every way a local process can.

// scanStdio runs `sentinel probe --format json ... -- argv...` and decodes the report.
func scanStdio(t *testing.T, flags []string, argv ...string) (int, *report.Result, Result) {
	t.Helper()
	args := append([]string{"probe", "--format", "json", "--timeout", "100s"}, flags...)
	args = append(append(args, "--"), argv...)
	out := RunBinary(t, BuildBinary(t, "sentinel"), args...)
	res, err := report.Decode(bytes.NewReader([]byte(out.Stdout)))
	if err != nil {
		t.Fatalf("decoding the JSON report (exit %d): %v\nstderr: %s", out.ExitCode, err, tail(out.Stderr, 20))
	}
	return out.ExitCode, res, out
}

// ruleStatus maps each rule name to its status in res.
func ruleStatus(res *report.Result) map[string]rules.Status {
	out := map[string]rules.Status{}
	for _, rr := range res.Rules {
		out[rr.Rule.Name] = rr.Status
	}
	return out
}

// checkTransportGating: every HTTP-only rule is n/a with the transport named as the reason, and
// no stdio rule is n/a.
func checkTransportGating(t *testing.T, res *report.Result) {
	t.Helper()
	for _, rr := range res.Rules {
		switch rr.Rule.Transport {
		case rules.TransportHTTP:
			if rr.Status != rules.NotApplicable || !strings.Contains(rr.Why(), "HTTP-only") {
				t.Errorf("HTTP-only %s over stdio: %s (%s), want n/a naming the transport", rr.Rule.Name, rr.Status, rr.Why())
			}
		case rules.TransportAny:
			// a rule of every transport may be n/a for its own reasons
		case rules.TransportStdio:
			if rr.Status == rules.NotApplicable {
				t.Errorf("stdio rule %s is n/a over stdio: %s", rr.Rule.Name, rr.Why())
			}
		}
	}
}

// TestStdioScanOfTheConformantFixture: the conformant fixture over stdio passes, every stdio rule
// a scan can settle passes, and every protocol-level verdict is the one the same fixture gets over
// HTTP — the transport changes which rules apply, never what a rule concludes.
func TestStdioScanOfTheConformantFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and the fixture and scans it twice; skipped under -short")
	}
	fixture := BuildBinary(t, "fixture")
	code, res, out := scanStdio(t, conformantScanFlags, fixture, "serve", "conformant", "--stdio", "--without-deprecated")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, tail(out.Stderr, 20))
	}
	if !strings.HasPrefix(res.Target, "stdio: ") || res.Era != wire.ProtocolVersion {
		t.Errorf("target %q era %q", res.Target, res.Era)
	}
	checkTransportGating(t, res)
	st := ruleStatus(res)
	for _, name := range []string{"stdio-newline-delimited", "stdio-stdout-messages-only", "stdio-no-server-requests", "stdio-exit-on-stdin-close", "stdio-nothing-after-cancel"} {
		if st[name] != rules.Pass {
			t.Errorf("%s: %s, want pass", name, st[name])
		}
	}

	srv := StartFixture(t, "conformant", "--without-deprecated")
	_, overHTTP := scanJSON(t, srv.URL, conformantScanFlags...)
	for _, rr := range overHTTP.Rules {
		if rr.Rule.Transport != rules.TransportAny {
			continue
		}
		if got := st[rr.Rule.Name]; got != rr.Status {
			t.Errorf("%s: %s over stdio, %s over HTTP", rr.Rule.Name, got, rr.Status)
		}
	}
}

// TestStdioScanOfTheUnmigratedFixture: every seeded violation of a rule that binds a stdio
// server fails over stdio too, the server-initiated requests the HTTP scan fails as
// no-server-initiated-requests fail as the stdio binding's own rule, and the exit is 1.
func TestStdioScanOfTheUnmigratedFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and the fixture and scans it; skipped under -short")
	}
	seeded := FixtureSeeded(t)
	code, res, out := scanStdio(t, unmigratedScanFlags, BuildBinary(t, "fixture"), "serve", "unmigrated", "--stdio")
	if code != 1 || !strings.HasPrefix(res.Era, "legacy") {
		t.Fatalf("exit %d era %q, want 1 and legacy\n%s", code, res.Era, tail(out.Stderr, 20))
	}
	checkTransportGating(t, res)
	st := ruleStatus(res)
	for _, name := range seeded {
		r, _ := rules.ByName(name)
		if applies, _ := r.AppliesOver(rules.TransportStdio); applies && st[name] != rules.Fail {
			t.Errorf("seeded %s: %s over stdio, want fail", name, st[name])
		}
	}
	if st["stdio-no-server-requests"] != rules.Fail {
		t.Errorf("stdio-no-server-requests: %s, want fail (the fixture asks the client for roots and samples)", st["stdio-no-server-requests"])
	}
	for _, rr := range res.Rules {
		if rr.Status == rules.Pass {
			t.Errorf("%s passed on a legacy server", rr.Rule.Name)
		}
	}
}

// TestStdioScanOfTheBroker: the broker's own stdio mode passes the gate with no failure at all.
func TestStdioScanOfTheBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and the broker and scans it; skipped under -short")
	}
	db := filepath.Join(t.TempDir(), "broker.db")
	code, res, out := scanStdio(t, []string{"--cwd", t.TempDir()}, BuildBinary(t, "broker"), "serve", "--stdio", "--dev", "--db", db)
	if code != 0 || res.Era != wire.ProtocolVersion {
		t.Fatalf("exit %d era %q, want 0 and %s\n%s", code, res.Era, wire.ProtocolVersion, tail(out.Stderr, 20))
	}
	checkTransportGating(t, res)
	for _, rr := range res.Rules {
		if rr.Status == rules.Fail {
			t.Errorf("the broker fails %s over stdio: %s", rr.Rule.Name, rr.Observed())
		}
	}
	if st := ruleStatus(res); st["stdio-exit-on-stdin-close"] != rules.Pass || st["stdio-stdout-messages-only"] != rules.Pass {
		t.Errorf("stdio rules: exit-on-stdin-close %s, stdout-messages-only %s", st["stdio-exit-on-stdin-close"], st["stdio-stdout-messages-only"])
	}
}

// everythingFlags keep server-everything's slow read-only tool short, so the scan's time is the
// scanner's, not the tool's ten-second default.
var everythingFlags = []string{"--tool-args", `trigger-long-running-operation={"duration":1,"steps":2}`}

// everythingArgv is the command line of one server-everything release in stdio mode, run by
// env -i with a small fixed environment: its get-env tool returns the whole environment, which
// the scan calls (it is read-only) and grades, and a verdict must not depend on the variables of
// the machine that runs the test.
func everythingArgv(t *testing.T, version string) []string {
	t.Helper()
	node := filepath.Join(RequireTool(t, EnvNodeBin), "node")
	script := filepath.Join(RequireTool(t, EnvThirdParty), "everything-"+version, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skipf("env(1) is needed to give server-everything a fixed environment: %v", err)
	}
	return []string{env, "-i", "PATH=/usr/bin:/bin", "HOME=/nonexistent", node, script, "stdio"}
}

// stdioPeer is a direct pipe to a server, for demonstrating a finding by hand: one request, one
// answer, no prober in between.
type stdioPeer struct {
	t    *testing.T
	conn *stdio.Conn
	n    int
}

func startPeer(t *testing.T, argv []string) *stdioPeer {
	t.Helper()
	p, err := stdio.Start(context.Background(), stdio.Options{Path: argv[0], Args: argv[1:]})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	return &stdioPeer{t: t, conn: stdio.Dial(p, stdio.ConnOptions{})}
}

// call sends method with params (nil: no params member) and returns the exchange.
func (p *stdioPeer) call(method string, params any) *wire.Exchange {
	p.t.Helper()
	p.n++
	msg := map[string]any{"jsonrpc": "2.0", "id": p.n, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	x, err := p.conn.Call(ctx, b)
	if x == nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	return x.Exchange(fmt.Sprint(p.n), "demo")
}

// legacy opens the 2025 handshake on p, as a 2025 client would.
func (p *stdioPeer) legacy() *stdioPeer {
	p.t.Helper()
	p.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "curl", "version": "1"}})
	if _, err := p.conn.Notify(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		p.t.Fatal(err)
	}
	return p
}

func meta2026(extra map[string]any) map[string]any {
	m := map[string]any{wire.MetaProtocolVersion: wire.ProtocolVersion, wire.MetaClientCapabilities: map[string]any{}}
	for k, v := range extra {
		m[k] = v
	}
	return map[string]any{"_meta": m}
}

func served(ex *wire.Exchange) bool { return ex.Reply() != nil && ex.Reply().Error == nil }

// everythingMustFailures are the MUST failures a stdio scan reports on server-everything 2026.8.31,
// each shown here with one request on a direct pipe, clause by clause; nothing else at MUST level
// may fail. It speaks 2025-11-25 only, so the scan runs inside its legacy session, where what it
// does wrong by the 2026-07-28 rules is a failure.
var everythingMustFailures = map[string]func(t *testing.T, argv []string) (bool, string){
	// server/discover: servers MUST implement it. It answers -32601.
	"discover-implemented": demonstrateNoDiscoverStdio,
	// basic: servers MUST support this revision's request/response pattern; the same answer shows
	// they do not.
	"support-message-patterns": demonstrateNoDiscoverStdio,
	// stdio cancellation: after notifications/cancelled the server sends nothing more for the
	// request. It goes on sending the cancelled call's progress (the scan cancels one on purpose).
	"stdio-nothing-after-cancel": demonstrateProgressAfterCancelStdio,
	// changelog / versioning: initialize is removed on the 2026-07-28 path; a request in the new
	// envelope is still served.
	"removed-methods-absent": func(t *testing.T, argv []string) (bool, string) {
		ex := startPeer(t, argv).call("initialize", map[string]any{"protocolVersion": wire.ProtocolVersion, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "curl", "version": "1"}, "_meta": meta2026(nil)["_meta"]})
		return served(ex), ex.Summary()
	},
	// basic#_meta: a request without _meta MUST be rejected with -32602; ping without it is served.
	"meta-required-reject": func(t *testing.T, argv []string) (bool, string) {
		ex := startPeer(t, argv).legacy().call("ping", nil)
		return served(ex), ex.Summary()
	},
	// versioning: an unimplemented version MUST get -32022; 2999-01-01 is served.
	"unsupported-version-error": func(t *testing.T, argv []string) (bool, string) {
		ex := startPeer(t, argv).legacy().call("ping", map[string]any{"_meta": map[string]any{wire.MetaProtocolVersion: "2999-01-01", wire.MetaClientCapabilities: map[string]any{}}})
		return served(ex), ex.Summary()
	},
	// caching: a complete prompts/list result MUST carry ttlMs and cacheScope.
	"cache-hints-present": func(t *testing.T, argv []string) (bool, string) {
		ex := startPeer(t, argv).legacy().call("prompts/list", meta2026(nil))
		return served(ex) && ex.Reply().ResultField("ttlMs") == nil && ex.Reply().ResultField("cacheScope") == nil, ex.Summary()
	},
	// basic#result-responses: every result MUST carry resultType.
	"result-type-present": func(t *testing.T, argv []string) (bool, string) {
		ex := startPeer(t, argv).legacy().call("prompts/list", meta2026(nil))
		return served(ex) && ex.Reply().ResultType() == "", ex.Summary()
	},
	// logging#per-request-log-level: no notifications/message for a request whose _meta has no
	// logLevel; resources/subscribe sends one.
	"no-log-without-loglevel": func(t *testing.T, argv []string) (bool, string) {
		p := startPeer(t, argv).legacy()
		var list struct {
			Resources []struct{ URI string } `json:"resources"`
		}
		if err := wire.Decode(p.call("resources/list", meta2026(nil)).Reply().Result, &list); err != nil || len(list.Resources) == 0 {
			return false, fmt.Sprintf("resources/list gave no resource (%v)", err)
		}
		params := meta2026(nil)
		params["uri"] = list.Resources[0].URI
		ex := p.call("resources/subscribe", params)
		for _, m := range ex.Response.Messages {
			if m.Method == "notifications/message" {
				return true, ex.Summary() + " with a notifications/message"
			}
		}
		return false, ex.Summary() + " without a notifications/message"
	},
}

// demonstrateProgressAfterCancelStdio calls the long-running tool with a progress token in a
// 2025 session, cancels it at its first progress notification (CallUntil does, as a client that
// stops reading), answers two pings in turn, and waits for more progress for that token.
func demonstrateProgressAfterCancelStdio(t *testing.T, argv []string) (bool, string) {
	p := startPeer(t, argv).legacy()
	p.n++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.n, "method": "tools/call", "params": map[string]any{
		"name": "trigger-long-running-operation", "arguments": map[string]any{"duration": 3, "steps": 6},
		"_meta": map[string]any{"progressToken": "demo-cancel"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	x, err := p.conn.CallUntil(ctx, b, func(m *wire.Message) bool { return m.Method == "notifications/progress" })
	if x == nil || x.End != wire.EndUntil {
		return false, fmt.Sprintf("the call did not report progress before it ended (%v)", err)
	}
	for range 2 {
		p.call("ping", nil)
	}
	wctx, stop := context.WithTimeout(ctx, 3*time.Second)
	defer stop()
	f, err := p.conn.WaitFor(wctx, p.conn.Seq(), func(f wire.Frame) bool {
		return f.Dir == wire.ToClient && f.Message != nil && f.Message.Method == "notifications/progress" &&
			strings.Contains(string(f.Message.ParamField("progressToken")), "demo-cancel")
	})
	if err != nil {
		return false, "no progress for the cancelled call after two later answers: " + err.Error()
	}
	return true, "progress after the cancellation and two later answers: " + string(f.Line.Bytes)
}

func demonstrateNoDiscoverStdio(t *testing.T, argv []string) (bool, string) {
	ex := startPeer(t, argv).call("server/discover", meta2026(nil))
	code, isErr := ex.ErrorCode()
	return isErr && code == wire.CodeMethodNotFound, ex.Summary()
}

// TestStdioScanOfServerEverything2026 is the "modern release" acceptance: server-everything
// 2026.8.31 over stdio fails the gate only with the MUST failures pinned above, each shown by
// hand; its stdio framing, stdout and shutdown pass.
func TestStdioScanOfServerEverything2026(t *testing.T) {
	if testing.Short() {
		t.Skip("runs server-everything under Node 22 and scans it; skipped under -short")
	}
	argv := everythingArgv(t, "2026.8.31")
	code, res, out := scanStdio(t, everythingFlags, argv...)
	if code != 1 || !strings.HasPrefix(res.Era, "legacy") {
		t.Fatalf("exit %d era %q, want 1 and a legacy era\n%s", code, res.Era, tail(out.Stderr, 20))
	}
	checkTransportGating(t, res)
	var failed []string
	for _, rr := range res.Rules {
		if rr.Status != rules.Fail || !rr.Rule.Level.Mandatory() {
			continue
		}
		failed = append(failed, rr.Rule.Name)
		if _, ok := everythingMustFailures[rr.Rule.Name]; !ok {
			t.Errorf("unpinned MUST failure %s: %s", rr.Rule.Name, rr.Observed())
		}
	}
	for name, demonstrate := range everythingMustFailures {
		if !slices.Contains(failed, name) {
			t.Errorf("pinned %s did not fail", name)
		}
		if shows, got := demonstrate(t, argv); !shows {
			t.Errorf("%s is not demonstrated by hand: %s", name, got)
		}
	}
	st := ruleStatus(res)
	for _, name := range []string{"stdio-newline-delimited", "stdio-stdout-messages-only", "stdio-no-server-requests"} {
		if st[name] == rules.Fail {
			t.Errorf("%s failed on a server whose stdout is clean", name)
		}
	}
	checkREADMEStdioSample(t, res)
}

// checkREADMEStdioSample renders the scan as the text report (at 80 columns, the target named as
// the README names it) and checks that every line of the README's stdio sample is in it, so the
// sample cannot drift from what a scan prints.
func checkREADMEStdioSample(t *testing.T, res *report.Result) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const start, end = "<!-- stdio sample:", "<!-- end of stdio sample -->"
	i, j := bytes.Index(readme, []byte(start)), bytes.Index(readme, []byte(end))
	if i < 0 || j < i {
		t.Fatal("README.md has no stdio sample markers")
	}
	r := *res
	r.Target = "stdio: node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio"
	rd, err := report.New(report.FormatText, &report.Options{Width: 80})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rd.Render(&buf, &r); err != nil {
		t.Fatal(err)
	}
	rendered := buf.String()
	for _, line := range strings.Split(string(readme[i:j]), "\n")[1:] {
		if strings.HasPrefix(line, "```") || strings.TrimSpace(line) == "" || strings.TrimSpace(line) == "…" {
			continue
		}
		if !strings.Contains(rendered, line+"\n") {
			t.Errorf("the README's stdio sample says %q, which this scan does not print", line)
		}
	}
}

// TestStdioScanOfServerEverything2025 is the "old release" acceptance: server-everything 2025.9.25
// fails the gate, and its deprecation debt is listed: the initialize handshake, standalone
// server-to-client requests (it asks the client to sample), Logging and Sampling — and none of
// HTTP's removals, which a stdio server cannot rely on.
func TestStdioScanOfServerEverything2025(t *testing.T) {
	if testing.Short() {
		t.Skip("runs server-everything under Node 22 and scans it; skipped under -short")
	}
	code, res, out := scanStdio(t, everythingFlags, everythingArgv(t, "2025.9.25")...)
	if code != 1 || !strings.HasPrefix(res.Era, "legacy") {
		t.Fatalf("exit %d era %q, want 1 and a legacy era\n%s", code, res.Era, tail(out.Stderr, 20))
	}
	checkTransportGating(t, res)
	if st := ruleStatus(res); st["stdio-no-server-requests"] != rules.Fail || st["discover-implemented"] != rules.Fail {
		t.Errorf("stdio-no-server-requests %s, discover-implemented %s; want both failed", st["stdio-no-server-requests"], st["discover-implemented"])
	}
	if res.Deprecations == nil {
		t.Fatal("the report carries no deprecation inventory")
	}
	keys := map[string]bool{}
	for _, it := range res.Deprecations.Items {
		keys[it.Key] = true
	}
	for _, k := range []string{"initialize", "server-requests", "logging", "sampling"} {
		if !keys[k] {
			t.Errorf("deprecation debt %q not listed (listed: %v)", k, keys)
		}
	}
	for _, k := range []string{"get-stream", "resumability", "sessions"} {
		if keys[k] {
			t.Errorf("a stdio server is charged with the HTTP-only removal %q", k)
		}
	}
	dep := RunBinary(t, BuildBinary(t, "sentinel"), append([]string{"deprecations", "--timeout", "100s"}, append([]string{"--"}, everythingArgv(t, "2025.9.25")...)...)...)
	if dep.ExitCode != 0 || !strings.Contains(dep.Stdout, "Sampling") || !strings.Contains(dep.Stdout, "initialize handshake") {
		t.Errorf("sentinel deprecations -- server-everything: exit %d\n%s", dep.ExitCode, tail(dep.Stdout, 30))
	}
}

// badServers are local processes that misbehave as a stdio server can; each scan must end within
// the test's bound with exit 2 and say what happened. Each script carries a marker so the test
// can prove no process of it outlived the scan.
var badServers = []struct {
	name, script, want string
}{
	{"garbage on stdout", `echo Server starting on stdio...; echo '{'; cat >/dev/null`, "not MCP messages"},
	{"exit at start", `echo 'fatal: missing configuration' >&2; exit 3`, "exited with status 3; its stderr: fatal: missing configuration"},
	{"a hang that ignores SIGTERM", `trap '' TERM; cat >/dev/null; while :; do sleep 1; done`, "still running"},
	{"100 MB on one line", `head -c 104857600 /dev/zero | tr '\0' x; echo; cat >/dev/null`, "over the"},
	{"never reads stdin", `trap '' TERM; while :; do sleep 1; done`, "still running"},
}

func TestStdioBadServersEndInBoundedTime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and scans five misbehaving processes; skipped under -short")
	}
	bin := BuildBinary(t, "sentinel")
	for _, b := range badServers {
		t.Run(b.name, func(t *testing.T) {
			marker := fmt.Sprintf("sentinel-bad-server-%d", time.Now().UnixNano())
			script := ": " + marker + "; " + b.script
			out := RunBinary(t, bin, "probe", "--timeout", "60s", "--request-timeout", "3s", "--", "sh", "-c", script)
			if out.ExitCode != 2 {
				t.Errorf("exit %d, want 2\nstderr: %s", out.ExitCode, tail(out.Stderr, 10))
			}
			if !strings.Contains(out.Stderr, b.want) {
				t.Errorf("stderr does not say %q:\n%s", b.want, tail(out.Stderr, 10))
			}
			if pids := processesWith(marker); len(pids) > 0 {
				t.Errorf("processes %v of the server outlived the scan", pids)
			}
		})
	}
	// A server that logs to stdout without end never answers the era gate, and never goes
	// silent long enough for a request to time out: the scan runs out of --timeout, and the
	// incomplete result says what came instead of an answer.
	marker := fmt.Sprintf("sentinel-bad-server-%d", time.Now().UnixNano())
	out := RunBinary(t, bin, "probe", "--timeout", "4s", "--request-timeout", "3s", "--", "sh", "-c", ": "+marker+"; exec yes 'log: still starting'")
	if out.ExitCode != 2 || !strings.Contains(out.Stderr, "not answered in time; its stdout carried at least") || !strings.Contains(out.Stderr, "still starting") {
		t.Errorf("endless log lines: exit %d, want 2 with what stdout carried\nstderr: %s", out.ExitCode, tail(out.Stderr, 10))
	}
	if pids := processesWith(marker); len(pids) > 0 {
		t.Errorf("processes %v of the endless-log server outlived the scan", pids)
	}
	// A banner before otherwise good messages is a finding, not a failure to run.
	fixture := BuildBinary(t, "fixture")
	out = RunBinary(t, bin, "probe", "--format", "json", "--timeout", "100s", "--", "sh", "-c", "echo 'Starting MCP server'; exec "+fixture+" serve conformant --stdio --without-deprecated")
	res, err := report.Decode(bytes.NewReader([]byte(out.Stdout)))
	if err != nil {
		t.Fatalf("banner server: %v\n%s", err, tail(out.Stderr, 10))
	}
	if st := ruleStatus(res); out.ExitCode != 1 || st["stdio-stdout-messages-only"] != rules.Fail {
		t.Errorf("banner server: exit %d, stdio-stdout-messages-only %s; want 1 and fail", out.ExitCode, st["stdio-stdout-messages-only"])
	}
}

// processesWith returns the pids whose command line contains s (zombies excluded).
func processesWith(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmd, []byte(s)) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, e.Name())
	}
	return out
}

// TestStdioInterruptLeavesNothingRunning is Ctrl-C at a terminal: SIGINT to the foreground
// process group, which holds sentinel but not the server (it runs in a group of its own). The
// server script's path carries a marker, so sentinel, the server's shell and the child it forked
// (which ignores SIGINT and SIGTERM) can all be found by it; after the interrupt, sentinel ends
// within the bound with the exit its contract gives, and no process of the server is left.
//
//   - `sentinel probe --command`: the server ignores SIGINT and SIGTERM too; the scan still ends,
//     with exit 2 saying it was interrupted.
//   - `sentinel shim`: the shim forwards SIGINT to the server, which dies of it; the shim exits
//     with the server's status, 128+2, and the child the server forked is gone with it.
func TestStdioInterruptLeavesNothingRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sentinel and interrupts it; skipped under -short")
	}
	bin := BuildBinary(t, "sentinel")
	const forked = "(trap '' TERM INT; while :; do sleep 1; done) & "
	cases := []struct {
		name, script string
		args         func(script string) []string
		wantCode     int
		wantStderr   string
	}{
		{"probe --command", "trap '' TERM INT; " + forked + "cat >/dev/null; while :; do sleep 1; done",
			func(script string) []string {
				return []string{"probe", "--timeout", "100s", "--request-timeout", "60s", "--command", "sh " + script}
			}, 2, "interrupted"},
		{"shim", forked + "while :; do sleep 1; done",
			func(script string) []string {
				return []string{"shim", "--db", filepath.Join(t.TempDir(), "f.db"), "--", "sh", script}
			}, 128 + int(syscall.SIGINT), "sentinel shim: grading"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			marker := fmt.Sprintf("sentinel-interrupted-server-%d", time.Now().UnixNano())
			script := filepath.Join(t.TempDir(), marker+".sh")
			if err := os.WriteFile(script, []byte(tc.script+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, tc.args(script)...)
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a terminal's foreground group of its own
			stdin, err := cmd.StdinPipe()                         // held open: the client has not gone
			if err != nil {
				t.Fatal(err)
			}
			var stderr syncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{}) // closed once sentinel has been reaped
			go func() { _ = cmd.Wait(); close(exited) }()
			t.Cleanup(func() {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
				_ = stdin.Close()
			})
			// sentinel itself, the server's shell and the child it forked all carry the marker.
			for deadline := time.Now().Add(30 * time.Second); len(processesWith(marker)) < 3; time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the server and its child never started: %v\n%s", processesWith(marker), stderr.String())
				}
			}
			if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(60 * time.Second):
				t.Fatalf("sentinel %s still running 60s after SIGINT\n%s", tc.name, stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != tc.wantCode || !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("exit %d, want %d with %q on stderr\n%s", code, tc.wantCode, tc.wantStderr, tail(stderr.String(), 10))
			}
			if pids := processesWith(marker); len(pids) > 0 {
				t.Errorf("processes %v of the server outlived sentinel", pids)
			}
		})
	}
}

// TestDefaultStdioScanOfServerEverythingFinishes is the scan a new user runs first: no flags at
// all. server-everything's trigger-long-running-operation is read-only and takes 10 s by default,
// just past the 10 s request deadline. Four probes call it, one after another over stdio, and the
// scan used to run out of its one-minute --timeout (exit 2) with a false progress-token-scope
// failure: the abandoned call's late progress was charged to the next request. The scan must
// finish, say why the tool's later calls were not sent, charge no foreign progress token, and
// give the same statuses twice.
func TestDefaultStdioScanOfServerEverythingFinishes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs server-everything under Node 22 and scans it twice; skipped under -short")
	}
	argv := everythingArgv(t, "2026.8.31")
	bin := BuildBinary(t, "sentinel")
	var statuses []map[string]rules.Status
	for range 2 {
		out := RunBinary(t, bin, append([]string{"probe", "--format", "json", "--"}, argv...)...)
		res, err := report.Decode(bytes.NewReader([]byte(out.Stdout)))
		if err != nil {
			t.Fatalf("decoding the JSON report (exit %d): %v\nstderr: %s", out.ExitCode, err, tail(out.Stderr, 20))
		}
		if out.ExitCode != 1 || res.Incomplete != nil {
			t.Fatalf("exit %d, incomplete %+v; want a finished scan that fails the gate\n%s", out.ExitCode, res.Incomplete, tail(out.Stderr, 20))
		}
		st := ruleStatus(res)
		// It keeps sending progress for a call after its cancellation: the scan cancels one call
		// on purpose (active.cancelMidway), so every scan sees that, not only a scan whose
		// 10 s call lost the race with the 10 s deadline.
		if st["stdio-nothing-after-cancel"] != rules.Fail {
			t.Errorf("stdio-nothing-after-cancel: %s, want fail (server-everything sends progress for a cancelled call)", st["stdio-nothing-after-cancel"])
		}
		if st["progress-token-scope"] == rules.Fail {
			t.Errorf("progress-token-scope failed: the abandoned call's late progress was charged to another request")
		}
		if n := strings.Count(strings.Join(res.Notes, "\n"), `tools/call of "trigger-long-running-operation" got no answer`); n != 1 {
			t.Errorf("%d notes name the unanswered long-running tool, want 1: %v", n, res.Notes)
		}
		statuses = append(statuses, st)
	}
	for name, s := range statuses[0] {
		if statuses[1][name] != s {
			t.Errorf("%s: %s, then %s", name, s, statuses[1][name])
		}
	}
}

// TestStdioScanOfTheGoEverythingServer scans the Go SDK's everything-server over stdio, twice.
// It reads stdin as a JSON stream, not as lines, so the malformed-bodies probe's unfinished
// object used to swallow the next probe's requests on the scan's own process and crash it
// there: concurrent-requests then failed no-connection-affinity and multi-conversation-ready for
// what malformed-bodies sent. And it answers requests concurrently, so a response it finished
// just before reading a cancellation sometimes came after the answer to a later request: a
// MUST NOT failure of stdio-nothing-after-cancel in one scan of two. Neither may fail, and the
// statuses must be the same both times.
func TestStdioScanOfTheGoEverythingServer(t *testing.T) {
	if testing.Short() {
		t.Skip("scans the Go SDK everything-server over stdio twice; skipped under -short")
	}
	server := RequireTool(t, EnvEverythingServer)
	var statuses []map[string]rules.Status
	for range 2 {
		code, res, out := scanStdio(t, nil, server)
		if code != 1 || res.Incomplete != nil {
			t.Fatalf("exit %d, incomplete %+v; want a finished scan that fails the gate\n%s", code, res.Incomplete, tail(out.Stderr, 20))
		}
		st := ruleStatus(res)
		for _, name := range []string{"no-connection-affinity", "multi-conversation-ready", "concurrent-streams", "stdio-nothing-after-cancel"} {
			if st[name] == rules.Fail {
				t.Errorf("%s failed on the Go SDK everything-server over stdio", name)
			}
		}
		statuses = append(statuses, st)
	}
	for name, s := range statuses[0] {
		if statuses[1][name] != s {
			t.Errorf("%s: %s, then %s", name, s, statuses[1][name])
		}
	}
}
