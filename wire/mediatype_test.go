package wire

import (
	"mime"
	"strings"
	"testing"
)

// MediaType must give what mime.ParseMediaType gives as the media type whenever that parses,
// and the lower-cased, trimmed part before ';' when it does not, without allocating for the
// lower-case types the proxy's tap sees on every request.
func TestMediaTypeMatchesParseMediaType(t *testing.T) {
	for _, ct := range []string{
		"", "application/json", "Application/JSON", " application/json ; charset=utf-8",
		"text/event-stream", "Text/Event-Stream;charset=UTF-8", "application/vnd.x+json; a=b; a=c",
		"application/json; charset", "application/json;", "foo", "a/b/c", "text/plain; q=\"x;y\"",
		";x=y", "application/x-ndjson\t",
	} {
		want := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
		if mt, _, err := mime.ParseMediaType(ct); err == nil {
			want = mt
		}
		if got := MediaType(ct); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", ct, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = MediaType("application/json; charset=utf-8") }); n != 0 {
		t.Errorf("MediaType allocated %v times for a lower-case type, want 0", n)
	}
}
