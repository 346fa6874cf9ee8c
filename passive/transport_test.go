package passive

import (
	"encoding/json"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// TestRunOverStdio grades a stdio exchange (no status, no headers): the HTTP-only rules Run
// would fail for the missing headers and Content-Type are gone, the protocol-level verdicts stay.
func TestRunOverStdio(t *testing.T) {
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	resp := []byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"no"}}`)
	reqMsg, err := wire.DecodeMessage(req)
	if err != nil {
		t.Fatal(err)
	}
	respMsg, err := wire.DecodeMessage(resp)
	if err != nil {
		t.Fatal(err)
	}
	ex := &wire.Exchange{ID: "ex", Request: wire.Request{Body: json.RawMessage(req), Message: reqMsg},
		Response: &wire.Response{Body: resp, Messages: []*wire.Message{respMsg}}}

	httpFails, anyFails := 0, 0
	for _, o := range Run(ex, NewHistory()) {
		r, _ := rules.ByID(o.RuleID)
		if o.Status == rules.Fail && r.Transport == rules.TransportHTTP {
			httpFails++
		}
	}
	if httpFails == 0 {
		t.Fatal("Run failed no HTTP-only rule on a header-less exchange: the test proves nothing")
	}
	for _, o := range RunOver(rules.TransportStdio, ex, NewHistory()) {
		r, _ := rules.ByID(o.RuleID)
		if ok, _ := r.AppliesOver(rules.TransportStdio); !ok {
			t.Errorf("RunOver(stdio) kept %s (%s)", r.Name, o.Status)
		}
		if o.Status == rules.Fail {
			anyFails++
		}
	}
	if anyFails == 0 {
		t.Error("RunOver(stdio) dropped the protocol-level failures too (error-id-echo, legacy-range-codes)")
	}
}
