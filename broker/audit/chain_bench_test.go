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

// BenchmarkSignRecord is the CPU cost of signing one audit row.
func BenchmarkSignRecord(b *testing.B) {
	s, err := GenerateSigner()
	if err != nil {
		b.Fatal(err)
	}
	r := Link(nil, Entry{At: time.Now(), Tenant: "acme", Subject: "alice", Tool: "flag_injection", ArgsDigest: Genesis, Outcome: "ok"})
	b.ReportAllocs()
	for b.Loop() {
		s.SignRecord(&r)
	}
}

// BenchmarkVerify is the cost per row of verifying a signed chain.
func BenchmarkVerify(b *testing.B) {
	s, _ := GenerateSigner()
	keys := Keys{}
	keys.Add(s.Public())
	rs := chain(1000, s)
	b.ReportAllocs()
	for b.Loop() {
		if rep := Verify(rs, keys, nil); rep.Break != nil {
			b.Fatal(rep.Break)
		}
	}
}
