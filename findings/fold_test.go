package findings

import (
	"testing"
	"time"
)

// fold merges a batch's findings by key exactly as the upsert would, whatever their order.
func TestFoldMergesABatchByKeyAsTheUpsertWould(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	in := []Finding{
		{Target: "t", RuleID: "a", Key: "k", Observed: "second", ExchangeID: "e2", FirstSeen: t0.Add(2 * time.Second)},
		{Target: "t", RuleID: "b", Key: "k", Observed: "other", ExchangeID: "e9", FirstSeen: t0},
		{Target: "t", RuleID: "a", Key: "k", Observed: "first", ExchangeID: "e1", FirstSeen: t0.Add(time.Second)},
		{Target: "t", RuleID: "a", Key: "k2", Observed: "elsewhere", ExchangeID: "e3", FirstSeen: t0},
	}
	out := fold(in)
	if len(out) != 3 {
		t.Fatalf("fold gave %d findings, want 3 keys", len(out))
	}
	a := out[0]
	if a.RuleID != "a" || a.Key != "k" || a.Count != 2 || a.Observed != "second" || a.ExchangeID != "e2" ||
		!a.FirstSeen.Equal(t0.Add(time.Second)) || !a.LastSeen.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("folded finding = %+v; want count 2, the latest observation and exchange, first and last seen spanning both", a)
	}
}
