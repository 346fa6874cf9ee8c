package active

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/wire"
)

// slowToolServer is fakeServer with one more read-only tool, "slow", that answers a plain result
// after delay (never, within the test, when delay exceeds the scan's request deadline). It
// counts the calls of "slow", with and without a progress token.
type slowToolServer struct {
	fakeServer
	delay time.Duration

	mu                  sync.Mutex
	calls, progressCall int
}

func (s *slowToolServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m, err := wire.DecodeMessage(body)
	if err == nil && m.Method == "tools/list" {
		writeResult(w, m.ID, map[string]any{"tools": []any{
			map[string]any{"name": "slow", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}},
		}, "ttlMs": 0, "cacheScope": "public"})
		return
	}
	if err == nil && m.Method == "tools/call" && strings.Contains(string(m.Params), `"slow"`) {
		s.mu.Lock()
		if _, ok := m.Meta()["progressToken"]; ok {
			s.progressCall++
		} else {
			s.calls++
		}
		s.mu.Unlock()
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
		writeResult(w, m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}, "resultType": "complete"})
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.serve(w, r)
}

// A tool that outlasts --request-timeout is called once without a progress token (discovery's
// call, before any probe starts); every later identical call is not sent, the report says why,
// and the verdict is the same scan after scan. Calls with a progress token are still sent: what
// they show before the deadline is evidence. The control: the same tool answering in time is
// called by every probe that wants it.
func TestAnUnansweredToolCallIsNotSentAgain(t *testing.T) {
	tests := []struct {
		name      string
		delay     time.Duration
		wantCalls func(int) bool
		wantNote  bool
	}{
		{"slow past the deadline", 5 * time.Second, func(n int) bool { return n == 1 }, true},
		{"answers in time", 0, func(n int) bool { return n > 1 }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var verdicts []string
			for range 2 {
				s := &slowToolServer{delay: tc.delay}
				srv := httptest.NewServer(s)
				out := scan(t, srv.URL, Options{Timeout: 20 * time.Second, Limits: wire.Limits{ReadTimeout: 300 * time.Millisecond}})
				srv.Close()
				s.mu.Lock()
				calls, progress := s.calls, s.progressCall
				s.mu.Unlock()
				if !tc.wantCalls(calls) || progress == 0 {
					t.Errorf("slow was called %d times without a progress token and %d with one", calls, progress)
				}
				notes := strings.Join(out.Result.Notes, "\n")
				if got := strings.Count(notes, "later calls with the same arguments were not sent"); got != map[bool]int{true: 1}[tc.wantNote] {
					t.Errorf("%d notes about the unanswered call, want one if and only if it went unanswered (%v); notes:\n%s", got, tc.wantNote, notes)
				}
				if out.Result.Incomplete != nil {
					t.Errorf("the scan is incomplete: %+v", *out.Result.Incomplete)
				}
				var v []string
				for _, rr := range out.Result.Rules {
					v = append(v, rr.Rule.Name+"="+string(rr.Status))
				}
				b, _ := json.Marshal(v)
				verdicts = append(verdicts, string(b))
			}
			if verdicts[0] != verdicts[1] {
				t.Errorf("the verdict changed between two scans of the same server")
			}
		})
	}
}
