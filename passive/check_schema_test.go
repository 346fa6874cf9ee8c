package passive

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// TestSchemaDialectBounded proves a hostile schema is not compiled: a validator's compile time
// explodes on thousands of nesting levels, and a passive check runs on live traffic.
func TestSchemaDialectBounded(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 2000) + `{}` + strings.Repeat(`}}`, 2000)
	ex := &wire.Exchange{ID: "x",
		Request: wire.Request{Method: "POST", Header: http.Header{}, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)},
		Response: &wire.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"z","inputSchema":` + deep + `}]}}`)}}
	for _, o := range checkSchemaDialect(newView(ex), nil) {
		if o.RuleID == rules.IDOf("schemas-valid-dialect") {
			t.Errorf("a %d-level schema was judged: %+v", 4000, o)
		}
	}
}
