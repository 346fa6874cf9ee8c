package tui

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/proxy"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// The tui package never imports proxy; this test does, to prove the client against the real
// admin API rather than against our own reading of it.

// legacyUpstream answers like an unmigrated server: initialize works and results carry no
// resultType, so the passive checks find something.
func legacyUpstream() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s-1")
		switch {
		case strings.Contains(string(body), `"initialize"`):
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}},"serverInfo":{"name":"old","version":"1"}}}`)
		default:
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)
		}
	})
}

type stubProber struct{}

func (stubProber) Probe(_ context.Context, endpoint string, progress func(proxy.ProbeProgress)) (*report.Result, error) {
	progress(proxy.ProbeProgress{Message: "1/1 discover", RuleID: rules.IDOf("discover-implemented"), Status: rules.Fail})
	return &report.Result{Schema: report.SchemaVersion, Target: endpoint, Era: "legacy", Rules: []report.RuleResult{}}, nil
}

// rigToken is the admin token of the test proxy.
const rigToken = "tui-test-admin-token-0123456789"

type adminRig struct {
	front, admin *httptest.Server
	client       *Client
}

func newAdminRig(t *testing.T) *adminRig {
	t.Helper()
	up := httptest.NewServer(legacyUpstream())
	t.Cleanup(up.Close)
	store, err := findings.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	u, _ := url.Parse(up.URL)
	p, err := proxy.New(&proxy.Options{Routes: []proxy.Route{{Prefix: "/", Upstream: u}}, Store: store, Graders: []proxy.Grader{proxy.Passive()}})
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	h, err := p.Admin(proxy.AdminOptions{Token: rigToken, Prober: stubProber{}, ProxyURL: front.URL})
	if err != nil {
		t.Fatal(err)
	}
	admin := httptest.NewServer(h)
	t.Cleanup(admin.Close)
	c, err := NewClient(admin.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &adminRig{front: front, admin: admin, client: c.WithToken(rigToken)}
}

func (r *adminRig) post(t *testing.T, body string) {
	t.Helper()
	resp, err := http.Post(r.front.URL+"/", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestWatchFollowsARealProxy(t *testing.T) {
	r := newAdminRig(t)
	r.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	cache := NewCache(0)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go Watch(ctx, r.client, cache, nil)
	waitUntil(t, "the history to load and the stream to go live", func() bool {
		s := cache.Snapshot()
		return s.Conn.State == Live && len(s.Rows) == 1
	})
	r.post(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	waitUntil(t, "the live exchange and the stored findings", func() bool {
		s := cache.Snapshot()
		return len(s.Rows) == 2 && len(s.Findings) > 0
	})
	s := cache.Snapshot()
	if s.Rows[0].Method != "initialize" || s.Rows[1].Method != "tools/list" {
		t.Fatalf("rows %v, want initialize then tools/list", ids(s.Rows))
	}
	live := s.Rows[1]
	if live.Count > 0 && len(live.Findings) == 0 {
		t.Fatalf("the live exchange reported %d findings but none arrived on the stream", live.Count)
	}
	if !slices.Contains(s.Features, "logging") {
		t.Fatalf("features %v: the history's initialize declared logging", s.Features)
	}
	ex, err := r.client.Exchange(t.Context(), live)
	if err != nil {
		t.Fatalf("Exchange(%s): %v", live.ID, err)
	}
	if !strings.Contains(string(ex.RequestBody), "tools/list") || ex.ResponseHeader.Get("Content-Type") == "" {
		t.Fatalf("exchange detail lacks the bodies or headers: %+v", ex)
	}
}

func TestWatchFindsDeprecatedFeaturesInLiveTraffic(t *testing.T) {
	r := newAdminRig(t)
	cache := NewCache(0)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go Watch(ctx, r.client, cache, nil)
	waitUntil(t, "the stream to go live", func() bool { return cache.Snapshot().Conn.State == Live })
	r.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	waitUntil(t, "the logging capability to be read from the live exchange", func() bool {
		return slices.Contains(cache.Snapshot().Features, "logging")
	})
}

func TestProbeThroughTheRealAdminAPI(t *testing.T) {
	r := newAdminRig(t)
	var steps atomic.Int32
	res, err := r.client.Probe(t.Context(), "", func(p ProbeProgress) {
		if p.Status == rules.Fail {
			steps.Add(1)
		}
	})
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	if steps.Load() != 1 || res.Era != "legacy" {
		t.Fatalf("probe gave %d failing steps and era %q, want 1 and legacy", steps.Load(), res.Era)
	}
}

func TestWatchSaysWhenTheAdminAPIIsDownAndRecovers(t *testing.T) {
	var up atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		switch r.URL.Path {
		case "/events":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			_, _ = io.WriteString(w, "[]")
		}
	}))
	t.Cleanup(srv.Close)
	c, _ := NewClient(srv.URL, nil)
	cache := NewCache(0)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go Watch(ctx, c, cache, nil)
	waitUntil(t, "the failure to be recorded", func() bool {
		s := cache.Snapshot()
		return s.Conn.State == Down && strings.Contains(s.Conn.Err, "503") && !s.Conn.RetryAt.IsZero()
	})
	up.Store(true)
	waitUntil(t, "the retry to go live", func() bool { return cache.Snapshot().Conn.State == Live })
}

func TestWatchSaysWhenOlderHistoryWasNotLoaded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/events":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/exchanges":
			// The admin API's paging: at most a page per request, the next named in Link.
			limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
			from, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
			if limit < 1 || limit > exchangesPage {
				t.Errorf("history asked for limit %q, want 1..%d", r.URL.Query().Get("limit"), exchangesPage)
			}
			n := min(limit, 3*historyLimit-from) // more is stored than the TUI loads
			var b strings.Builder
			b.WriteString("[")
			for i := range n {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"id":"e%d","rpcMethod":"ping","responseBody":"eyJqc29ucnBjIjoiMi4wIn0="}`, from+i)
			}
			b.WriteString("]")
			if n == limit {
				w.Header().Set("Link", fmt.Sprintf(`</exchanges?cursor=%d&limit=%d>; rel="next"`, from+n, limit))
			}
			_, _ = io.WriteString(w, b.String())
		default:
			_, _ = io.WriteString(w, "[]")
		}
	}))
	t.Cleanup(srv.Close)
	c, _ := NewClient(srv.URL, nil)
	cache := NewCache(0)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go Watch(ctx, c, cache, nil)
	waitUntil(t, "the history to load", func() bool { return cache.Snapshot().Conn.State == Live })
	s := cache.Snapshot()
	if len(s.Rows) != historyLimit || !s.OlderNotLoaded {
		t.Fatalf("loaded %d rows, older-not-loaded %v; want %d and true", len(s.Rows), s.OlderNotLoaded, historyLimit)
	}
	m := New(Options{Source: cache, API: c, Now: func() time.Time { return t0 }, Location: time.UTC})
	drive(t, m, tea.WindowSizeMsg{Width: 200, Height: 24})
	mustContain(t, screen(m), "older history not loaded")
}

func TestWatchKeepsEventsThatArriveWhileHistoryLoads(t *testing.T) {
	sent := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/events":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "event: exchange\ndata: {\"id\":\"live-1\",\"rpcMethod\":\"tools/list\"}\n\n")
			w.(http.Flusher).Flush()
			close(sent)
			<-r.Context().Done()
		case "/exchanges":
			select { // answer only once the live event is on the wire
			case <-sent:
			case <-time.After(5 * time.Second):
			}
			_, _ = io.WriteString(w, `[{"id":"old-1","rpcMethod":"initialize"}]`)
		default:
			_, _ = io.WriteString(w, "[]")
		}
	}))
	t.Cleanup(srv.Close)
	c, _ := NewClient(srv.URL, nil)
	cache := NewCache(0)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go Watch(ctx, c, cache, nil)
	waitUntil(t, "history and the live event", func() bool { return len(cache.Snapshot().Rows) == 2 })
	if got := fmt.Sprint(ids(cache.Snapshot().Rows)); got != "[old-1 live-1]" {
		t.Fatalf("rows %s, want the history first, then the event that arrived during the load", got)
	}
}
