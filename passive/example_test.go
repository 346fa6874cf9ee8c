package passive_test

import (
	"fmt"
	"net/http"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Example grades one captured exchange: a tools/list whose result lacks its caching hints and
// whose reply mints a session id, which 2026-07-28 removed.
func Example() {
	ex := &wire.Exchange{
		ID: "ex-1",
		Request: wire.Request{Method: "POST", Header: http.Header{
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"},
		}, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)},
		Response: &wire.Response{Status: 200, Header: http.Header{
			"Content-Type": {"application/json"}, "Mcp-Session-Id": {"abc"},
		}, Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],` +
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1"}}}}`)},
	}
	for _, o := range passive.Run(ex, passive.NewHistory()) {
		if o.Status == "fail" {
			fmt.Println(o.RuleID)
		}
	}
	// Output:
	// MCP/2026-07-28/MUST/cache-hints-present
	// MCP/2026-07-28/SHOULD/ignore-session-id
	// MCP/2026-07-28/MUST/explicit-state-ids
}
