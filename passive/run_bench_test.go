package passive

import "testing"

// BenchmarkRun measures every passive check over one typical exchange (a tools/call answered on
// an SSE stream with two progress notifications): the per-exchange cost the proxy pays.
func BenchmarkRun(b *testing.B) {
	ex := typicalExchange()
	h := NewHistory()
	b.ReportAllocs()
	for b.Loop() {
		Run(ex, h)
	}
}

// BenchmarkRunToolsList measures a tools/list page, which adds schema compilation and history.
func BenchmarkRunToolsList(b *testing.B) {
	ex := typicalExchange()
	ex.Request.Body = []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	ex.Request.Header.Set("Mcp-Method", "tools/list")
	ex.Response.Header.Set("Content-Type", "application/json")
	ex.Response.Body = []byte(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","ttlMs":60000,"cacheScope":"public","tools":[` +
		`{"name":"echo","description":"Echo text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},` +
		`{"name":"add","description":"Add two integers.","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}}],` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}`)
	h := NewHistory()
	b.ReportAllocs()
	for b.Loop() {
		Run(ex, h)
	}
}
