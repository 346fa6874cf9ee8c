package passive

import (
	"sort"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// stdioConvo frames a conversation written as "> line" (client→server) and "< line"
// (server→client); "<!" marks a line over the limit.
func stdioConvo(t *testing.T, convo string) []wire.Frame {
	t.Helper()
	var out []wire.Frame
	for i, l := range strings.Split(strings.TrimSpace(convo), "\n") {
		l = strings.TrimSpace(l)
		dir := wire.ToServer
		if strings.HasPrefix(l, "<") {
			dir = wire.ToClient
		}
		body := strings.TrimSpace(strings.TrimLeft(l, "<>!"))
		line := wire.Line{Bytes: []byte(body), Size: int64(len(body))}
		if strings.HasPrefix(l, "<!") {
			line.Size, line.TooLong = 100<<20, true
		}
		f := wire.DecodeFrame(line)
		f.Seq, f.Dir = int64(i+1), dir
		out = append(out, f)
	}
	return out
}

// verdicts runs the stdio checks over a conversation and returns "rule=status" per outcome, with
// the rule's name, sorted.
func verdicts(t *testing.T, convo string) []string {
	t.Helper()
	h := NewStdioHistory()
	var got []string
	for _, f := range stdioConvo(t, convo) {
		for _, o := range RunStdio(f, h) {
			name := o.RuleID[strings.LastIndexByte(o.RuleID, '/')+1:]
			got = append(got, name+"="+string(o.Status))
			if o.Exchange == "" || (o.Status == rules.Fail && o.Observed == "") {
				t.Errorf("outcome %+v has no evidence", o)
			}
		}
	}
	sort.Strings(got)
	return got
}

func TestRunStdio(t *testing.T) {
	tests := []struct {
		name  string
		convo string
		want  []string
	}{
		{"a clean conversation passes the framing rules once", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":1,"result":{}}
			> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":2,"result":{}}`,
			[]string{"stdio-newline-delimited=pass", "stdio-no-server-requests=pass", "stdio-stdout-messages-only=pass"}},
		{"a banner and a blank line fail stdout-messages-only", `
			< Server running on stdio
			<
			< [{"jsonrpc":"2.0","method":"a"}]`,
			[]string{"stdio-stdout-messages-only=fail", "stdio-stdout-messages-only=fail", "stdio-stdout-messages-only=fail"}},
		{"pretty-printed JSON fails newline-delimited only", `
			< {
			< "jsonrpc": "2.0",
			< }`,
			[]string{"stdio-newline-delimited=fail", "stdio-newline-delimited=fail", "stdio-newline-delimited=fail"}},
		{"invalid UTF-8 is utf8-messages", "< {\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
			[]string{"utf8-messages=fail"}},
		{"an over-long line is indeterminate, not a failure", `<! {"jsonrpc"`,
			[]string{"stdio-stdout-messages-only=indeterminate"}},
		{"a server request fails no-server-requests", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/call"}
			< {"jsonrpc":"2.0","id":"s1","method":"roots/list"}`,
			[]string{"stdio-newline-delimited=pass", "stdio-no-server-requests=fail", "stdio-stdout-messages-only=pass"}},
		{"a result for an id nobody sent fails result-id-echo; an id-less error does not", `
			< {"jsonrpc":"2.0","id":99,"result":{}}
			< {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
			[]string{"result-id-echo=fail", "stdio-newline-delimited=pass", "stdio-no-server-requests=pass", "stdio-stdout-messages-only=pass"}},
		{"a reply racing the cancellation is allowed, and two later answers in turn prove it was read", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"t"}}}
			> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
			< {"jsonrpc":"2.0","id":1,"result":{}}
			> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":2,"result":{}}
			> {"jsonrpc":"2.0","id":3,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":3,"result":{}}`,
			[]string{"stdio-newline-delimited=pass", "stdio-no-server-requests=pass", "stdio-nothing-after-cancel=pass", "stdio-stdout-messages-only=pass"}},
		{"a concurrent server's queued response after one later answer is still a race", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/call"}
			> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
			> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":2,"result":{}}
			< {"jsonrpc":"2.0","id":1,"result":{}}
			> {"jsonrpc":"2.0","id":3,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":3,"result":{}}`,
			[]string{"stdio-newline-delimited=pass", "stdio-no-server-requests=pass", "stdio-nothing-after-cancel=pass", "stdio-stdout-messages-only=pass"}},
		{"two answers sent together prove nothing: the second was not sent after the first", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"t"}}}
			> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
			> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			> {"jsonrpc":"2.0","id":3,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":2,"result":{}}
			< {"jsonrpc":"2.0","id":3,"result":{}}
			< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2}}`,
			[]string{"stdio-newline-delimited=pass", "stdio-no-server-requests=pass", "stdio-stdout-messages-only=pass"}},
		{"progress for a cancelled request a round trip after the server read the cancellation fails", `
			> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"t"}}}
			> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
			> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":2,"result":{}}
			> {"jsonrpc":"2.0","id":3,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":3,"result":{}}
			< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2}}`,
			[]string{"stdio-newline-delimited=pass", "stdio-no-server-requests=pass", "stdio-nothing-after-cancel=fail", "stdio-nothing-after-cancel=pass", "stdio-stdout-messages-only=pass"}},
		{"a cancellation of nothing in flight holds the server to nothing", `
			> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}
			> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			< {"jsonrpc":"2.0","id":2,"result":{}}`,
			[]string{"stdio-newline-delimited=pass", "stdio-no-server-requests=pass", "stdio-stdout-messages-only=pass"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := verdicts(t, tt.convo)
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("outcomes:\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestRunStdioBoundsFailures: a server that floods stdout with garbage yields a bounded report.
func TestRunStdioBoundsFailures(t *testing.T) {
	h := NewStdioHistory()
	n := 0
	for i := range 1000 {
		f := wire.DecodeFrame(wire.Line{Bytes: []byte("log line"), Size: 8})
		f.Seq, f.Dir = int64(i+1), wire.ToClient
		n += len(RunStdio(f, h))
	}
	if n != maxStdioFailsPerRule {
		t.Errorf("1000 garbage lines gave %d outcomes, want %d", n, maxStdioFailsPerRule)
	}
}

func TestStdioRuleIDsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, id := range StdioRuleIDs() {
		if seen[id] {
			t.Errorf("%s listed twice", id)
		}
		seen[id] = true
	}
}

// FuzzRunStdio frames arbitrary bytes as the server's stdout with the real framer and decoder and
// runs the stdio checks: no panic, only the rules RunStdio declares, bounded outcomes.
func FuzzRunStdio(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nbanner\n{\n[]\n"), []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n"))
	f.Fuzz(func(t *testing.T, server, client []byte) {
		allowed := map[string]bool{}
		for _, id := range StdioRuleIDs() {
			allowed[id] = true
		}
		h := NewStdioHistory()
		seq := int64(0)
		total := 0
		feed := func(b []byte, dir wire.Direction) {
			for _, l := range wire.NewLineFramer(256).Write(b) {
				seq++
				fr := wire.DecodeFrame(l)
				fr.Seq, fr.Dir = seq, dir
				for _, o := range RunStdio(fr, h) {
					if !allowed[o.RuleID] {
						t.Fatalf("outcome for undeclared rule %s", o.RuleID)
					}
					total++
				}
			}
		}
		feed(client, wire.ToServer)
		feed(server, wire.ToClient)
		if total > len(stdioRules)*(maxStdioFailsPerRule+1)+int(seq) {
			t.Fatalf("%d outcomes for %d lines", total, seq)
		}
	})
}
