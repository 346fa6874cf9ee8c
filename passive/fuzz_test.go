package passive

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// FuzzRun feeds arbitrary request and response bytes through every check. Properties: no panic
// escapes (a recovered check panic is itself a finding: it names the check), the outcome count
// stays bounded, and every outcome is well-formed (known status, a rule ID, evidence on
// non-passes).
func FuzzRun(f *testing.F) {
	ex := typicalExchange()
	f.Add([]byte(ex.Request.Body), ex.Response.Body, true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"a":{}}}}`), false)
	f.Add([]byte(`{"METHOD":"x"}`), []byte("data: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32002}}\n\n"), true)
	f.Add([]byte("\xff\x00"), []byte("event: endpoint\ndata: /x\n\n"), true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"properties":{"x":{"x-mcp-header":"","$ref":"http://x"}}}}]}}`), false)
	f.Fuzz(func(t *testing.T, req, resp []byte, sse bool) {
		ct := "application/json"
		if sse {
			ct = "text/event-stream"
		}
		ex := &wire.Exchange{ID: "fz",
			Request:  wire.Request{Method: "POST", Header: http.Header{"Mcp-Method": {"tools/list"}}, Body: req},
			Response: &wire.Response{Status: 200, Header: http.Header{"Content-Type": {ct}}, Body: resp},
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
