package wire

import (
	"bytes"
	"strings"
	"testing"
)

func BenchmarkParseSSELargeStream(b *testing.B) {
	ev := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1,\"total\":10,\"message\":\"" + strings.Repeat("p", 200) + "\"}}\n\n"
	body := []byte(strings.Repeat(ev, 1000))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		evs, _, err := ParseSSE(bytes.NewReader(body), Limits{MaxSSEEvents: 2000})
		if err != nil || len(evs) != 1000 {
			b.Fatalf("%d events, %v", len(evs), err)
		}
	}
}

func BenchmarkDecodeMessage(b *testing.B) {
	raw := []byte(`{"jsonrpc":"2.0","id":42,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}`)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeMessage(raw); err != nil {
			b.Fatal(err)
		}
	}
}
