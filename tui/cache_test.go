package tui

import (
	"fmt"
	"testing"

	"github.com/mcp-sentinel/sentinel/findings"
)

func TestCacheRingDropsOldestAndCounts(t *testing.T) {
	c := NewCache(3)
	for i := range 5 {
		c.AddExchange(Row{ID: fmt.Sprint(i)})
	}
	s := c.Snapshot()
	if len(s.Rows) != 3 || s.Dropped != 2 || s.Rows[0].ID != "2" || s.Rows[2].ID != "4" {
		t.Fatalf("snapshot rows %v dropped %d, want 2..4 with 2 dropped", ids(s.Rows), s.Dropped)
	}
}

func TestCacheSnapshotIsImmutable(t *testing.T) {
	c := NewCache(2)
	c.AddExchange(Row{ID: "a"})
	c.AddExchange(Row{ID: "b"})
	before := c.Snapshot()
	for i := range 10 { // forces drops and a compaction
		c.AddExchange(Row{ID: fmt.Sprint(i)})
	}
	if got := ids(before.Rows); fmt.Sprint(got) != "[a b]" {
		t.Fatalf("an old snapshot changed to %v", got)
	}
}

func TestCacheSkipsDuplicateIDs(t *testing.T) {
	c := NewCache(0)
	if n := c.AddExchanges([]Row{{ID: "2"}, {ID: "1"}}); n != 2 {
		t.Fatalf("AddExchanges added %d, want 2", n)
	}
	if c.AddExchange(Row{ID: "1"}) {
		t.Fatal("a known ID was added twice")
	}
	if got := ids(c.Snapshot().Rows); fmt.Sprint(got) != "[1 2]" {
		t.Fatalf("rows %v, want oldest first [1 2]", got)
	}
}

func TestCacheAttachesLiveFindingsToTheirExchange(t *testing.T) {
	c := NewCache(0)
	f := findings.Finding{RuleID: "MCP/2026-07-28/MUST/r", ExchangeID: "x"}
	c.AddLiveFinding(f)
	c.AddLiveFinding(f) // the same rule twice on one exchange is one finding
	c.AddExchange(Row{ID: "x", Count: 1})
	r := c.Snapshot().Rows[0]
	if len(r.Findings) != 1 || r.Findings[0].RuleID != f.RuleID {
		t.Fatalf("row findings = %v, want the one live finding", r.Findings)
	}
}

func TestCacheAttachesStoredFindingsToTheirLatestExchange(t *testing.T) {
	c := NewCache(0)
	c.SetFindings([]findings.Finding{{RuleID: "MCP/2026-07-28/MUST/r", ExchangeID: "y"}}, false)
	c.AddExchanges([]Row{{ID: "y", Count: 1}, {ID: "z"}})
	rows := c.Snapshot().Rows
	if len(rows[1].Findings) != 1 || len(rows[0].Findings) != 0 {
		t.Fatalf("findings on z=%d y=%d, want 0 and 1", len(rows[0].Findings), len(rows[1].Findings))
	}
}

func TestCacheSignalsChanges(t *testing.T) {
	c := NewCache(0)
	c.AddExchange(Row{ID: "1"})
	c.AddExchange(Row{ID: "2"}) // coalesced into the same signal
	select {
	case <-c.Changed():
	default:
		t.Fatal("no change signalled")
	}
	select {
	case <-c.Changed():
		t.Fatal("two signals for one unread change")
	default:
	}
	if v := c.Snapshot().Version; v != 2 {
		t.Fatalf("version %d after two changes, want 2", v)
	}
}

func ids(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}
