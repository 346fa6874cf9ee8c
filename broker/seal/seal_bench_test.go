package seal

import (
	"testing"
	"time"
)

// BenchmarkSealOpen is one MRTR round's sealing cost: seal on the first round, open on the retry.
func BenchmarkSealOpen(b *testing.B) {
	b.ReportAllocs()
	k, err := NewKeyring(GenerateKey("k"))
	if err != nil {
		b.Fatal(err)
	}
	bind := Binding{Tool: "set_metric_policy", Tenant: "acme", Subject: "alice", RequestDigest: "set_metric_policy:0123456789abcdef"}
	var out flow
	for b.Loop() {
		s, err := k.Seal(bind, flow{ID: "flow_0123456789abcdef"}, time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		if err := k.Open(s, bind, &out); err != nil {
			b.Fatal(err)
		}
	}
}
