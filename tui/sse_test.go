package tui

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadSSE(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{name: "named events in order", in: "event: exchange\ndata: {\"id\":\"1\"}\n\nevent: finding\ndata: {}\n\n",
			want: []sseEvent{{Name: "exchange", Data: []byte(`{"id":"1"}`)}, {Name: "finding", Data: []byte("{}")}}},
		{name: "keepalive comments are skipped", in: ": keepalive\n\nevent: x\ndata: 1\n\n", want: []sseEvent{{Name: "x", Data: []byte("1")}}},
		{name: "multi-line data joins with newline", in: "data: a\ndata: b\n\n", want: []sseEvent{{Data: []byte("a\nb")}}},
		{name: "CRLF line ends", in: "event: x\r\ndata: 1\r\n\r\n", want: []sseEvent{{Name: "x", Data: []byte("1")}}},
		{name: "an unterminated event is not delivered", in: "event: x\ndata: 1\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []sseEvent
			err := readSSE(strings.NewReader(tt.in), func(e sseEvent) error { got = append(got, e); return nil })
			if err != nil {
				t.Fatalf("readSSE: %v", err)
			}
			if !reflect.DeepEqual(tt.want, got) {
				t.Errorf("readSSE(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestReadSSEStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := readSSE(strings.NewReader("data: 1\n\ndata: 2\n\n"), func(sseEvent) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("readSSE = %v after %d events, want stop after 1", err, n)
	}
}

// FuzzReadSSE checks that the reader never panics, never delivers more events than blank lines,
// and never delivers data longer than its input.
func FuzzReadSSE(f *testing.F) {
	for _, s := range []string{"", "data: x\n\n", "event:\n\n:c\n\n", "data\n\n\n", "data: \r\n\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := 0
		_ = readSSE(strings.NewReader(s), func(e sseEvent) error {
			n++
			if len(e.Data) > len(s) {
				t.Fatalf("event data %d bytes from %d bytes of input", len(e.Data), len(s))
			}
			return nil
		})
		if blanks := strings.Count(s, "\n"); n > blanks {
			t.Fatalf("%d events from %d line ends", n, blanks)
		}
	})
}
