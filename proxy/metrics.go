package proxy

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcp-sentinel/sentinel/rules"
)

// metrics are the proxy's counters, exposed in the Prometheus text format on the admin /metrics.
// They are written by the hot path (atomics only) and by workers.
type metrics struct {
	exchanges   atomic.Int64
	graded      atomic.Int64
	lost        atomic.Int64
	panics      atomic.Int64
	storeErrors atomic.Int64
	queued      atomic.Int64
	refused     atomic.Int64
	grading     *histogram
	upstream    *histogram

	subscribers        atomic.Int64
	subscribersDropped atomic.Int64

	mu       sync.Mutex
	findings map[[2]string]int64 // (rule, level) -> count
	skipped  map[string]int64    // not graded: reason -> count
}

func newMetrics() *metrics {
	buckets := []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	return &metrics{grading: newHistogram(buckets), upstream: newHistogram(buckets),
		findings: map[[2]string]int64{}, skipped: map[string]int64{}}
}

func (m *metrics) notGraded(reason string) {
	m.mu.Lock()
	m.skipped[reason]++
	m.mu.Unlock()
}

func (m *metrics) finding(rule string, level rules.Level) {
	m.mu.Lock()
	m.findings[[2]string{rule, string(level)}]++
	m.mu.Unlock()
}

// histogram is a fixed-bucket Prometheus histogram; observations are lock-free.
type histogram struct {
	bounds []float64
	counts []atomic.Int64
	count  atomic.Int64
	sumNs  atomic.Int64 // sum in nanoseconds keeps it an integer
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]atomic.Int64, len(bounds))}
}

func (h *histogram) observe(seconds float64) {
	for i, b := range h.bounds {
		if seconds <= b {
			h.counts[i].Add(1)
			break
		}
	}
	h.count.Add(1)
	h.sumNs.Add(int64(math.Round(seconds * 1e9)))
}

func (h *histogram) write(w *promWriter, name, help string) {
	w.printf("# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	var cum int64
	for i, b := range h.bounds {
		cum += h.counts[i].Load()
		w.printf("%s_bucket{le=\"%g\"} %d\n", name, b, cum)
	}
	w.printf("%s_bucket{le=\"+Inf\"} %d\n", name, h.count.Load())
	w.printf("%s_sum %g\n%s_count %d\n", name, float64(h.sumNs.Load())/1e9, name, h.count.Load())
}

// promWriter keeps the first write error, so the exposition is written line by line and
// checked once.
type promWriter struct {
	w   io.Writer
	err error
}

func (p *promWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func counter(w *promWriter, name, help string, v int64) {
	w.printf("# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
}

func gauge(w *promWriter, name, help string, v int64) {
	w.printf("# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
}

// writeTo renders every metric in the Prometheus text exposition format; b is the grading
// memory budget.
func (m *metrics) writeTo(out io.Writer, b *Budget) error {
	w := &promWriter{w: out}
	counter(w, "sentinel_proxy_exchanges_total", "Exchanges the proxy carried.", m.exchanges.Load())
	counter(w, "sentinel_proxy_graded_total", "Exchanges graded.", m.graded.Load())
	counter(w, "sentinel_proxy_lost_total", "Exchanges not even recorded: the grading memory budget was full of records the store had not taken.", m.lost.Load())
	counter(w, "sentinel_proxy_grading_panics_total", "Checks that panicked (recovered).", m.panics.Load())
	counter(w, "sentinel_proxy_store_errors_total", "Exchanges whose batch the store failed to write.", m.storeErrors.Load())
	counter(w, "sentinel_proxy_refused_total", "Requests refused: forward mode off, a host not allowed, or an admin path on the proxy listener.", m.refused.Load())
	gauge(w, "sentinel_proxy_grading_queue", "Exchanges waiting to be graded and recorded.", m.queued.Load())
	if b != nil {
		gauge(w, "sentinel_proxy_grading_memory_bytes", "Bytes held for grading: kept bodies and queued records.", b.Used())
		gauge(w, "sentinel_proxy_grading_memory_peak_bytes", "Most bytes ever held for grading at once.", b.Peak())
		gauge(w, "sentinel_proxy_grading_memory_limit_bytes", "The grading memory budget.", b.Limit())
	}
	gauge(w, "sentinel_proxy_events_subscribers", "Live-stream (/events) readers attached.", m.subscribers.Load())
	counter(w, "sentinel_proxy_events_subscribers_dropped_total", "Live-stream readers dropped for falling behind.", m.subscribersDropped.Load())
	m.mu.Lock()
	w.printf("# HELP sentinel_proxy_not_graded_total Exchanges recorded without grading, by reason.\n# TYPE sentinel_proxy_not_graded_total counter\n")
	reasons := make([]string, 0, len(m.skipped))
	for r := range m.skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		w.printf("sentinel_proxy_not_graded_total{reason=\"%s\"} %d\n", escapeLabel(strings.TrimPrefix(r, "not graded: ")), m.skipped[r])
	}
	w.printf("# HELP sentinel_proxy_findings_total Failing outcomes recorded, by rule and level.\n# TYPE sentinel_proxy_findings_total counter\n")
	keys := make([][2]string, 0, len(m.findings))
	for k := range m.findings {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		w.printf("sentinel_proxy_findings_total{rule=\"%s\",level=\"%s\"} %d\n", escapeLabel(k[0]), escapeLabel(k[1]), m.findings[k])
	}
	m.mu.Unlock()
	m.grading.write(w, "sentinel_proxy_grading_seconds", "Time spent grading one exchange.")
	m.upstream.write(w, "sentinel_proxy_upstream_seconds", "Time until the upstream answered with headers.")
	return w.err
}

// escapeLabel escapes a label value as the exposition format requires: backslash, double quote
// and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(s)
}
