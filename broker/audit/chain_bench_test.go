package audit

import (
	"testing"
	"time"
)

// BenchmarkLink is the CPU cost of one audit append's hash (the database round trip is measured
// in broker/store).
func BenchmarkLink(b *testing.B) {
	b.ReportAllocs()
	prev := Link(nil, Entry{At: time.Now(), Tenant: "acme", Subject: "alice", Tool: "flag_injection", ArgsDigest: Genesis, Outcome: "ok"})
	e := Entry{At: time.Now(), Tenant: "acme", Subject: "alice", Tool: "flag_injection", ArgsDigest: Genesis, Outcome: "ok", DecidedBy: "heuristic"}
	for b.Loop() {
		prev = Link(&prev, e)
	}
}
