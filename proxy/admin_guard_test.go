package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
)

func TestAdminWantsTheBearerToken(t *testing.T) {
	_, admin := adminRig(t, fakeProber{endpoints: make(chan string, 8)})
	tests := []struct {
		name, method, path, auth string
		want                     int
	}{
		{"findings without a token", "GET", "/findings", "", 401},
		{"exchanges with a wrong token", "GET", "/exchanges", "Bearer not-the-token-0123456789", 401},
		{"events without a token", "GET", "/events", "", 401},
		{"metrics without a token", "GET", "/metrics", "", 401},
		{"probe without a token", "POST", "/probe", "", 401},
		{"the token as a query parameter is not accepted", "GET", "/findings?token=" + testToken, "", 401},
		{"the token without the Bearer scheme", "GET", "/findings", testToken, 401},
		{"findings with the token", "GET", "/findings", "Bearer " + testToken, 200},
		{"metrics with the token", "GET", "/metrics", "Bearer " + testToken, 200},
		{"health needs none", "GET", "/healthz", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tt.method, admin.URL+tt.path, nil)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("%s %s = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.want)
			}
			if tt.want == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("a 401 without a Bearer challenge: %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	if _, err := NewAdmin(newRig(t, http.NotFoundHandler(), Options{}).proxy.Pipeline(), AdminOptions{}); err == nil {
		t.Fatal("NewAdmin without a token = nil error, want one")
	}
}

// The admin API lives on its own listener; nothing sent to the proxy listener reaches it, not
// even an absolute-form request naming the admin address (that way a POST /probe once started
// an active scan).
func TestAdminPathsAreNeverServedOnTheProxyListener(t *testing.T) {
	fp := fakeProber{endpoints: make(chan string, 8)}
	var upstreamHits atomic.Int64
	r := newRig(t, counting(&upstreamHits), Options{})
	h, err := r.proxy.Admin(AdminOptions{Token: testToken, Prober: fp, ProxyURL: r.front.URL})
	if err != nil {
		t.Fatal(err)
	}
	admin := httptest.NewServer(h)
	t.Cleanup(admin.Close)
	r.proxy.Protect(strings.TrimPrefix(admin.URL, "http://"))

	for _, path := range []string{"/probe", "/findings", "/events"} {
		if code := viaProxy(t, r.front.URL, admin.URL+path); code != http.StatusForbidden {
			t.Errorf("absolute-form POST %s%s on the proxy listener = %d, want 403", admin.URL, path, code)
		}
	}
	// An origin-form admin path on the proxy listener is the upstream's, never the admin API's.
	code, body := post(t, r.front.URL+"/probe", `{}`)
	if code != 200 || string(body) != `{"jsonrpc":"2.0","id":1,"result":{}}` || upstreamHits.Load() != 1 {
		t.Errorf("POST /probe on the proxy listener = %d %s (upstream hits %d); want it forwarded to the upstream", code, body, upstreamHits.Load())
	}
	select {
	case ep := <-fp.endpoints:
		t.Fatalf("a probe ran against %s from the proxy listener", ep)
	default:
	}
}

func TestAdminListingsArePagedWithAHardMaximum(t *testing.T) {
	r, admin := adminRig(t, nil)
	big := []byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("b", 40<<10) + `"}}`)
	var b findings.Batch
	start := time.Now().Add(-time.Hour)
	for i := range 250 {
		b.Exchanges = append(b.Exchanges, findings.Exchange{ID: fmt.Sprintf("page-%03d", i), Target: "http://t/mcp",
			Start: start.Add(time.Duration(i/3) * time.Second), ResponseBody: big, Graded: Graded})
		b.Findings = append(b.Findings, findings.Finding{Target: "http://t/mcp", RuleID: adminRule, Key: fmt.Sprintf("k%03d", i),
			Status: "fail", FirstSeen: start})
	}
	if err := r.store.Record(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path string }{
		{"/exchanges?limit=-1"}, {"/exchanges?limit=0"}, {"/exchanges?limit=501"}, {"/exchanges?limit=x"},
		{"/findings?limit=-1"}, {"/findings?limit=1001"}, {"/exchanges?cursor=forged"},
	} {
		resp := adminGet(t, admin.URL+tt.path)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", tt.path, resp.StatusCode)
		}
	}
	// The default page, then every page by its Link header.
	seen := map[string]bool{}
	url, pages := admin.URL+"/exchanges", 0
	for url != "" {
		resp := adminGet(t, url)
		var page []findings.Exchange
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
			t.Fatalf("decoding %s: %v", url, err)
		}
		resp.Body.Close()
		if pages == 0 && len(page) != DefaultExchangePage {
			t.Fatalf("the default page holds %d exchanges, want %d", len(page), DefaultExchangePage)
		}
		for _, ex := range page {
			if seen[ex.ID] {
				t.Fatalf("exchange %s on two pages", ex.ID)
			}
			seen[ex.ID] = true
			if len(ex.ResponseBody) > ListBodyBytes || !ex.Truncated {
				t.Fatalf("a listing inlined %d bytes of a body (truncated %v), want at most %d and truncated", len(ex.ResponseBody), ex.Truncated, ListBodyBytes)
			}
		}
		url = ""
		if l := resp.Header.Get("Link"); l != "" {
			url = admin.URL + strings.TrimSuffix(strings.TrimPrefix(l, "<"), `>; rel="next"`)
		}
		pages++
	}
	if len(seen) != 250 || pages != 3 {
		t.Fatalf("paged %d exchanges in %d pages, want 250 in 3", len(seen), pages)
	}
	var one []findings.Exchange
	if code := getJSON(t, admin.URL+"/exchanges?id=page-007", &one); code != 200 || len(one) != 1 || len(one[0].ResponseBody) != len(big) {
		t.Fatalf("GET /exchanges?id=page-007 = %d, %d rows; want the one exchange with its whole stored body", code, len(one))
	}
	var fs []findings.Finding
	if code := getJSON(t, admin.URL+"/findings?limit=1000", &fs); code != 200 || len(fs) != 250 {
		t.Fatalf("GET /findings?limit=1000 = %d with %d rows, want all 250", code, len(fs))
	}
}

// A live-stream reader that stops reading is dropped and counted; publishing never waits on
// it, so every exchange is still graded and recorded and a reader that keeps up gets them all.
func TestASlowLiveStreamReaderIsDroppedWithoutSlowingGrading(t *testing.T) {
	r := newRig(t, jsonUpstream(`{"jsonrpc":"2.0","id":1,"result":{}}`), Options{Hub: HubOptions{Queue: 64}})
	h, err := r.proxy.Admin(AdminOptions{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	// Small socket buffers on the admin side stand for a slow network, so the stuck reader's
	// queue fills after a few hundred events rather than megabytes.
	admin := httptest.NewUnstartedServer(h)
	admin.Listener = smallBuffers{admin.Listener}
	admin.Start()
	t.Cleanup(admin.Close)

	// The stuck reader: subscribes, with a small receive window, and never reads.
	stuck, err := (&net.Dialer{}).DialContext(t.Context(), "tcp", strings.TrimPrefix(admin.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stuck.Close() })
	_ = stuck.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(stuck, "GET /events HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer %s\r\n\r\n", testToken)

	// The reader that keeps up counts exchange events.
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", admin.URL+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var fastSeen atomic.Int64
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "event: exchange" {
				fastSeen.Add(1)
			}
		}
	}()
	waitFor(t, "both readers subscribed", func() bool { return r.proxy.pipe.metrics.subscribers.Load() == 2 })

	const n = 1500
	for i := range n {
		post(t, r.front.URL+"/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s"}}`, i, strings.Repeat("t", 200)))
	}
	waitFor(t, "every exchange recorded", func() bool { return len(r.exchanges(t)) == n })
	waitFor(t, "the stuck reader dropped and counted", func() bool { return r.proxy.pipe.metrics.subscribersDropped.Load() == 1 })
	waitFor(t, "the reader that keeps up to get every exchange", func() bool { return fastSeen.Load() == n })
	if got := r.proxy.pipe.metrics.subscribers.Load(); got != 1 {
		t.Fatalf("%d subscribers left, want 1 (the one that keeps up)", got)
	}
}

func TestLiveStreamSubscribersAreBounded(t *testing.T) {
	r := newRig(t, http.NotFoundHandler(), Options{Hub: HubOptions{MaxSubscribers: 2}})
	h, err := r.proxy.Admin(AdminOptions{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	admin := httptest.NewServer(h)
	t.Cleanup(admin.Close)
	codes := make([]int, 3)
	for i := range codes {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", admin.URL+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		codes[i] = resp.StatusCode
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != http.StatusServiceUnavailable {
		t.Fatalf("three subscriptions with room for two answered %v, want 200 200 503", codes)
	}
}

func TestHubPublishNeverWaitsAndDropsAReaderThatFellBehind(t *testing.T) {
	h := newHub(HubOptions{Queue: 2}, newMetrics())
	slow, _ := h.Subscribe()
	fast, _ := h.Subscribe()
	for i := range 10 {
		h.Publish(Event{Type: EventExchange, Data: i})
		<-fast.Frames // the fast one keeps up
	}
	if !slow.WasDropped() || fast.WasDropped() || h.m.subscribersDropped.Load() != 1 {
		t.Fatalf("after 10 events with a queue of 2: slow dropped %v, fast dropped %v, counted %d; want true, false, 1",
			slow.WasDropped(), fast.WasDropped(), h.m.subscribersDropped.Load())
	}
	h.Close()
	if _, err := h.Subscribe(); err == nil {
		t.Fatal("Subscribe after Close = nil error")
	}
	select {
	case <-fast.Done:
	default:
		t.Fatal("Close left a subscription open")
	}
}

// BenchmarkHubPublish64Subscribers is the cost grading pays per batch with 64 live readers
// attached: one encoding, 64 channel sends.
func BenchmarkHubPublish64Subscribers(b *testing.B) {
	h := newHub(HubOptions{Queue: 1 << 20, MaxSubscribers: 64}, newMetrics())
	for range 64 {
		s, _ := h.Subscribe()
		go func() {
			for range s.Frames {
			}
		}()
	}
	ev := Event{Type: EventExchange, Data: exchangeSummary{ID: "abc-1", Target: "http://127.0.0.1/mcp", Method: "tools/call", Key: "tools/call:echo", Status: 200, Graded: Graded}}
	b.ReportAllocs()
	for b.Loop() {
		h.Publish(ev)
	}
}

// smallBuffers is a listener whose connections have small kernel send buffers.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}
