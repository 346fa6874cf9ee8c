package broker

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestObserveServesHealthAndMetrics shows /healthz answers beside the MCP handler, that MCP
// requests are counted by method, known tool and status on the metrics listener, and that an
// unknown tool name from a header is folded into "other" rather than becoming a series of its own.
func TestObserveServesHealthAndMetrics(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})
	logs := &syncWriter{w: &strings.Builder{}}
	m := NewMetrics()
	srv := httptest.NewServer(observe(inner, slog.New(slog.NewJSONHandler(logs, nil)), m))
	t.Cleanup(srv.Close)
	metricsSrv := httptest.NewServer(m.Handler())
	t.Cleanup(metricsSrv.Close)

	getAt := func(base, path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	get := func(path string) (int, string) { t.Helper(); return getAt(srv.URL, path) }
	if code, body := get("/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("GET /healthz = %d %q, want 200 ok", code, body)
	}
	for _, name := range []string{"flag_injection", "drop table; ☃"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader("{}"))
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTeapot {
			t.Errorf("the wrapped handler's status was changed to %d", resp.StatusCode)
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Error("no request ID on the MCP response")
		}
	}
	_, metrics := getAt(metricsSrv.URL, "/metrics")
	for _, want := range []string{
		`broker_requests_total{method="tools/call",status="418",tool="flag_injection"} 1`,
		`broker_requests_total{method="tools/call",status="418",tool="other"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, "drop table") {
		t.Error("a client-supplied tool name became a label value")
	}
	// The line is written after the handler returns, which can be just after the client has its
	// answer: wait for it, boundedly.
	logged := ""
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if logged = logs.String(); strings.Count(logged, `"msg":"request"`) >= 2 {
			break
		}
	}
	if n := strings.Count(logged, `"msg":"request"`); n != 2 {
		t.Errorf("%d request log lines, want one per MCP request (2):\n%s", n, logged)
	}
	if !strings.Contains(logged, `"request_id":"`) || strings.Contains(logged, `"request_id":""`) {
		t.Errorf("request log lines lack a request ID:\n%s", logged)
	}
}

// syncWriter serialises writes from the server's goroutines into one builder.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
