package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// BenchmarkStdioFrameAndDecode frames and decodes a stream of typical stdio messages, the work the
// shim and the prober do for every line.
func BenchmarkStdioFrameAndDecode(b *testing.B) {
	line := `{"jsonrpc":"2.0","id":42,"result":{"resultType":"complete","content":[{"type":"text","text":"` + strings.Repeat("t", 200) + `"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}` + "\n"
	stream := []byte(strings.Repeat(line, 1000))
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		lr := NewLineReader(bytes.NewReader(stream), 0)
		n := 0
		for {
			l, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if f := DecodeFrame(l); f.Problem != ProblemNone {
				b.Fatal(f.Detail)
			}
			n++
		}
		if n != 1000 {
			b.Fatalf("%d lines", n)
		}
	}
}
