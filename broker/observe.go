package broker

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcp-sentinel/sentinel/internal/telemetry"
)

// knownMethods and knownTools bound the label values the metrics take from client-supplied
// headers: anything else is counted as "other", so a client cannot blow up the series count.
var (
	knownMethods = map[string]bool{"server/discover": true, "tools/list": true, "tools/call": true}
	knownTools   = map[string]bool{"flag_injection": true, "check_groundedness": true, "get_evaluation": true, "set_metric_policy": true}
)

// Metrics are the Prometheus series the broker keeps, on a registry of their own so that two
// brokers in one process (tests) do not collide. They are served by Handler on a listener of
// their own (serve --metrics, loopback by default), never on the MCP listener, which would hand
// unauthenticated callers the request counts by tool and status.
type Metrics = brokerMetrics

// NewMetrics returns an empty set of broker metrics.
func NewMetrics() *Metrics { return newBrokerMetrics() }

// Handler serves GET /metrics (Prometheus text) and GET /healthz, for the metrics listener.
func (m *brokerMetrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", healthz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	return mux
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

type brokerMetrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newBrokerMetrics() *brokerMetrics {
	m := &brokerMetrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "broker_requests_total",
			Help: "MCP requests by method (Mcp-Method), tool (Mcp-Name, tools/call only) and HTTP status.",
		}, []string{"method", "tool", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "broker_request_seconds",
			Help:    "Time to answer an MCP request, by method and tool.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"method", "tool"}),
	}
	m.reg.MustRegister(m.requests, m.latency, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// wrap counts and times every MCP request and logs one canonical line for it, carrying the request
// ID the telemetry middleware assigned, so a log line, a trace and a client's X-Request-Id meet.
func (m *brokerMetrics) wrap(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, tool := r.Header.Get("Mcp-Method"), ""
		if !knownMethods[method] {
			method = "other"
		}
		if method == "tools/call" {
			if tool = r.Header.Get("Mcp-Name"); !knownTools[tool] {
				tool = "other"
			}
		}
		start := time.Now()
		sw := telemetry.NewStatusRecorder(w)
		next.ServeHTTP(sw, r)
		status := sw.Status()
		if status == 0 {
			status = http.StatusOK
		}
		elapsed := time.Since(start)
		m.requests.WithLabelValues(method, tool, strconv.Itoa(status)).Inc()
		m.latency.WithLabelValues(method, tool).Observe(elapsed.Seconds())
		log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", telemetry.RequestID(r.Context())),
			slog.String("http_method", r.Method),
			slog.String("mcp_method", method),
			slog.String("tool", tool),
			slog.Int("status", status),
			slog.Int64("duration_ms", elapsed.Milliseconds()))
	})
}

// observe puts GET /healthz (liveness and readiness: the process serves HTTP) beside the MCP
// handler, and around every other request a server span, a request ID, one structured log line and
// m's counters (traces are exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set). /metrics is not
// here: m.Handler serves it on the metrics listener.
func observe(h http.Handler, log *slog.Logger, m *Metrics) http.Handler {
	if m == nil {
		m = newBrokerMetrics()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", healthz)
	mux.Handle("/", telemetry.Middleware("broker", m.wrap(h, log)))
	return mux
}
