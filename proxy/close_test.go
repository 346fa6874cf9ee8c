package proxy

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// TestCloseRecordsEveryQueuedExchange is what SIGTERM asks of the pipeline (sentinel proxy
// calls Close on it): every exchange queued is recorded, graded while Close's context lasts and
// recorded without grading (NotGradedShutdown) once it has ended, never dropped. A grader that
// takes its time keeps the queue full when Close is called.
func TestCloseRecordsEveryQueuedExchange(t *testing.T) {
	for _, tc := range []struct {
		name    string
		expired bool
	}{{"with time to grade", false}, {"past its deadline", true}} {
		t.Run(tc.name, func(t *testing.T) {
			store, err := findings.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = store.Close() })
			release := make(chan struct{})
			slow := GraderFunc(func(ex *wire.Exchange, h *passive.History) []rules.Outcome {
				<-release
				return passive.Run(ex, h)
			})
			pipe, err := NewPipeline(PipelineOptions{Store: store, Graders: []Grader{slow}, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			const n = 50
			for i := range n {
				pipe.Submit(&Capture{ID: "close-" + strconv.Itoa(i), Start: time.Now(), End: time.Now(),
					Target: "http://127.0.0.1/mcp", Method: http.MethodPost, URL: "http://127.0.0.1/mcp",
					RequestHeader: http.Header{"Content-Type": {"application/json"}}, RequestBody: []byte(measureCall),
					Status: 200, ResponseHeader: http.Header{"Content-Type": {"application/json"}}, ResponseBody: []byte(measureResult)})
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.expired {
				cancel()
			}
			defer cancel()
			closed := make(chan error, 1)
			go func() { closed <- pipe.Close(ctx) }()
			close(release) // the grader answers from now on; the queue is still full
			if err := <-closed; err != nil {
				t.Fatalf("Close = %v", err)
			}
			exs, err := store.Exchanges(t.Context(), findings.Filter{Limit: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(exs) != n {
				t.Fatalf("%d of %d queued exchanges recorded after Close, want all", len(exs), n)
			}
			shutdown := 0
			for _, ex := range exs {
				switch ex.Graded {
				case Graded:
				case NotGradedShutdown:
					shutdown++
				default:
					t.Fatalf("exchange %s recorded as %q", ex.ID, ex.Graded)
				}
			}
			if !tc.expired && shutdown != 0 {
				t.Fatalf("%d exchanges recorded as %q with time left to grade them", shutdown, NotGradedShutdown)
			}
			if lost := pipe.metrics.lost.Load(); lost != 0 {
				t.Fatalf("%d exchanges lost", lost)
			}
		})
	}
}
