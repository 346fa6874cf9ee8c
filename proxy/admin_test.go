package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

const adminRule = "MCP/2026-07-28/MUST/admin-example"

func adminRig(t *testing.T, prober Prober) (*rig, *httptest.Server) {
	t.Helper()
	g := GraderFunc(func(ex *wire.Exchange, _ *passive.History) []rules.Outcome {
		return []rules.Outcome{rules.Failed(adminRule, "seen")}
	})
	r := newRig(t, jsonUpstream(`{"jsonrpc":"2.0","id":1,"result":{}}`), Options{Graders: []Grader{g}})
	h, err := r.proxy.Admin(AdminOptions{Token: testToken, Prober: prober, ProxyURL: r.front.URL})
	if err != nil {
		t.Fatal(err)
	}
	admin := httptest.NewServer(h)
	t.Cleanup(admin.Close)
	return r, admin
}

// testToken is the admin token of the test rigs.
const testToken = "test-admin-token-0123456789abcdef"

// adminGet sends GET url with the admin token.
func adminGet(t *testing.T, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp := adminGet(t, url)
	defer resp.Body.Close()
	if resp.StatusCode == 200 {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("decoding %s: %v", url, err)
		}
	}
	return resp.StatusCode
}

func TestAdminServesFindingsAndExchangesWithFilters(t *testing.T) {
	r, admin := adminRig(t, nil)
	post(t, r.front.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	waitFor(t, "the exchange graded", func() bool { return len(r.exchanges(t)) == 1 })
	id := r.exchanges(t)[0].ID
	tests := []struct {
		name, path string
		wantCode   int
		wantRows   int
	}{
		{"all findings", "/findings", 200, 1},
		{"by rule name", "/findings?rule=admin-example", 200, 1},
		{"by another level", "/findings?level=SHOULD", 200, 0},
		{"by key", "/findings?key=tools/call:x", 200, 1},
		{"since the future", "/findings?since=" + time.Now().Add(time.Hour).UTC().Format(time.RFC3339), 200, 0},
		{"since a duration", "/findings?since=1h", 200, 1},
		{"bad level", "/findings?level=MAYBE", 400, 0},
		{"bad since", "/findings?since=yesterday", 400, 0},
		{"exchanges", "/exchanges?target=" + r.upstream.URL + "/mcp", 200, 1},
		{"exchanges of another target", "/exchanges?target=http://nowhere", 200, 0},
		{"exchange by an unknown id", "/exchanges?id=nope", 200, 0},
		{"exchange by its id", "/exchanges?id=" + id, 200, 1},
		{"findings shown by that exchange", "/findings?id=" + id, 200, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []json.RawMessage
			if code := getJSON(t, admin.URL+tt.path, &rows); code != tt.wantCode || len(rows) != tt.wantRows {
				t.Fatalf("GET %s = %d with %d rows, want %d with %d", tt.path, code, len(rows), tt.wantCode, tt.wantRows)
			}
		})
	}
}

func TestAdminMetricsAndHealth(t *testing.T) {
	r, admin := adminRig(t, nil)
	post(t, r.front.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	waitFor(t, "the exchange graded", func() bool { return len(r.exchanges(t)) == 1 })
	resp := adminGet(t, admin.URL+"/metrics")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		"sentinel_proxy_exchanges_total 1",
		`sentinel_proxy_findings_total{rule="` + adminRule + `",level=""} 1`,
		"sentinel_proxy_graded_total 1",
		"sentinel_proxy_lost_total 0",
		"sentinel_proxy_grading_memory_limit_bytes 67108864",
		"sentinel_proxy_grading_seconds_count 1",
		"sentinel_proxy_upstream_seconds_count 1",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	resp, err := http.Get(admin.URL + "/healthz") // open: probes of liveness carry no token
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz = %v, %v", resp, err)
	}
	resp.Body.Close()
}

// readEvents reads SSE events until n arrived or the bounded context ends.
func readEvents(ctx context.Context, t *testing.T, resp *http.Response, n int) []string {
	t.Helper()
	var names []string
	sc := bufio.NewScanner(resp.Body)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for sc.Scan() && len(names) < n {
			if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				names = append(names, name)
			}
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		resp.Body.Close()
		<-done
	}
	return names
}

func TestAdminEventsStreamLiveExchangesAndFindings(t *testing.T) {
	r, admin := adminRig(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", admin.URL+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	post(t, r.front.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	got := readEvents(ctx, t, resp, 2)
	if strings.Join(got, ",") != "finding,exchange" {
		t.Fatalf("live events = %v, want finding then exchange", got)
	}
}

// fakeProber sends one request to the endpoint it is given, as a real probe would, so the
// test can see that probes cross the proxy.
type fakeProber struct{ endpoints chan string }

func (f fakeProber) Probe(ctx context.Context, endpoint string, progress func(ProbeProgress)) (*report.Result, error) {
	f.endpoints <- endpoint
	progress(ProbeProgress{Message: "sending ping"})
	req, _ := http.NewRequestWithContext(ctx, "POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	progress(ProbeProgress{Message: "done", RuleID: adminRule, Status: rules.Pass})
	return &report.Result{Schema: report.SchemaVersion, Target: endpoint}, nil
}

func TestAdminProbeRunsThroughTheProxyAndStreamsProgress(t *testing.T) {
	fp := fakeProber{endpoints: make(chan string, 1)}
	r, admin := adminRig(t, fp)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", admin.URL+"/probe", strings.NewReader(`{"path":"/mcp"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := readEvents(ctx, t, resp, 3)
	if strings.Join(got, ",") != "progress,progress,result" {
		t.Fatalf("probe events = %v, want progress, progress, result", got)
	}
	if ep := <-fp.endpoints; ep != r.front.URL+"/mcp" {
		t.Fatalf("prober sent to %q, want the proxy listener %q", ep, r.front.URL+"/mcp")
	}
	waitFor(t, "the probe's exchange graded", func() bool {
		exs, _ := r.store.Exchanges(t.Context(), findings.Filter{Key: "ping"})
		return len(exs) == 1
	})
}

func TestAdminProbeWithoutAProberIs501(t *testing.T) {
	_, admin := adminRig(t, nil)
	req, _ := http.NewRequestWithContext(t.Context(), "POST", admin.URL+"/probe", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented {
		t.Fatalf("POST /probe without a prober = %d, want 501", resp.StatusCode)
	}
}

// FuzzParseSince: an accepted value is a time at or before now (a duration back, or a stamp),
// and a duration round-trips.
func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"24h", "1h30m", "2026-07-28T12:00:00Z", "2026-07-28T12:00:00.123456789+02:00", "-1h", "", "yesterday"} {
		f.Add(s)
	}
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSince(s, now)
		if err != nil {
			return
		}
		if d, derr := time.ParseDuration(s); derr == nil && !got.Equal(now.Add(-d)) {
			t.Fatalf("ParseSince(%q) = %v, want %v", s, got, now.Add(-d))
		}
		if _, perr := time.Parse(time.RFC3339, s); perr != nil && got.After(now) {
			t.Fatalf("ParseSince(%q) = %v, after now", s, got)
		}
	})
}

func TestEscapeLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"MCP/2026-07-28/MUST/x", "MCP/2026-07-28/MUST/x"},
		{`a"b`, `a\"b`},
		{`a\b`, `a\\b`},
		{"a\nb", `a\nb`},
	}
	for _, tt := range tests {
		if got := escapeLabel(tt.in); got != tt.want {
			t.Errorf("escapeLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
