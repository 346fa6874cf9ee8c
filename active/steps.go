package active

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
)

// Step timing. Every step of a scan (discovery, then each probe that runs) is timed and counts
// the requests it sends, and the result lists them (report.Result.Probes, "durationMs" in JSON),
// so the slowest probes, and what the scan's wall-clock is made of, can be read off any result.

// stepStat counts the requests one step sends; it travels in the step's context so that Send
// can find it without every probe passing it along.
type stepStat struct{ requests atomic.Int64 }

type stepKey struct{}

// withStep returns ctx carrying a fresh request counter for one step.
func withStep(ctx context.Context) (context.Context, *stepStat) {
	st := &stepStat{}
	return context.WithValue(ctx, stepKey{}, st), st
}

// countRequest adds one request to the step ctx belongs to, if any.
func countRequest(ctx context.Context) {
	if st, ok := ctx.Value(stepKey{}).(*stepStat); ok {
		st.requests.Add(1)
	}
}

// recordStep adds one step's timing to the scan's record.
func (t *Target) recordStep(name string, start time.Time, requests int64, cut string) {
	run := report.ProbeRun{
		Name:       name,
		StartMs:    report.Millis(start.Sub(t.started)),
		DurationMs: report.Millis(time.Since(start)),
		Requests:   int(requests),
		Cut:        cut,
	}
	t.mu.Lock()
	t.steps = append(t.steps, run)
	t.mu.Unlock()
}

// stepsCopy returns the steps recorded so far in the order they started (by name for steps
// that started together).
func (t *Target) stepsCopy() []report.ProbeRun {
	t.mu.Lock()
	out := slices.Clone(t.steps)
	t.mu.Unlock()
	slices.SortStableFunc(out, func(a, b report.ProbeRun) int {
		if a.StartMs != b.StartMs {
			if a.StartMs < b.StartMs {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}
