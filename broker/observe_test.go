package broker

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestObserveServesHealthAndMetrics shows the operational endpoints answer beside the MCP handler,
// that MCP requests are counted by method, known tool and status, and that an unknown tool name
// from a header is folded into "other" rather than becoming a series of its own.
func TestObserveServesHealthAndMetrics(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})
	srv := httptest.NewServer(observe(inner))
	t.Cleanup(srv.Close)

	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
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
	_, metrics := get("/metrics")
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
}
