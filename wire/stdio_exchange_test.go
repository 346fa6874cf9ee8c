package wire

import "testing"

func TestStdioExchangeConversion(t *testing.T) {
	tests := []struct {
		name, convo string
		summary     string
		hasResponse bool
		delivered   bool
	}{
		{"a response with progress before it", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1}}}
			< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}
			< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`,
			"tools/call over stdio → result complete", true, true},
		{"an error", `
			> {"jsonrpc":"2.0","id":1,"method":"nope"}
			< {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`,
			"nope over stdio → error -32601", true, true},
		{"a notification", `> {"jsonrpc":"2.0","method":"notifications/initialized"}`,
			"notifications/initialized over stdio → nothing (a notification)", true, false},
		{"no answer before the server exited", `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			"tools/list over stdio → no response (the server closed its stdout before answering)", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewStdioCorrelator(0, 0)
			var xs []*StdioExchange
			for _, f := range frames(t, tt.convo) {
				done, _ := c.Add(f)
				xs = append(xs, done...)
			}
			xs = append(xs, c.Close()...)
			if len(xs) != 1 {
				t.Fatalf("%d exchanges", len(xs))
			}
			ex := xs[0].Exchange("ex-1", "stdio: srv")
			if !ex.Stdio() || ex.Status() != 0 || ex.Summary() != tt.summary {
				t.Errorf("Stdio=%v Status=%d Summary=%q, want %q", ex.Stdio(), ex.Status(), ex.Summary(), tt.summary)
			}
			if (ex.Response != nil) != tt.hasResponse || ex.Delivered() != tt.delivered {
				t.Errorf("Response=%v Delivered=%v", ex.Response != nil, ex.Delivered())
			}
			if ex.Response != nil {
				_, msgs, _ := ex.Response.Decoded(Limits{})
				if len(msgs) != len(xs[0].Replies) {
					t.Errorf("Decoded gave %d messages for %d lines", len(msgs), len(xs[0].Replies))
				}
			}
		})
	}
}
