package debt_test

import (
	"net/http"
	"os"
	"time"

	"github.com/mcp-sentinel/sentinel/debt"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Example lists the debt of a server that still declares the deprecated logging capability.
func Example() {
	discover := &wire.Exchange{ID: "ex-1", Target: "http://127.0.0.1:8080/mcp",
		Request: wire.Request{Method: "POST", Header: http.Header{}, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)},
		Response: &wire.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],` +
				`"capabilities":{"logging":{}},"ttlMs":0,"cacheScope":"public"}}`)}}
	inv := debt.Inventory([]*wire.Exchange{discover}, time.Date(2027, time.January, 15, 0, 0, 0, 0, time.UTC))
	_ = debt.Text(os.Stdout, inv)
	// Output:
	// 1 feature(s) in use that 2026-07-28 deprecated (1) or removed (0); most urgent: Logging, removable on or after 2027-07-28 (6 months from now).
	// Deprecation inventory for http://127.0.0.1:8080/mcp as of 2027-01-15 (1 exchange(s) examined)
	//
	// Server debt:
	//
	//   [deprecated] Logging
	//     removable on or after 2027-07-28 (6 months from now)
	//     deprecated since 2026-07-28 by SEP-2577
	//     migrate: Log to stderr (stdio) or export logs with OpenTelemetry.
	//     spec: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
	//     seen (ex-1): the server/discover result declares the logging capability
}
