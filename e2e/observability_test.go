package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpCollector is a local OTLP/HTTP trace receiver that records the names of the spans it gets
// and the service that sent them.
type otlpCollector struct {
	mu    sync.Mutex
	spans map[string]bool // "service.name span name"
}

func (c *otlpCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	var req collectortrace.ExportTraceServiceRequest
	if err != nil || r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, kv := range rs.Resource.GetAttributes() {
			if kv.Key == "service.name" {
				service = kv.Value.GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				c.spans[service+" "+sp.Name] = true
			}
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// waitSpan waits (bounded) for a span with the given name from the given service.
func (c *otlpCollector) waitSpan(t *testing.T, name, service string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		ok := c.spans[service+" "+name]
		c.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Fatalf("no span %q from service %q reached the collector within 20 s; got %v", name, service, c.spans)
}

// discover posts a well-formed 2026-07-28 server/discover to url.
func discover(t *testing.T, url string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(WithDeadline(t, 10*time.Second), http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("server/discover at %s: %v", url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestTracesReachALocalOTLPReceiver starts the real broker and the real sentinel proxy in front of
// it with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local receiver, sends one request through the
// proxy, and requires a span for it from each program, named by its Mcp-Method header.
func TestTracesReachALocalOTLPReceiver(t *testing.T) {
	col := &otlpCollector{spans: map[string]bool{}}
	recv := httptest.NewServer(col)
	t.Cleanup(recv.Close)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL, "OTEL_EXPORTER_OTLP_INSECURE=true"}

	dir := t.TempDir()
	broker := StartServerEnv(t, env, BuildBinary(t, "broker"), "serve", "--http", "127.0.0.1:0", "--dev", "--no-auth",
		"--db", filepath.Join(dir, "broker.db"))
	px := StartServerEnv(t, env, BuildBinary(t, "sentinel"), "proxy", "--upstream", broker.URL, "--listen", "127.0.0.1:0",
		"--admin", "127.0.0.1:0", "--db", filepath.Join(dir, "findings.db"), "--log-level", "warn")

	if code := discover(t, px.URL); code != http.StatusOK {
		t.Fatalf("server/discover through the proxy: HTTP %d, want 200", code)
	}
	col.waitSpan(t, "POST server/discover", "broker")
	col.waitSpan(t, "POST server/discover", "sentinel-proxy")
}
