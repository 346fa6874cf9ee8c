package passive

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// FuzzRun feeds arbitrary request and response bytes through every check. Properties: no panic
// escapes (a recovered check panic is itself a finding: it names the check), the outcome count
// stays bounded, every outcome is well-formed (known status, a rule ID, evidence on non-passes),
// and the checks see exactly what wire's parser made of the bytes: an exchange graded as built
// and the same exchange after wire's Parse give the same outcomes, so there is no second decoder.
func FuzzRun(f *testing.F) {
	ex := typicalExchange()
	f.Add([]byte(ex.Request.Body), ex.Response.Body, true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"a":{}}}}`), false)
	f.Add([]byte(`{"METHOD":"x"}`), []byte("data: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32002}}\n\n"), true)
	f.Add([]byte("\xff\x00"), []byte("event: endpoint\ndata: /x\n\n"), true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"properties":{"x":{"x-mcp-header":"","$ref":"http://x"}}}}]}}`), false)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"},"result":{"tools":[]}}`), false)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), []byte("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"x\"}}\r\n\r\ndata: {\"id\":1,\"id\":2}\n\n"), true)
	f.Fuzz(func(t *testing.T, req, resp []byte, sse bool) {
		ct := "application/json"
		if sse {
			ct = "text/event-stream"
		}
		ex := &wire.Exchange{ID: "fz",
			Request:  wire.Request{Method: "POST", Header: http.Header{"Mcp-Method": {"tools/list"}}, Body: req},
			Response: &wire.Response{Status: 200, Header: http.Header{"Content-Type": {ct}}, Body: resp},
		}
		parsed := &wire.Exchange{ID: ex.ID, Request: ex.Request,
			Response: &wire.Response{Status: 200, Header: ex.Response.Header, Body: ex.Response.Body}}
		parsed.Parse(wire.Limits{})
		if a, b := outcomeKeys(Run(ex, NewHistory())), outcomeKeys(Run(parsed, NewHistory())); a != b {
			t.Fatalf("the checks saw other messages than wire's parser produced:\nas built:\n%s\nafter Parse:\n%s", a, b)
		}
		h := NewHistory()
		out := Run(ex, h)
		out = append(out, Run(ex, h)...)
		if len(out) > 2*(MaxOutcomes+1) {
			t.Fatalf("%d outcomes for one exchange", len(out))
		}
		for _, o := range out {
			if !o.Status.Valid() || o.RuleID == "" || o.Exchange != "fz" {
				t.Fatalf("malformed outcome %+v", o)
			}
			if o.Status == rules.Indeterminate && bytes.Contains([]byte(o.Why), []byte("panicked")) {
				t.Fatalf("a check panicked: %s", o.Why)
			}
			if o.Status != rules.Pass && o.Observed == "" && o.Why == "" {
				t.Fatalf("%s outcome without evidence: %+v", o.Status, o)
			}
		}
		_ = Deprecations(ex)
	})
}

// outcomeKeys lists outcomes as "status rule observed" lines, in order, for comparing two runs.
func outcomeKeys(out []rules.Outcome) string {
	var b bytes.Buffer
	for _, o := range out {
		fmt.Fprintf(&b, "%s %s %s%s\n", o.Status, o.RuleID, o.Observed, o.Why)
	}
	return b.String()
}
