package telemetry

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is a local OTLP/HTTP trace receiver: it decodes every export and keeps the span
// names with their attributes.
type otlpReceiver struct {
	mu    sync.Mutex
	spans map[string]map[string]string
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				attrs := map[string]string{}
				for _, kv := range sp.Attributes {
					attrs[kv.Key] = kv.Value.GetStringValue()
				}
				for _, kv := range rs.Resource.GetAttributes() {
					attrs["resource."+kv.Key] = kv.Value.GetStringValue()
				}
				o.spans[sp.Name] = attrs
			}
		}
	}
	o.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

func (o *otlpReceiver) span(name string) (map[string]string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	a, ok := o.spans[name]
	return a, ok
}

// TestTracesReachALocalOTLPReceiver sets the standard endpoint variable to a local receiver, serves
// one MCP-shaped request through the middleware, and finds its span, named by the Mcp-Method
// header and tagged with the service, at the receiver after shutdown flushes.
func TestTracesReachALocalOTLPReceiver(t *testing.T) {
	recv := &otlpReceiver{spans: map[string]map[string]string{}}
	collector := httptest.NewServer(recv)
	t.Cleanup(collector.Close)
	t.Setenv(EnvEndpoint, collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")

	shutdown, exporting, err := Setup(t.Context(), "sentinel-test", "v0", func(k string) string {
		if k == EnvEndpoint {
			return collector.URL
		}
		return ""
	})
	if err != nil || !exporting {
		t.Fatalf("Setup: exporting=%v err=%v", exporting, err)
	}
	app := httptest.NewServer(Middleware("test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if RequestID(r.Context()) == "" {
			t.Error("no request ID in the handler's context")
		}
		_, _ = w.Write([]byte(`{}`))
	})))
	t.Cleanup(app.Close)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, app.URL+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "flag_injection")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get(RequestIDHeader) == "" {
		t.Error("the response carries no request ID")
	}
	if err := shutdown(t.Context()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if attrs, ok := recv.span("POST tools/call"); ok {
			if attrs["mcp.name"] != "flag_injection" || attrs["resource.service.name"] != "sentinel-test" {
				t.Errorf("span attributes = %v", attrs)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no span named %q reached the receiver; got %v", "POST tools/call", recv.spans)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNoEndpointMeansNoExport shows tracing is off by default: nothing is exported and the
// middleware still assigns request IDs, keeping a client-supplied one.
func TestNoEndpointMeansNoExport(t *testing.T) {
	_, exporting, err := Setup(t.Context(), "x", "v0", func(string) string { return "" })
	if err != nil || exporting {
		t.Fatalf("Setup with no endpoint: exporting=%v err=%v", exporting, err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set(RequestIDHeader, "abc123")
	Middleware("test", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(rec, req)
	if got := rec.Header().Get(RequestIDHeader); got != "abc123" {
		t.Errorf("request ID = %q, want the client's abc123", got)
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tools/call", "tools/call"},
		{"a\nb\x1b[31m", "ab[31m"},
		{strings.Repeat("x", 200), strings.Repeat("x", 128)},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestObserveAddsNoHeader shows the proxy's variant leaves the response untouched.
func TestObserveAddsNoHeader(t *testing.T) {
	rec := httptest.NewRecorder()
	Observe("proxy", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if RequestID(r.Context()) == "" {
			t.Error("no request ID on Sentinel's side")
		}
	})).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	if len(rec.Header()) != 0 {
		t.Errorf("Observe added response headers: %v", rec.Header())
	}
}
