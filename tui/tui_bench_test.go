package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

// fullCache is a cache at capacity (10,000 exchanges), a tenth of them failing.
func fullCache(b *testing.B) *Cache {
	c := NewCache(DefaultCapacity)
	id := rules.IDOf("result-type-present")
	for i := range DefaultCapacity + 500 {
		r := Row{ID: fmt.Sprint(i), Target: "http://127.0.0.1:8080/mcp", Started: t0.Add(time.Duration(i) * time.Millisecond),
			Method: "tools/call", Key: fmt.Sprintf("tools/call:tool%d", i%50), Status: 200, Graded: "graded"}
		if i%10 == 0 {
			r.Count = 1
			r.Findings = []findings.Finding{{RuleID: id, Level: rules.Must, ExchangeID: r.ID}}
		}
		c.AddExchange(r)
	}
	return c
}

// BenchmarkRefreshAndRender10k is what one screen refresh costs with a full ring and a filter:
// snapshot, filter 10,000 rows, render 80x24.
func BenchmarkRefreshAndRender10k(b *testing.B) {
	c := fullCache(b)
	m := New(Options{Source: c, API: &fakeAPI{}, Now: func() time.Time { return t0 }, Location: time.UTC})
	f, err := ParseFilter("level:must tool:tool10")
	if err != nil {
		b.Fatal(err)
	}
	m.filter = f
	b.ReportAllocs()
	for b.Loop() {
		m.dirty = true
		m.refresh()
		_ = m.Render()
	}
}

// BenchmarkAddExchange is the cost of one live exchange arriving into a full ring.
func BenchmarkAddExchange(b *testing.B) {
	c := fullCache(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		c.AddExchange(Row{ID: fmt.Sprint("x", i), Method: "ping", Started: t0})
	}
}
