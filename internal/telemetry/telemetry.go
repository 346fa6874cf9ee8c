// Package telemetry gives the broker and the proxy the same observability: OpenTelemetry traces
// exported over OTLP/HTTP when the standard OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) variable is set, and an HTTP middleware that opens one server
// span per request, named by the MCP method the request carries in its Mcp-Method header (so no
// body is parsed for it), and tags every request with a request ID for the logs.
//
// With no endpoint configured nothing is exported and the middleware only assigns request IDs:
// tracing costs nothing until an operator asks for it. The package imports nothing of Sentinel's,
// so both the harness and the broker may use it.
package telemetry

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The environment variables Setup reads (the OpenTelemetry standard names).
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// RequestIDHeader carries the request ID: taken from the request when a client or load balancer
// set one, generated otherwise, and echoed on the response.
const RequestIDHeader = "X-Request-Id"

// Shutdown flushes and stops the exporter; it is safe to call when nothing was set up.
type Shutdown func(context.Context) error

// Setup installs a global tracer provider that exports to the OTLP/HTTP endpoint named by the
// environment (read through getenv, so tests and commands control it), and the W3C trace-context
// propagator. With neither variable set it installs nothing and reports exporting=false.
func Setup(ctx context.Context, service, version string, getenv func(string) string) (shutdown Shutdown, exporting bool, err error) {
	noop := func(context.Context) error { return nil }
	if getenv(EnvEndpoint) == "" && getenv(EnvTracesEndpoint) == "" {
		return noop, false, nil
	}
	exp, err := newOTLPExporter(getenv) // reads the other OTEL_EXPORTER_OTLP_* variables too (otlp.go)
	if err != nil {
		return noop, false, fmt.Errorf("starting the OTLP trace exporter: %w", err)
	}
	res := sdkresource.NewSchemaless(
		attribute.String("service.name", service),
		attribute.String("service.version", version),
	)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Second)), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, true, nil
}

type requestIDKey struct{}

// RequestID returns the request ID the middleware assigned, or "" outside a request.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// StatusRecorder remembers the status a handler wrote, and passes Flush, Hijack and Unwrap
// through so SSE streams keep streaming and CONNECT tunnels keep working. The broker's metrics use
// it too.
type StatusRecorder struct {
	http.ResponseWriter
	status int
}

// NewStatusRecorder wraps w.
func NewStatusRecorder(w http.ResponseWriter) *StatusRecorder {
	return &StatusRecorder{ResponseWriter: w}
}

// Status is the status written so far: 0 before anything was written.
func (r *StatusRecorder) Status() int { return r.status }

// WriteHeader records the first status and writes it.
func (r *StatusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write records an implicit 200 and writes b.
func (r *StatusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush passes through to the underlying writer when it can flush.
func (r *StatusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack passes connection takeover through (the proxy's CONNECT tunnels need it).
func (r *StatusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := r.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("telemetry: the underlying %T cannot be hijacked", r.ResponseWriter)
	}
	if r.status == 0 {
		r.status = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *StatusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Middleware wraps next with a server span per request (named "<HTTP method> <Mcp-Method>", with
// the MCP method, name and protocol version as attributes, all from headers) and a request ID,
// echoed on the response. Without Setup having exported anything, the global no-op tracer makes the
// span free.
func Middleware(component string, next http.Handler) http.Handler {
	return middleware(component, next, true)
}

// Observe is Middleware for a component that must not change traffic (the proxy): the span and the
// request ID exist only on Sentinel's side; no header is added to the response.
func Observe(component string, next http.Handler) http.Handler {
	return middleware(component, next, false)
}

func middleware(component string, next http.Handler, echo bool) http.Handler {
	tracer := otel.Tracer("github.com/mcp-sentinel/sentinel/" + component)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if id == "" || len(id) > 128 {
			id = newRequestID()
		}
		if echo {
			w.Header().Set(RequestIDHeader, id)
		}
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)
		ctx = otel.GetTextMapPropagator().Extract(ctx, propagation.HeaderCarrier(r.Header))
		name := r.Method
		if m := r.Header.Get("Mcp-Method"); m != "" {
			name += " " + m
		}
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String("http.request.method", r.Method),
			attribute.String("url.path", r.URL.Path),
			attribute.String("mcp.method", r.Header.Get("Mcp-Method")),
			attribute.String("mcp.name", r.Header.Get("Mcp-Name")),
			attribute.String("mcp.protocol_version", r.Header.Get("MCP-Protocol-Version")),
			attribute.String("request.id", id),
		))
		defer span.End()
		rec := &StatusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(ctx))
		span.SetAttributes(attribute.Int("http.response.status_code", rec.status))
		if rec.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(rec.status))
		}
	})
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Sanitize keeps a header-supplied value safe to log: printable ASCII, at most 128 bytes.
func Sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return -1
		}
		return r
	}, s)
	if len(s) > 128 {
		s = s[:128]
	}
	return s
}
