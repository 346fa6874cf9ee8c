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

// TestXMCPHeaderSkipsOnlySchemasWithoutTheKey holds checkXMCPHeader's shortcut (mayHaveKey) to
// the walk it skips: a key spelt with an escape is still found, and a schema that cannot hold
// the key gives no outcome at all.
func TestXMCPHeaderSkipsOnlySchemasWithoutTheKey(t *testing.T) {
	tests := []struct {
		name, schema string
		want         rules.Status // "" for no outcome
	}{
		{"no header", `{"type":"object","properties":{"a":{"type":"string","description":"x-mcp header"}}}`, ""},
		{"valid header", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}`, rules.Pass},
		{"escaped key", `{"type":"object","properties":{"a":{"type":"object","x\u002dmcp-header":"A"}}}`, rules.Fail},
		{"escape elsewhere, no header", `{"type":"object","properties":{"a":{"type":"string","description":"a \"b\""}}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &wire.Exchange{ID: "x",
				Request: wire.Request{Method: "POST", Header: http.Header{}, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)},
				Response: &wire.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}},
					Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"z","inputSchema":` + tt.schema + `}]}}`)}}
			var got rules.Status
			for _, o := range checkXMCPHeader(newView(ex), nil) {
				got = o.Status
			}
			if got != tt.want {
				t.Errorf("status %q, want %q", got, tt.want)
			}
		})
	}
}
