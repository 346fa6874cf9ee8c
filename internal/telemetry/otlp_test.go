package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// testSpans are two spans of one resource and scope, with every kind of attribute value, an
// event, a link, a parent and an error status.
func testSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	pid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	lsid, _ := trace.SpanIDFromHex("1111111111111111")
	start := time.Unix(1785000000, 123456789)
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "sentinel-proxy"))
	scope := instrumentation.Scope{Name: "github.com/mcp-sentinel/sentinel/proxy", Version: "1.2.3"}
	stubs := tracetest.SpanStubs{
		{
			Name:        "POST tools/call",
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
			Parent:      trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: pid, Remote: true}),
			SpanKind:    trace.SpanKindServer,
			StartTime:   start,
			EndTime:     start.Add(1500 * time.Microsecond),
			Attributes: []attribute.KeyValue{
				attribute.String("mcp.method", "tools/call"), attribute.String("empty", ""),
				attribute.Bool("no", false), attribute.Bool("yes", true), attribute.Int("status", 503), attribute.Int64("neg", -7),
				attribute.Float64("ratio", 0.25), attribute.StringSlice("list", []string{"a", "b"}), attribute.Int64Slice("ns", []int64{1, -2}),
			},
			Events:               []sdktrace.Event{{Name: "retry", Time: start.Add(time.Millisecond), Attributes: []attribute.KeyValue{attribute.Int("attempt", 2)}}},
			Links:                []sdktrace.Link{{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: lsid}), Attributes: []attribute.KeyValue{attribute.String("why", "follows")}}},
			Status:               sdktrace.Status{Code: codes.Error, Description: "Service Unavailable"},
			DroppedAttributes:    3,
			Resource:             res,
			InstrumentationScope: scope,
		},
		{
			Name:                 "GET /metrics",
			SpanContext:          trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: lsid}),
			SpanKind:             trace.SpanKindInternal,
			StartTime:            start,
			EndTime:              start,
			Resource:             res,
			InstrumentationScope: scope,
		},
	}
	return stubs.Snapshots()
}

// TestOTLPEncodingDecodesWithTheOfficialDefinitions: what the exporter writes is read back by the
// OpenTelemetry protobuf definitions with every field in place.
func TestOTLPEncodingDecodesWithTheOfficialDefinitions(t *testing.T) {
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(encodeExport(testSpans(t)), &req); err != nil {
		t.Fatalf("the official definitions cannot read the export: %v", err)
	}
	if len(req.ResourceSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("want one resource with one scope, got %v", &req)
	}
	rs := req.ResourceSpans[0]
	if rs.SchemaUrl != "https://opentelemetry.io/schemas/1.26.0" || rs.Resource.Attributes[0].Key != "service.name" || rs.Resource.Attributes[0].Value.GetStringValue() != "sentinel-proxy" {
		t.Errorf("resource %v, schema %q", rs.Resource, rs.SchemaUrl)
	}
	ss := rs.ScopeSpans[0]
	if ss.Scope.Name != "github.com/mcp-sentinel/sentinel/proxy" || ss.Scope.Version != "1.2.3" || len(ss.Spans) != 2 {
		t.Fatalf("scope %v with %d spans", ss.Scope, len(ss.Spans))
	}
	sp := ss.Spans[0]
	checks := []struct {
		what string
		ok   bool
	}{
		{"trace id", bytes.Equal(sp.TraceId, []byte{0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80, 0x31, 0x9c})},
		{"span id", bytes.Equal(sp.SpanId, []byte{0xb7, 0xad, 0x6b, 0x71, 0x69, 0x20, 0x33, 0x31})},
		{"parent", bytes.Equal(sp.ParentSpanId, []byte{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7})},
		{"name", sp.Name == "POST tools/call"},
		{"kind", sp.Kind == tracepb.Span_SPAN_KIND_SERVER},
		{"start", sp.StartTimeUnixNano == 1785000000123456789},
		{"end", sp.EndTimeUnixNano == 1785000000124956789},
		{"status", sp.Status.Code == tracepb.Status_STATUS_CODE_ERROR && sp.Status.Message == "Service Unavailable"},
		{"dropped attributes", sp.DroppedAttributesCount == 3},
		{"flags", sp.Flags&0xff == 1},
		{"event", len(sp.Events) == 1 && sp.Events[0].Name == "retry" && sp.Events[0].TimeUnixNano == 1785000000124456789 && sp.Events[0].Attributes[0].Value.GetIntValue() == 2},
		{"link", len(sp.Links) == 1 && bytes.Equal(sp.Links[0].SpanId, []byte{0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11}) && sp.Links[0].Attributes[0].Value.GetStringValue() == "follows"},
		{"second span", ss.Spans[1].Name == "GET /metrics" && ss.Spans[1].Kind == tracepb.Span_SPAN_KIND_INTERNAL && len(ss.Spans[1].ParentSpanId) == 0 && ss.Spans[1].Status.Code == tracepb.Status_STATUS_CODE_UNSET},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s is wrong in %v", c.what, sp)
		}
	}
	attrs := map[string]*commonpb.AnyValue{}
	for _, kv := range sp.Attributes {
		attrs[kv.Key] = kv.Value
	}
	if v, ok := attrs["empty"].GetValue().(*commonpb.AnyValue_StringValue); !ok || v.StringValue != "" {
		t.Errorf("an empty string attribute came back as %v", attrs["empty"])
	}
	if v, ok := attrs["no"].GetValue().(*commonpb.AnyValue_BoolValue); !ok || v.BoolValue {
		t.Errorf("a false attribute came back as %v", attrs["no"])
	}
	if !attrs["yes"].GetBoolValue() || attrs["status"].GetIntValue() != 503 || attrs["neg"].GetIntValue() != -7 || math.Abs(attrs["ratio"].GetDoubleValue()-0.25) > 0 {
		t.Errorf("scalar attributes came back as %v %v %v %v", attrs["yes"], attrs["status"], attrs["neg"], attrs["ratio"])
	}
	if l := attrs["list"].GetArrayValue().GetValues(); len(l) != 2 || l[1].GetStringValue() != "b" {
		t.Errorf("a string slice came back as %v", attrs["list"])
	}
	if l := attrs["ns"].GetArrayValue().GetValues(); len(l) != 2 || l[1].GetIntValue() != -2 {
		t.Errorf("an int slice came back as %v", attrs["ns"])
	}
}

// TestOTLPExporterConfiguration: the endpoint, headers, timeout and compression come from the
// standard variables, the signal-specific ones winning; bad values are errors naming the variable.
func TestOTLPExporterConfiguration(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	e, err := newOTLPExporter(env(map[string]string{EnvEndpoint: "http://collector:4318/", envHeaders: "api-key=a%20b,x=1", envTracesHeaders: "", envTimeout: "2500", envCompression: "gzip"}))
	if err != nil {
		t.Fatal(err)
	}
	if e.endpoint != "http://collector:4318/v1/traces" || e.header.Get("Api-Key") != "a b" || e.header.Get("X") != "1" || e.timeout != 2500*time.Millisecond || !e.gzip {
		t.Errorf("exporter %+v", e)
	}
	e, err = newOTLPExporter(env(map[string]string{EnvEndpoint: "http://a:4318", EnvTracesEndpoint: "https://b/custom/path", envTracesTimeout: "100", envTimeout: "9"}))
	if err != nil {
		t.Fatal(err)
	}
	if e.endpoint != "https://b/custom/path" || e.timeout != 100*time.Millisecond || e.gzip {
		t.Errorf("the signal-specific variables lost: %+v", e)
	}
	for _, bad := range []map[string]string{
		{EnvEndpoint: "collector:4318"},
		{EnvEndpoint: "http://c", envHeaders: "novalue"},
		{EnvEndpoint: "http://c", envTimeout: "soon"},
		{EnvEndpoint: "http://c", envCompression: "zstd"},
		{EnvEndpoint: "http://c", envCertificate: "/nonexistent/ca.pem"},
		{EnvEndpoint: "http://c", envClientCert: "/x.pem"},
	} {
		if _, err := newOTLPExporter(env(bad)); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

// TestOTLPExporterSendsRetriesAndRefuses: a batch arrives as protobuf with the configured headers
// (gzipped when asked), a receiver that answers 503 gets it again, and one that answers 400 is an
// error without a retry.
func TestOTLPExporterSendsRetriesAndRefuses(t *testing.T) {
	var calls atomic.Int32
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		body := io.Reader(r.Body)
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		var req collectortrace.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Authorization") != "Bearer t" || proto.Unmarshal(b, &req) != nil {
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		if n == 1 {
			w.WriteHeader(int(status.Load()))
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	e, err := newOTLPExporter(func(k string) string {
		return map[string]string{EnvEndpoint: srv.URL, envHeaders: "Authorization=Bearer%20t", envCompression: "gzip"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.ExportSpans(context.Background(), testSpans(t)); err != nil || calls.Load() != 2 {
		t.Errorf("after a 503: err %v after %d calls, want the second to succeed", err, calls.Load())
	}
	calls.Store(0)
	status.Store(http.StatusBadRequest)
	if err := e.ExportSpans(context.Background(), testSpans(t)); err == nil || !strings.Contains(err.Error(), "refused") || calls.Load() != 1 {
		t.Errorf("after a 400: err %v after %d calls, want a refusal and no retry", err, calls.Load())
	}
	_ = e.Shutdown(context.Background())
	calls.Store(0)
	if err := e.ExportSpans(context.Background(), testSpans(t)); err != nil || calls.Load() != 0 {
		t.Errorf("after Shutdown: err %v, %d calls, want nothing sent", err, calls.Load())
	}
}
