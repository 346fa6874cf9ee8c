package wire

import (
	"strconv"
	"strings"
	"testing"
)

// frames decodes a conversation written as "> line" (client to server) and "< line" (server to
// client), numbering the frames in order.
func frames(t *testing.T, convo string) []Frame {
	t.Helper()
	var out []Frame
	for i, l := range strings.Split(strings.TrimSpace(convo), "\n") {
		l = strings.TrimSpace(l)
		dir := ToServer
		if strings.HasPrefix(l, "<") {
			dir = ToClient
		}
		body := strings.TrimSpace(l[1:])
		f := DecodeFrame(Line{Bytes: []byte(body), Size: int64(len(body))})
		f.Seq, f.Dir = int64(i+1), dir
		out = append(out, f)
	}
	return out
}

// summary is one exchange as "method:end:seq,seq" for comparison.
func summary(x *StdioExchange) string {
	s := x.Request.Message.Method + ":" + x.End + ":"
	for i, r := range x.Replies {
		if i > 0 {
			s += ","
		}
		s += string(rune('0' + r.Seq%10))
	}
	return s
}

func TestStdioCorrelator(t *testing.T) {
	tests := []struct {
		name   string
		convo  string
		want   []string // exchanges in the order they completed (Close last)
		strays []int64  // seqs of frames that belong to no exchange
	}{
		{"request and response", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":1,"result":{}}`,
			[]string{"tools/list:response:2"}, nil},
		{"progress by token, log while alone in flight, responses out of order", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p1"}}}
			> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}
			< {"jsonrpc":"2.0","id":2,"result":{}}
			< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}
			< {"jsonrpc":"2.0","id":1,"result":{}}`,
			[]string{"tools/list:response:4", "tools/call:response:3,5,6"}, nil},
		{"a notification with two requests in flight belongs to neither", `
			> {"jsonrpc":"2.0","id":1,"method":"a"}
			> {"jsonrpc":"2.0","id":2,"method":"b"}
			< {"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
			[]string{"a:closed:", "b:closed:"}, []int64{3}},
		{"listen notifications by subscription id, ended by the client", `
			> {"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{}}
			< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}
			> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
			< {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}
			< {"jsonrpc":"2.0","id":1,"result":{}}
			> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}`,
			[]string{"tools/list:response:5", "notifications/cancelled:notification:", "subscriptions/listen:cancelled:2,4"}, nil},
		{"the server tears a listen down", `
			> {"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{}}
			< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
			[]string{"subscriptions/listen:torn-down:2"}, nil},
		{"garbage, an unsolicited response and a client response are strays", `
			< hello
			< {"jsonrpc":"2.0","id":9,"result":{}}
			> {"jsonrpc":"2.0","id":3,"result":{}}`,
			nil, []int64{1, 2, 3}},
		{"ids compare as JSON: 1 is not \"1\"", `
			> {"jsonrpc":"2.0","id":1,"method":"a"}
			< {"jsonrpc":"2.0","id":"1","result":{}}
			< {"jsonrpc":"2.0","id": 1 ,"result":{}}`,
			[]string{"a:response:3"}, []int64{2}},
		{"progress for a cancelled request is a stray, not a foreign token on the next", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"slow"}}}
			> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
			> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}
			< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"slow","progress":3}}
			< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"never-sent","progress":1}}
			< {"jsonrpc":"2.0","id":2,"result":{}}`,
			[]string{"notifications/cancelled:notification:", "tools/call:cancelled:", "tools/call:response:5,6"}, []int64{4}},
		{"a token used again by a later request is that request's", `
			> {"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":"t"}}}
			> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
			> {"jsonrpc":"2.0","id":2,"method":"b","params":{"_meta":{"progressToken":"t"}}}
			< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}
			< {"jsonrpc":"2.0","id":2,"result":{}}`,
			[]string{"notifications/cancelled:notification:", "a:cancelled:", "b:response:4,5"}, nil},
		{"a reused id ends the earlier request", `
			> {"jsonrpc":"2.0","id":1,"method":"a"}
			> {"jsonrpc":"2.0","id":1,"method":"b"}
			< {"jsonrpc":"2.0","id":1,"result":{}}`,
			[]string{"a:evicted:", "b:response:3"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewStdioCorrelator(0, 0)
			var got []string
			var strays []int64
			for _, f := range frames(t, tt.convo) {
				done, stray := c.Add(f)
				for _, x := range done {
					got = append(got, summary(x))
				}
				if stray != nil {
					strays = append(strays, stray.Seq)
				}
			}
			for _, x := range c.Close() {
				got = append(got, summary(x))
			}
			// Client notifications other than the cancellation are exchanges too; keep the
			// table about requests.
			var kept []string
			for _, g := range got {
				if !strings.HasPrefix(g, "notifications/") || strings.HasPrefix(g, "notifications/cancelled") {
					kept = append(kept, g)
				}
			}
			if strings.Join(kept, " | ") != strings.Join(tt.want, " | ") {
				t.Errorf("exchanges = %v, want %v", kept, tt.want)
			}
			if len(strays) != len(tt.strays) {
				t.Fatalf("strays = %v, want %v", strays, tt.strays)
			}
			for i := range strays {
				if strays[i] != tt.strays[i] {
					t.Errorf("strays = %v, want %v", strays, tt.strays)
				}
			}
		})
	}
}

// A request the client abandons at its deadline (no cancellation reaches the correlator) retires
// its token the same way: the late progress is a stray, and the next request is judged only on
// what is its own.
func TestStdioCorrelatorAbandonRetiresTheToken(t *testing.T) {
	fs := frames(t, `
		> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"slow"}}}
		> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}
		< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"slow","progress":2}}
		< {"jsonrpc":"2.0","id":2,"result":{}}`)
	c := NewStdioCorrelator(0, 0)
	c.Add(fs[0])
	if x := c.Abandon(fs[0].Message.ID); x == nil || x.End != EndAbandoned {
		t.Fatalf("Abandon = %+v, want the open exchange, abandoned", x)
	}
	c.Add(fs[1])
	if _, stray := c.Add(fs[2]); stray == nil {
		t.Fatal("late progress of the abandoned request was attributed to the next one")
	}
	done, _ := c.Add(fs[3])
	if len(done) != 1 || summary(done[0]) != "tools/call:response:4" {
		t.Fatalf("next request = %v, want only its response", done)
	}
	for i := range maxRetiredTokens + 1 {
		c.retire(&StdioExchange{Request: frames(t, `> {"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":`+strconv.Itoa(i)+`}}}`)[0]})
	}
	if len(c.retired) != maxRetiredTokens || len(c.retiredOrder) != maxRetiredTokens {
		t.Errorf("retired tokens = %d/%d, want the cap %d", len(c.retired), len(c.retiredOrder), maxRetiredTokens)
	}
}

func TestStdioCorrelatorBounds(t *testing.T) {
	c := NewStdioCorrelator(2, 2)
	var ended []string
	for _, f := range frames(t, `
		> {"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":1}}}
		> {"jsonrpc":"2.0","id":2,"method":"b"}
		> {"jsonrpc":"2.0","id":3,"method":"c"}
		< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`) {
		done, _ := c.Add(f)
		for _, x := range done {
			ended = append(ended, summary(x))
		}
	}
	if len(ended) != 1 || ended[0] != "a:evicted:" || c.InFlight() != 2 {
		t.Fatalf("ended %v with %d in flight; want a evicted and 2 left", ended, c.InFlight())
	}
	c2 := NewStdioCorrelator(0, 2)
	for _, f := range frames(t, `
		> {"jsonrpc":"2.0","id":"s","method":"subscriptions/listen"}
		< {"jsonrpc":"2.0","method":"n","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}
		< {"jsonrpc":"2.0","method":"n","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}
		< {"jsonrpc":"2.0","method":"n","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}`) {
		c2.Add(f)
	}
	x := c2.Close()
	if len(x) != 1 || len(x[0].Replies) != 2 || x[0].Truncated != 1 {
		t.Fatalf("listen kept %d replies, truncated %d; want 2 and 1", len(x[0].Replies), x[0].Truncated)
	}
}

// FuzzStdioCorrelator feeds arbitrary stdio traffic (lines prefixed > or <) through the framing,
// the decoder and the correlator: every client request ends in exactly one exchange, no exchange
// keeps more replies than the cap, and every server frame is either kept by one exchange,
// counted as truncated, or returned as a stray.
func FuzzStdioCorrelator(f *testing.F) {
	f.Add("> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"params\":{\"_meta\":{\"progressToken\":1}}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")
	f.Add("> {\"jsonrpc\":\"2.0\",\"id\":\"L\",\"method\":\"subscriptions/listen\"}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"L\"}}\n< junk")
	f.Fuzz(func(t *testing.T, convo string) {
		c := NewStdioCorrelator(3, 2)
		requests, serverFrames, accounted := 0, 0, 0
		ended := map[int64]int{}
		count := func(xs []*StdioExchange) {
			for _, x := range xs {
				ended[x.Request.Seq]++
				if len(x.Replies) > 2 {
					t.Fatalf("exchange kept %d replies, cap 2", len(x.Replies))
				}
				accounted += len(x.Replies) + x.Truncated
			}
		}
		lines := strings.Split(convo, "\n")
		if len(lines) > 200 {
			lines = lines[:200]
		}
		for i, l := range lines {
			if len(l) < 1 || (l[0] != '>' && l[0] != '<') {
				continue
			}
			fr := DecodeFrame(Line{Bytes: []byte(l[1:]), Size: int64(len(l) - 1)})
			fr.Seq, fr.Dir = int64(i+1), ToServer
			if l[0] == '<' {
				fr.Dir = ToClient
				serverFrames++
			} else if fr.Message != nil && fr.Message.IsRequest() {
				requests++
			}
			done, stray := c.Add(fr)
			count(done)
			if stray != nil && stray.Dir == ToClient {
				accounted++
			}
		}
		count(c.Close())
		reqEnded := 0
		for seq, n := range ended {
			if n != 1 {
				t.Fatalf("request %d ended %d times", seq, n)
			}
			reqEnded++
		}
		// Notifications end too (one exchange each): at least every request ended.
		if reqEnded < requests {
			t.Fatalf("%d requests, %d ended", requests, reqEnded)
		}
		if accounted != serverFrames {
			t.Fatalf("%d server frames, %d accounted for", serverFrames, accounted)
		}
	})
}

// TestStdioCorrelatorByteCap: replies past the byte cap are counted, not kept, the response is
// always kept, and what the open exchanges hold returns to zero once they end.
func TestStdioCorrelatorByteCap(t *testing.T) {
	c := NewStdioCorrelator(0, 0)
	c.SetMaxBytes(150)
	for _, f := range frames(t, `
		> {"jsonrpc":"2.0","id":1,"method":"a"}
		< {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}
		< {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}`) {
		c.Add(f)
	}
	if c.HeldBytes() > 150 {
		t.Fatalf("held %d bytes, cap 150", c.HeldBytes())
	}
	done, _ := c.Add(frames(t, `< {"jsonrpc":"2.0","id":1,"result":{}}`)[0])
	if len(done) != 1 || done[0].Truncated != 1 || len(done[0].Replies) != 2 || c.HeldBytes() != 0 {
		t.Fatalf("done %+v, held %d; want one truncated reply, the response kept, nothing held", done, c.HeldBytes())
	}
}
