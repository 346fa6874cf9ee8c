package active

import (
	"testing"
	"time"
)

// BenchmarkScan measures a full probe run, discovery to merged result, against the in-process
// test server over loopback HTTP.
func BenchmarkScan(b *testing.B) {
	srv := (&fakeServer{}).startB(b)
	b.ReportAllocs()
	for b.Loop() {
		out, err := Scan(b.Context(), Options{Endpoint: srv.URL, Timeout: 30 * time.Second})
		if err != nil || out.Result.Era != EraModern {
			b.Fatalf("scan: %v", err)
		}
	}
}
