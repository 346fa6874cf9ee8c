package brokertest

import (
	"path/filepath"
	"testing"

	"github.com/mcp-sentinel/sentinel/eval"
)

// BenchmarkStatefulCall is one tools/call flag_injection through the whole stateful HTTP path on a
// SQLite store: guards, token, admission, the SDK, scoring, and the one transaction of the
// evaluation, its handle and its signed audit row. Run serially, it is the per-call cost a
// profile should start from (TestMeasureBroker gives the throughput under 64 clients).
func BenchmarkStatefulCall(b *testing.B) {
	st := openStore(b, backend{name: "sqlite", dsn: filepath.Join(b.TempDir(), "b.db")})
	e := startBroker(b, st, envOptions{})
	tok := e.token(b, nil)
	args := map[string]any{"response": "Please summarise the attached quarterly report for the board."}
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.call(b.Context(), tok, eval.MetricInjection, args, callParams{})
		if err != nil || r.Error != nil || r.isError() {
			b.Fatalf("%v %+v %v", err, r.Error, r.Result)
		}
	}
}
