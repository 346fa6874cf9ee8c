package active

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

func statusOf(t *testing.T, res *report.Result, name string) rules.Status {
	t.Helper()
	id := rules.IDOf(name)
	for _, rr := range res.Rules {
		if rr.Rule.ID == id {
			return rr.Status
		}
	}
	t.Fatalf("rule %s not in the result", name)
	return ""
}

func scan(t *testing.T, url string, opts Options) *Output {
	t.Helper()
	opts.Endpoint = url
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	out, err := Scan(context.Background(), opts)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return out
}

func TestScanPassesAConformantServerOnEveryCoreRule(t *testing.T) {
	srv := (&fakeServer{}).start(t)
	out := scan(t, srv.URL, Options{Origin: "http://allowed.example"})
	if out.Result.Era != EraModern {
		t.Fatalf("era %q, notes %v", out.Result.Era, out.Result.Notes)
	}
	for _, name := range []string{
		"discover-implemented", "single-post-endpoint", "get-delete-405", "notification-202", "no-response-to-notification",
		"concurrent-streams", "pv-header-required", "pv-header-body-match", "mcp-method-required", "mcp-method-match",
		"header-names-case-insensitive", "header-value-ows", "mcp-name-required", "mcp-name-match", "mcp-name-base64-decoded",
		"header-malformed-reject", "meta-required-reject", "meta-required-http-400", "client-info-optional",
		"unsupported-version-error", "unsupported-version-http-400", "discover-versions-consistent",
		"removed-methods-absent", "unknown-method-404", "error-id-echo", "origin-invalid-403", "origin-validated",
		"declare-tools", "declare-prompts", "ignore-session-id", "ignore-last-event-id", "initialize-error-names-versions",
		"ignore-invalid-cancel", "param-header-missing", "param-header-body-match", "param-header-invalid-chars",
		"param-header-not-for-null", "param-integer-numeric",
	} {
		if got := statusOf(t, out.Result, name); got != rules.Pass {
			for _, rr := range out.Result.Rules {
				if rr.Rule.Name == name {
					t.Errorf("%s: %s %+v", name, got, rr.Evidence)
				}
			}
		}
	}
	if len(out.Exchanges) < 20 {
		t.Errorf("only %d exchanges recorded", len(out.Exchanges))
	}
}

func TestScanCatchesEachSeededBug(t *testing.T) {
	tests := []struct {
		name string
		srv  fakeServer
		rule []string
	}{
		{"Mcp-Method not checked", fakeServer{skipMethodHeader: true}, []string{"mcp-method-required", "mcp-method-match"}},
		{"Origin not checked", fakeServer{skipOrigin: true}, []string{"origin-invalid-403", "origin-validated"}},
		{"Mcp-Name not decoded", fakeServer{noDecodeName: true}, []string{"mcp-name-base64-decoded"}},
		{"Mcp-Param not checked", fakeServer{skipParamCheck: true}, []string{"param-header-missing", "param-header-body-match", "param-header-invalid-chars"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv.start(t)
			out := scan(t, srv.URL, Options{Areas: []rules.Area{rules.AreaHeaders, rules.AreaSecurity}})
			for _, name := range tc.rule {
				if got := statusOf(t, out.Result, name); got != rules.Fail {
					t.Errorf("%s = %s, want fail", name, got)
				}
			}
		})
	}
}

func TestScanOfAServerThatRejectsEverythingCollectsNoPasses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad request"}}`)
	}))
	defer srv.Close()
	out := scan(t, srv.URL, Options{})
	if out.Result.Era != "unknown" || len(out.Result.Notes) == 0 || !strings.Contains(out.Result.Notes[0], "Era gate") {
		t.Errorf("era %q notes %v", out.Result.Era, out.Result.Notes)
	}
	if got := statusOf(t, out.Result, "discover-implemented"); got != rules.Fail {
		t.Errorf("discover-implemented = %s, want fail", got)
	}
	for _, rr := range out.Result.Rules {
		if rr.Status == rules.Pass {
			t.Errorf("%s passed on a server that rejects everything: %+v", rr.Rule.Name, rr.Evidence)
		}
	}
	if got := statusOf(t, out.Result, "mcp-method-required"); got != rules.Indeterminate {
		t.Errorf("mcp-method-required = %s, want indeterminate", got)
	}
}

func TestScanReportsALegacyServerPlainly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(string(body), `"initialize"`) {
			io.WriteString(w, `{"jsonrpc":"2.0","id":"sentinel-init","result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"old","version":"1"}}}`)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)
	}))
	defer srv.Close()
	out := scan(t, srv.URL, Options{})
	if out.Result.Era != "legacy (2025-06-18)" {
		t.Errorf("era %q", out.Result.Era)
	}
}

func TestScanCouldNotRun(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer hang.Close()
	reset := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	}))
	defer reset.Close()
	tests := []struct{ name, url string }{
		{"connection refused", refused},
		{"no answer at all", hang.URL},
		{"connection reset", reset.URL},
		{"not a URL", "ftp://x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Scan(context.Background(), Options{Endpoint: tc.url, Timeout: 5 * time.Second, Limits: wire.Limits{ReadTimeout: time.Second}})
			if err == nil {
				t.Fatal("want an error (the scanner could not run)")
			}
		})
	}
}

func TestScanOfHostileServersEndsWithBoundedResults(t *testing.T) {
	chunk := strings.Repeat("x", 64<<10)
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"endless SSE", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			for i := 0; i < 100000 && r.Context().Err() == nil; i++ {
				if _, err := io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"); err != nil {
					return
				}
			}
		}},
		{"100 MB body", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			for i := 0; i < 1600 && r.Context().Err() == nil; i++ {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}},
		{"invalid JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":`)
		}},
		{"slow drip", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			for stop := time.Now().Add(5 * time.Second); r.Context().Err() == nil && time.Now().Before(stop); {
				io.WriteString(w, ": drip\n")
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(50 * time.Millisecond):
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			out := scan(t, srv.URL, Options{Timeout: 10 * time.Second, Limits: wire.Limits{MaxBodyBytes: 1 << 20, MaxSSEEvents: 200, ReadTimeout: 500 * time.Millisecond}})
			if out.Result.Era == EraModern {
				t.Errorf("a hostile server passed the era gate")
			}
			for _, ex := range out.Exchanges {
				if ex.Response != nil && len(ex.Response.Body) > 1<<20 {
					t.Errorf("exchange %s kept %d bytes", ex.ID, len(ex.Response.Body))
				}
			}
			for _, rr := range out.Result.Rules {
				if rr.Status == rules.Pass {
					t.Errorf("%s passed on a hostile server", rr.Rule.Name)
				}
			}
		})
	}
}

func TestRunnerGatesAndRecoversProbes(t *testing.T) {
	srv := (&fakeServer{}).start(t)
	panicky := Probe{Name: "panicky", RuleIDs: ids("concurrent-streams"), Run: func(context.Context, *Target) ([]rules.Outcome, error) {
		panic("boom")
	}}
	needsResources := Probe{Name: "needs-resources", RuleIDs: ids("resources-list-current"), Requires: rules.FeatureResources,
		Run: func(context.Context, *Target) ([]rules.Outcome, error) { return nil, errors.New("must not run") }}
	needsMRTR := Probe{Name: "needs-mrtr", RuleIDs: ids("request-state-untrusted"), Requires: rules.FeatureMRTRTool,
		Run: func(context.Context, *Target) ([]rules.Outcome, error) { return nil, errors.New("must not run") }}
	failing := Probe{Name: "failing", RuleIDs: ids("multi-conversation-ready"), Run: func(context.Context, *Target) ([]rules.Outcome, error) {
		return nil, errors.New("could not build the request")
	}}
	out := scan(t, srv.URL, Options{Probes: []Probe{panicky, needsResources, needsMRTR, failing}})
	want := map[string]rules.Status{
		"concurrent-streams":       rules.Indeterminate,
		"resources-list-current":   rules.NotApplicable,
		"request-state-untrusted":  rules.Indeterminate,
		"multi-conversation-ready": rules.Indeterminate,
	}
	for name, st := range want {
		if got := statusOf(t, out.Result, name); got != st {
			t.Errorf("%s = %s, want %s", name, got, st)
		}
	}
	if !strings.Contains(strings.Join(out.Result.Notes, "\n"), "panicked") {
		t.Errorf("notes %v do not mention the panic", out.Result.Notes)
	}
}

func TestScanRedactsTheTokenEverywhere(t *testing.T) {
	srv := (&fakeServer{}).start(t)
	const token = "tok-SECRET-42"
	out := scan(t, srv.URL, Options{Header: http.Header{"Authorization": {"Bearer " + token}}, Secrets: []string{token}, Rules: []string{"mcp-method-required"}})
	for _, ex := range out.Exchanges {
		for _, vs := range ex.Request.Header {
			for _, v := range vs {
				if strings.Contains(v, token) {
					t.Errorf("exchange %s records the token", ex.ID)
				}
			}
		}
	}
	data, err := report.MarshalCanonical(out.Result)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), token) {
		t.Error("the result carries the token")
	}
}

func TestSelectRulesRejectsUnknownNames(t *testing.T) {
	if _, err := SelectRules([]string{"no-such-rule"}, nil); err == nil {
		t.Error("unknown rule accepted")
	}
	if _, err := SelectRules(nil, []rules.Area{"nope"}); err == nil {
		t.Error("unknown area accepted")
	}
	got, err := SelectRules([]string{"mcp-method-match"}, nil)
	if err != nil || len(got) != 1 {
		t.Errorf("got %d rules, %v", len(got), err)
	}
}

func TestEveryProbeCitesKnownRules(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Probes() {
		if seen[p.Name] {
			t.Errorf("probe name %q twice", p.Name)
		}
		seen[p.Name] = true
		for _, id := range p.RuleIDs {
			if _, ok := rules.ByID(id); !ok {
				t.Errorf("probe %s cites unknown rule %s", p.Name, id)
			}
		}
	}
}

// TestScanCouldNotRunWithoutAuthorizationOrMCP: an endpoint that answers 401 to everything, a
// web page, a 404 and an endpoint whose answers are never JSON-RPC cannot be graded; a result is
// still returned, saying why, and it grades no rule (it used to fail discover-implemented).
func TestScanCouldNotRunWithoutAuthorizationOrMCP(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		opts    Options
		want    []string
	}{
		{"401 to everything", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
		}, Options{}, []string{"the endpoint requires authorization (401, WWW-Authenticate: Bearer", "resource metadata http://x/.well-known/oauth-protected-resource", "pass --token-file or SENTINEL_TOKEN"}},
		{"401 to the token given", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
		}, Options{Header: http.Header{"Authorization": {"Bearer nope-nope-nope"}}, Secrets: []string{"nope-nope-nope"}}, []string{"the endpoint refused the token given (401"}},
		{"a web page answering 501", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, "<html><body>Not Implemented</body></html>")
		}, Options{}, []string{"not an MCP endpoint: POST / → 501 text/html", "check --endpoint"}},
		{"a 404", http.NotFound, Options{}, []string{"not an MCP endpoint: POST / → 404 text/plain"}},
		{"plain text to everything", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, "no")
		}, Options{}, []string{"not an MCP endpoint: POST / → 400"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			out := scan(t, srv.URL, tc.opts)
			r := out.Result
			if r.CouldNotRun == nil {
				t.Fatalf("CouldNotRun is nil (era %q, %d rules)", r.Era, len(r.Rules))
			}
			for _, w := range tc.want {
				if !strings.Contains(r.CouldNotRun.Reason, w) {
					t.Errorf("reason %q lacks %q", r.CouldNotRun.Reason, w)
				}
			}
			if report.GateMust.Verdict(r) != report.VerdictCouldNotRun || len(r.Rules) != 0 {
				t.Errorf("verdict %s with %d rules graded", report.GateMust.Verdict(r), len(r.Rules))
			}
			if strings.Contains(r.CouldNotRun.Reason, "nope-nope-nope") {
				t.Error("the token leaked into the reason")
			}
		})
	}
}

func TestOnlyEndpointTrafficIsGraded(t *testing.T) {
	srv := (&fakeServer{}).start(t)
	var graded []string
	opts := Options{Endpoint: srv.URL, Passive: func(ex *wire.Exchange, _ *passive.History) []rules.Outcome {
		graded = append(graded, ex.Request.URL)
		return nil
	}}.withDefaults()
	tg := &Target{Endpoint: srv.URL, Options: opts, Client: opts.Client, history: passive.NewHistory()}
	tg.Send(context.Background(), wire.RequestSpec{Method: http.MethodGet, URL: srv.URL + "/.well-known/oauth-protected-resource"})
	tg.Call(context.Background(), "server/discover", nil)
	if len(graded) != 1 || graded[0] != srv.URL {
		t.Errorf("graded %v, want only the endpoint", graded)
	}
	if n := len(tg.Exchanges()); n != 2 {
		t.Errorf("%d exchanges recorded, want 2", n)
	}
}

// slowly delays every request to h, as a loaded server does.
func slowly(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestAScanThatRunsOutOfTimeIsIncomplete is the false green of a short --timeout: the probes
// that did not finish used to leave their rules indeterminate and the scan passed. Now the
// result says how many did not finish and why, and its verdict is incomplete under every gate.
func TestAScanThatRunsOutOfTimeIsIncomplete(t *testing.T) {
	srv := httptest.NewServer(slowly(http.HandlerFunc((&fakeServer{}).serve), 100*time.Millisecond))
	defer srv.Close()
	out, err := Scan(context.Background(), Options{Endpoint: srv.URL, Timeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	inc := out.Result.Incomplete
	if inc == nil {
		t.Fatalf("a scan cut by its timeout is not marked incomplete")
	}
	if inc.Unfinished == 0 || inc.Unfinished > inc.Total || len(inc.Probes) != inc.Unfinished {
		t.Errorf("incomplete %+v", inc)
	}
	if want := "probes did not finish before --timeout 1.5s; raise --timeout"; !strings.Contains(inc.Reason, want) {
		t.Errorf("reason %q lacks %q", inc.Reason, want)
	}
	for _, g := range []report.Gate{report.GateMust, report.GateShould, report.GateNone} {
		if v := g.Verdict(out.Result); v != report.VerdictIncomplete {
			t.Errorf("gate %s: verdict %s, want incomplete", g, v)
		}
	}
}

// TestAnInterruptedScanIsIncomplete: cancelling the caller's context (Ctrl-C) ends the scan with
// what it has, marked incomplete because it was interrupted, not because of --timeout.
func TestAnInterruptedScanIsIncomplete(t *testing.T) {
	srv := httptest.NewServer(slowly(http.HandlerFunc((&fakeServer{}).serve), 100*time.Millisecond))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1200*time.Millisecond, cancel)
	out, err := Scan(ctx, Options{Endpoint: srv.URL, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if out.Result.Incomplete == nil || !strings.Contains(out.Result.Incomplete.Reason, "interrupted") {
		t.Errorf("incomplete %+v, want an interruption", out.Result.Incomplete)
	}
}

// TestAFinishedScanIsNotIncomplete keeps the mark honest: a scan with time to spare finishes.
func TestAFinishedScanIsNotIncomplete(t *testing.T) {
	srv := (&fakeServer{}).start(t)
	out := scan(t, srv.URL, Options{Origin: "http://allowed.example"})
	if out.Result.Incomplete != nil {
		t.Errorf("incomplete %+v", out.Result.Incomplete)
	}
}

// TestEveryActiveRuleIsReachedByAProbe is the active side of the passive registry's test: a rule
// the registry marks active or both is cited by some probe, so a scan says something about it
// (if only why it could not settle it) instead of "no check produced evidence".
func TestEveryActiveRuleIsReachedByAProbe(t *testing.T) {
	cited := RuleIDs()
	for _, r := range rules.All() {
		if (r.Check == rules.CheckActive || r.Check == rules.CheckBoth) && !cited[r.ID] {
			t.Errorf("%s is marked %s, but no probe cites it", r.ID, r.Check)
		}
	}
}

// TestScanRecordsEveryStepWithItsTimeAndRequests: the result lists discovery first, then every
// probe that ran exactly once, each with a start, a duration and the requests it sent, and the
// requests add up to every exchange of the scan.
func TestScanRecordsEveryStepWithItsTimeAndRequests(t *testing.T) {
	srv := (&fakeServer{}).start(t)
	out := scan(t, srv.URL, Options{Origin: "http://allowed.example"})
	steps := out.Result.Probes
	if len(steps) == 0 || steps[0].Name != report.DiscoveryStep || steps[0].StartMs != 0 || steps[0].Requests == 0 {
		t.Fatalf("first step %+v, want discovery at 0 ms with its requests", steps)
	}
	// A probe that needs only server/discover may start once it is answered; every other probe
	// waits for the whole of discovery.
	discoverOnly := map[string]bool{}
	for _, p := range Probes() {
		discoverOnly[p.Name] = p.DiscoverOnly
	}
	first := out.Exchanges[0]
	if first.Request.Message == nil || first.Request.Message.Method != "server/discover" {
		t.Fatalf("the scan's first exchange is not its server/discover")
	}
	discoverEnd := report.Millis(first.Started.Add(first.Duration).Sub(out.Target.started))
	seen := map[string]bool{}
	total := 0
	for _, s := range steps {
		if seen[s.Name] {
			t.Errorf("step %q listed twice", s.Name)
		}
		seen[s.Name] = true
		if s.DurationMs < 0 || s.StartMs < 0 || s.Cut != "" {
			t.Errorf("step %+v", s)
		}
		switch {
		case s.Name == report.DiscoveryStep:
		case discoverOnly[s.Name]:
			if s.StartMs < discoverEnd {
				t.Errorf("probe %q started at %.3f ms, before server/discover was answered at %.3f ms", s.Name, s.StartMs, discoverEnd)
			}
		case s.StartMs < steps[0].DurationMs:
			t.Errorf("probe %q started at %.3f ms, before discovery ended at %.3f ms", s.Name, s.StartMs, steps[0].DurationMs)
		}
		total += s.Requests
	}
	if total != len(out.Exchanges) {
		t.Errorf("the steps count %d requests, the scan made %d exchanges", total, len(out.Exchanges))
	}
	for _, p := range Probes() {
		if p.Name == report.DiscoveryStep || p.Name == ControlsStep {
			t.Errorf("probe %q takes a name reserved for a step", p.Name)
		}
	}
	if len(steps) < 20 {
		t.Errorf("%d steps recorded; a full scan of the fake server runs more probes than that", len(steps))
	}
}
