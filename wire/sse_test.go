package wire

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseSSEFramesEventsByTheSSERules(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Event
		cut      string
		err      bool
	}{
		{"one event", "event: message\ndata: {}\n\n", []Event{{Event: "message", Data: "{}"}}, "", false},
		{"CRLF and CR line ends", "data: a\r\n\r\ndata: b\r\r", []Event{{Data: "a"}, {Data: "b"}}, "", false},
		{"multi-line data joins with LF", "data: a\ndata: b\n\n", []Event{{Data: "a\nb"}}, "", false},
		{"comments and empty events are skipped", ": keepalive\n\nevent: x\n\ndata: y\n\n", []Event{{Data: "y"}}, "", false},
		{"no space after colon", "data:z\nid:7\n\n", []Event{{ID: "7", Data: "z"}}, "", false},
		{"unfinished last event is discarded", "data: a\n\ndata: b\n", []Event{{Data: "a"}}, "", true},
		{"event cap", strings.Repeat("data: x\n\n", 5), []Event{{Data: "x"}, {Data: "x"}}, TruncatedEvents, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := Limits{MaxSSEEvents: 10}
			if tc.cut == TruncatedEvents {
				lim.MaxSSEEvents = 2
			}
			got, cut, err := ParseSSE(strings.NewReader(tc.in), lim)
			if (err != nil) != tc.err || cut != tc.cut {
				t.Fatalf("cut %q err %v, want %q, error %v", cut, err, tc.cut, tc.err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d events %+v, want %+v", len(got), got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestParseSSEStopsAtTheByteCap(t *testing.T) {
	in := strings.Repeat("data: "+strings.Repeat("x", 100)+"\n\n", 1000)
	got, cut, err := ParseSSE(strings.NewReader(in), Limits{MaxBodyBytes: 1000})
	if err != nil || cut != TruncatedBytes {
		t.Fatalf("cut %q err %v, want bytes", cut, err)
	}
	if len(got) > 10 {
		t.Errorf("%d events from 1000 bytes", len(got))
	}
}

// endless yields the same event forever.
type endless struct{ ev []byte }

func (e endless) Read(p []byte) (int, error) { return copy(p, e.ev), nil }

func TestParseSSEStopsAnEndlessStream(t *testing.T) {
	got, cut, err := ParseSSE(endless{[]byte("data: {}\n\n")}, Limits{MaxSSEEvents: 50, ReadTimeout: time.Minute})
	if err != nil || cut != TruncatedEvents || len(got) != 50 {
		t.Fatalf("got %d events, cut %q, err %v", len(got), cut, err)
	}
}

func TestParseBodyParsesJSONStreamsAndBatches(t *testing.T) {
	evs, msgs, errs := ParseBody("text/event-stream; charset=utf-8",
		[]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\ndata: not json\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"), Limits{})
	if len(evs) != 3 || len(msgs) != 2 || len(errs) != 1 {
		t.Errorf("SSE: %d events %d messages %v", len(evs), len(msgs), errs)
	}
	_, msgs, errs = ParseBody("application/json", []byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`), Limits{})
	if len(msgs) != 1 || !IsBatch(errs) {
		t.Errorf("batch: %d messages %v", len(msgs), errs)
	}
	_, msgs, errs = ParseBody("application/json", []byte(`{"jsonrpc":`), Limits{})
	if len(msgs) != 0 || len(errs) != 1 {
		t.Errorf("invalid JSON: %d messages %v", len(msgs), errs)
	}
}

func FuzzParseSSE(f *testing.F) {
	for _, s := range []string{"data: a\n\n", "data:\r\n\r\n", ":\n", "id: \x00\ndata: x\n\n", "data: a\rdata: b\r\r", "retry: 5\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := Limits{MaxSSEEvents: 16, MaxBodyBytes: 4096}
		evs, _, _ := ParseSSE(bytes.NewReader(in), lim)
		if len(evs) > lim.MaxSSEEvents {
			t.Fatalf("%d events over the cap", len(evs))
		}
		total := 0
		for _, ev := range evs {
			total += len(ev.Data) + len(ev.ID) + len(ev.Event)
			if strings.ContainsAny(ev.Event+ev.ID, "\r\n") || strings.Contains(ev.Data, "\r") {
				t.Fatalf("line break inside a field: %+v", ev)
			}
		}
		if total > len(in) {
			t.Fatalf("output %d bytes from %d bytes of input", total, len(in))
		}
		_, msgs, _ := ParseBody(ContentTypeSSE, in, lim)
		if len(msgs) > len(evs) {
			t.Fatalf("%d messages from %d events", len(msgs), len(evs))
		}
	})
}

var _ io.Reader = endless{}

// The parsers' first line buffers are recycled (sseBuffers): what one stream returned must not
// change when the next stream reuses its buffer, and a line past the buffer still parses.
func TestParseSSEEventsOutliveTheirRecycledBuffer(t *testing.T) {
	first, _, err := ParseSSE(strings.NewReader("id: 1\nevent: a\ndata: first\n\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 3*sseBufferSize)
	for range 3 {
		if _, _, err := ParseSSE(strings.NewReader("id: 2\nevent: bbbbbbbbb\ndata: overwritten\n\ndata: "+long+"\n\n"), Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	if want := []Event{{ID: "1", Event: "a", Data: "first"}}; len(first) != 1 || first[0] != want[0] {
		t.Fatalf("first stream's events after reuse = %+v, want %+v", first, want)
	}
	got, _, err := ParseSSE(strings.NewReader("data: "+long+"\n\n"), Limits{})
	if err != nil || len(got) != 1 || got[0].Data != long {
		t.Fatalf("a line of %d bytes: %d events, err %v", len(long), len(got), err)
	}
}
