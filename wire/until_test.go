package wire

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestReadUntilStopsAnEndlessStreamAtTheAwaitedMessage proves Until ends the read of a stream
// that never closes as soon as the awaited message arrives, keeping what came before it, and
// that a stream without that message is still read to the deadline.
func TestReadUntilStopsAnEndlessStreamAtTheAwaitedMessage(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set(HeaderContentType, ContentTypeSSE)
		w.WriteHeader(http.StatusOK)
		for _, m := range []string{"notifications/subscriptions/acknowledged", "notifications/tools/list_changed"} {
			_, _ = io.WriteString(w, `data: {"jsonrpc":"2.0","method":"`+m+`"}`+"\n\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never closes by itself
	})
	tests := []struct {
		name     string
		until    func(*Message) bool
		wantBy   string
		wantMsgs int
	}{
		{"awaited message arrives", func(m *Message) bool { return m.Method == "notifications/tools/list_changed" }, TruncatedUntil, 2},
		{"awaited message never arrives", func(m *Message) bool { return m.Method == "notifications/resources/updated" }, TruncatedDeadline, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			spec := NewCall("subscriptions/listen", nil, ReadUntil(tt.until))
			spec.URL = srv.URL
			ex := Do(ctx, http.DefaultClient, spec, Limits{ReadTimeout: 300 * time.Millisecond})
			if ex.Response == nil {
				t.Fatalf("no response: %s", ex.Err)
			}
			if ex.Response.TruncatedBy != tt.wantBy || len(ex.Response.Messages) != tt.wantMsgs {
				t.Errorf("truncated by %q with %d messages, want %q with %d", ex.Response.TruncatedBy, len(ex.Response.Messages), tt.wantBy, tt.wantMsgs)
			}
		})
	}
}
