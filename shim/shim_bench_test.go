package shim

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/mcp-sentinel/sentinel/wire"
)

// BenchmarkShimRoundTrip is one small request and its reply through shim.Run (client side on
// in-process pipes, the echo server a child process), with an Observer receiving every frame.
func BenchmarkShimRoundTrip(b *testing.B) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Run(context.Background(), Options{
			Server: helper(b, "echo"),
			Stdin:  inR, Stdout: outW, Stderr: io.Discard,
			Observer: ObserverFunc(func(wire.Frame) {}),
		})
		_ = outW.Close()
	}()
	r := bufio.NewReader(outR)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`+"\n", i); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
	_ = inW.Close()
	<-done
}
