package telemetry

import (
	"net/http"
	"testing"
)

// nopWriter is a ResponseWriter that keeps nothing, so the benchmark counts the middleware only.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

// BenchmarkObserveWithoutExporter is what Observe costs a request when no exporter is set up
// (the no-op tracer): a request ID, the propagator, a span with six attributes and a copy of the
// request. sentinel proxy therefore wraps its traffic in Observe only when it exports traces.
func BenchmarkObserveWithoutExporter(b *testing.B) {
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	r, _ := http.NewRequest("POST", "http://127.0.0.1/mcp", nil)
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", "echo")
	w := &nopWriter{h: http.Header{}}
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{{"bare", next}, {"observe", Observe("proxy", next)}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tc.h.ServeHTTP(w, r)
			}
		})
	}
}
