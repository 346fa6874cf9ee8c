package findings

import (
	"encoding/json"
	"net/http"
	"testing"
)

// headerJSON must write exactly what json.Marshal(StripCredentials(h)) writes: stored rows are
// read back with encoding/json, and rows written before and after it sit side by side.
func TestHeaderJSONMatchesEncodingJSON(t *testing.T) {
	cases := map[string]http.Header{
		"nil":         nil,
		"empty":       {},
		"plain":       {"Content-Type": {"application/json"}, "Mcp-Method": {"tools/call"}},
		"credentials": {"Authorization": {"Bearer x"}, "Cookie": {"a=b"}, "X-Api-Key": {"k"}, "Accept": {"*/*"}},
		"only creds":  {"Authorization": {"Bearer x"}},
		"many values": {"Accept": {"a", "b", "c"}},
		"empty list":  {"X-Empty": {}, "X-Nil": nil},
		"escapes":     {"X-Q": {`say "hi" \ there`}, "X-Html": {"<a href='x'>&</a>"}, "X-Ctl": {"a\tb\nc\x00"}},
		"unicode":     {"X-U": {"héllo wörld", "\u2028\u2029", "日本"}, "X-Bad": {"\xff\xfe"}},
		"odd keys":    {"": {"v"}, "x y": {""}, "Ü": {"1"}},
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(StripCredentials(h))
			if err != nil {
				t.Fatal(err)
			}
			if got := headerJSON(h); got != string(want) {
				t.Errorf("headerJSON = %s\nencoding/json = %s", got, want)
			}
		})
	}
}

func FuzzHeaderJSON(f *testing.F) {
	f.Add("Content-Type", "application/json", "X-Other", "<&>\"\\\u2028")
	f.Add("Authorization", "Bearer x", "Accept", "\xff")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		h := http.Header{k1: {v1, v2}, k2: {v2}}
		want, err := json.Marshal(StripCredentials(h))
		if err != nil {
			t.Fatal(err)
		}
		if got := headerJSON(h); got != string(want) {
			t.Errorf("headerJSON = %q\nencoding/json = %q", got, want)
		}
	})
}

// BenchmarkHeaderJSON is the two headers every stored exchange encodes.
func BenchmarkHeaderJSON(b *testing.B) {
	req := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}, "Mcp-Protocol-Version": {"2026-07-28"},
		"Authorization": {"Bearer x"}, "User-Agent": {"Go-http-client/1.1"}}
	b.ReportAllocs()
	for b.Loop() {
		_ = headerJSON(req)
	}
}
