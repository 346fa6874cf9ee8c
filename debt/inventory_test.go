package debt

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// today is fixed so every month count in the goldens is reproducible.
var today = time.Date(2026, time.November, 29, 12, 0, 0, 0, time.UTC)

func exchange(id, httpMethod, reqBody string, status int, respHeader http.Header, respBody string) *wire.Exchange {
	if respHeader == nil {
		respHeader = http.Header{}
	}
	if respHeader.Get("Content-Type") == "" && respBody != "" {
		respHeader.Set("Content-Type", "application/json")
	}
	return &wire.Exchange{ID: id, Target: "http://127.0.0.1:8080/mcp",
		Request:  wire.Request{Method: httpMethod, URL: "http://127.0.0.1:8080/mcp", Header: http.Header{}, Body: []byte(reqBody)},
		Response: &wire.Response{Status: status, Header: respHeader, Body: []byte(respBody)}}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// legacyServer is what a 2025-06-18 server shows: the handshake, a session id and a GET stream.
func legacyServer() []*wire.Exchange {
	return []*wire.Exchange{
		exchange("ex-1", "POST", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`,
			400, nil, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Bad Request: Server not initialized"}}`),
		exchange("ex-2", "POST", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sentinel","version":"1"}}}`,
			200, http.Header{"Mcp-Session-Id": {"3f2a"}}, `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{}},"serverInfo":{"name":"old","version":"0.9"}}}`),
		exchange("ex-3", "GET", ``, 200, http.Header{"Content-Type": {"text/event-stream"}}, ": keep-alive\n\n"),
	}
}

// modernServer uses one deprecated feature: logging, declared in discover.
func modernServer() []*wire.Exchange {
	return []*wire.Exchange{
		exchange("ex-1", "POST", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`,
			200, nil, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"logging":{}},"ttlMs":0,"cacheScope":"public"}}`),
		exchange("ex-2", "GET", ``, 405, nil, ``),
	}
}

func TestInventory(t *testing.T) {
	tests := []struct {
		name       string
		exchanges  []*wire.Exchange
		legacy     bool
		wantKeys   []string // server-side item keys, in order
		wantNoKeys []string
	}{
		{"legacy-only server lists every removal it relies on", legacyServer(), true,
			[]string{"get-stream", "initialize", "logging-set-level", "ping", "resources-subscribe", "resumability", "roots-list-changed", "server-requests", "sessions", "logging"}, nil},
		{"modern server with logging lists only logging", modernServer(), false, []string{"logging"}, []string{"initialize", "sessions"}},
		{"nothing seen lists nothing", nil, false, nil, []string{"logging"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := Inventory(tt.exchanges, today)
			if inv.LegacyOnly != tt.legacy {
				t.Errorf("LegacyOnly = %v, want %v", inv.LegacyOnly, tt.legacy)
			}
			var keys []string
			for _, it := range inv.Items {
				if it.Side == passive.SideServer {
					keys = append(keys, it.Key)
				}
				if len(it.Evidence) == 0 || it.Due == "" || it.SpecURL == "" {
					t.Errorf("item %s is incomplete: %+v", it.Key, it)
				}
			}
			if strings.Join(keys, ",") != strings.Join(tt.wantKeys, ",") {
				t.Errorf("server items = %v, want %v", keys, tt.wantKeys)
			}
			for _, k := range tt.wantNoKeys {
				for _, it := range inv.Items {
					if it.Key == k {
						t.Errorf("unexpected item %s", k)
					}
				}
			}
		})
	}
}

// TestDueDates pins the date arithmetic with fixed dates on both sides of each boundary.
func TestDueDates(t *testing.T) {
	logging := func(now time.Time) Item {
		for _, it := range Inventory(modernServer(), now).Items {
			if it.Key == "logging" {
				return it
			}
		}
		t.Fatal("no logging item")
		return Item{}
	}
	tests := []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), "removable on or after 2027-07-28 (7 months from now)"},
		{time.Date(2027, 6, 28, 0, 0, 0, 0, time.UTC), "removable on or after 2027-07-28 (1 month from now)"},
		{time.Date(2027, 7, 1, 0, 0, 0, 0, time.UTC), "removable on or after 2027-07-28 (less than a month away)"},
		{time.Date(2027, 9, 30, 0, 0, 0, 0, time.UTC), "removable since 2027-07-28 (2 months ago)"},
	}
	for _, tt := range tests {
		if got := logging(tt.now).Due; got != tt.want {
			t.Errorf("on %s: %q, want %q", tt.now.Format(time.DateOnly), got, tt.want)
		}
	}
	for _, it := range Inventory(legacyServer(), today).Items {
		if it.Key == "initialize" && it.Due != "removed in revision 2026-07-28 (4 months ago)" {
			t.Errorf("initialize: %q", it.Due)
		}
	}
}

// TestInventoryRulesExist proves every rule an item cites is in the registry.
func TestInventoryRulesExist(t *testing.T) {
	for _, it := range Inventory(legacyServer(), today).Items {
		for _, id := range it.Rules {
			if _, ok := rules.ByID(id); !ok {
				t.Errorf("item %s cites unknown rule %s", it.Key, id)
			}
		}
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		ex   []*wire.Exchange
		f    Format
	}{
		{"legacy.txt", legacyServer(), FormatText},
		{"legacy.json", legacyServer(), FormatJSON},
		{"modern.txt", modernServer(), FormatText},
		{"empty.txt", nil, FormatText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, Inventory(tc.ex, today), tc.f); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.name)
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from the golden:\n%s", tc.name, b.String())
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestRenderErrors proves write failures and unknown formats are reported, not swallowed.
func TestRenderErrors(t *testing.T) {
	inv := Inventory(legacyServer(), today)
	for _, f := range []Format{FormatText, FormatJSON} {
		if err := Render(failWriter{}, inv, f); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: err = %v, want the write error", f, err)
		}
	}
	if err := Render(&bytes.Buffer{}, inv, "yaml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// TestServerOnly proves the scanner's own legacy probes are not listed as anyone's debt, and
// that a discover answer without 2026-07-28 does not make a server modern.
func TestServerOnly(t *testing.T) {
	exs := legacyServer()
	exs = append(exs, exchange("ex-4", "POST", `{"jsonrpc":"2.0","id":4,"method":"ping","params":{}}`, 404, nil,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}`))
	exs[0] = exchange("ex-1", "POST", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`,
		200, nil, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2025-11-25"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}`)
	full := Inventory(exs, today)
	if !full.LegacyOnly {
		t.Error("a server whose discover does not offer 2026-07-28 was taken for a modern one")
	}
	clientItems := 0
	for _, it := range full.Items {
		if it.Side == passive.SideClient {
			clientItems++
		}
	}
	if clientItems == 0 {
		t.Fatal("the fixture should show client-side debt")
	}
	for _, it := range full.ServerOnly().Items {
		if it.Side != passive.SideServer {
			t.Errorf("ServerOnly kept %s/%s", it.Side, it.Key)
		}
	}
	if len(full.ServerOnly().Items) != len(full.Items)-clientItems {
		t.Error("ServerOnly dropped server items")
	}
}

// TestEveryFeatureKnown proves each sighting passive can report maps to a registry entry, so no
// evidence is silently dropped from the inventory.
func TestEveryFeatureKnown(t *testing.T) {
	exs := append(legacyServer(), modernServer()...)
	exs = append(exs,
		exchange("as", "GET", ``, 200, nil, `{"issuer":"https://as.example","registration_endpoint":"https://as.example/register"}`),
		exchange("sse", "GET", ``, 200, http.Header{"Content-Type": {"text/event-stream"}}, "event: endpoint\ndata: /messages?s=1\n\nid: 7\ndata: {}\n\n"),
		exchange("ping", "POST", `{"jsonrpc":"2.0","id":9,"method":"ping"}`, 200, nil, `{"jsonrpc":"2.0","id":9,"result":{}}`),
		exchange("code", "POST", `{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"x://y"}}`, 200, nil, `{"jsonrpc":"2.0","id":10,"error":{"code":-32002,"message":"not found"}}`),
	)
	exs[len(exs)-4].Request.URL = "https://as.example/.well-known/oauth-authorization-server"
	features := registry()
	keys := map[string]bool{}
	for _, ex := range exs {
		for _, s := range passive.Deprecations(ex) {
			keys[s.Feature] = true
			if _, ok := features[s.Feature]; !ok {
				t.Errorf("sighting %+v names no registry entry", s)
			}
		}
	}
	for _, want := range []string{"dynamic-client-registration", "http-sse", "resumability", "ping", "retired-error-codes", "initialize", "sessions", "logging"} {
		if !keys[want] {
			t.Errorf("no sighting for %s (got %v)", want, keys)
		}
	}
}

// TestNoImpliedRowTheEvidenceContradicts: a legacy-only server gets the handshake era's removals
// implied, except what the scan saw it does not have: GET answered 405 (no GET stream, nothing to
// resume), removed methods answered -32601, an initialize answer without Mcp-Session-Id (no
// sessions). And roots and sampling requests count wherever they come, a GET stream included.
func TestNoImpliedRowTheEvidenceContradicts(t *testing.T) {
	exs := []*wire.Exchange{
		exchange("ex-1", "POST", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`,
			400, nil, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Bad Request"}}`),
		exchange("ex-2", "POST", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
			200, nil, `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{"tasks":{}}}}`),
		exchange("ex-3", "GET", ``, 405, nil, ``),
		exchange("ex-4", "POST", `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"x://y"}}`,
			200, nil, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}`),
		exchange("ex-5", "POST", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}`,
			200, http.Header{"Content-Type": {"text/event-stream"}}, "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\",\"params\":{}}\n\n"+
				"data: {\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"roots/list\"}\n\n"+
				"data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[]}}\n\n"),
	}
	exs[1].Response.Header.Del("Mcp-Session-Id")
	inv := Inventory(exs, today).ServerOnly()
	if !inv.LegacyOnly {
		t.Fatal("want a legacy-only inventory")
	}
	keys := map[string]bool{}
	for _, it := range inv.Items {
		keys[it.Key] = true
	}
	for _, k := range []string{"get-stream", "resumability", "resources-subscribe", "sessions"} {
		if keys[k] {
			t.Errorf("%s is listed, though the evidence says the server does not have it", k)
		}
	}
	for _, k := range []string{"initialize", "roots", "sampling", "core-tasks"} {
		if !keys[k] {
			t.Errorf("%s is missing from the inventory", k)
		}
	}
	if got := inv.Total(); !strings.HasPrefix(got, fmt.Sprintf("%d feature(s) in use", len(inv.Items))) {
		t.Errorf("total line %q", got)
	}
}

// TestStdioLegacyServerImpliesNoHTTPRemovals: a legacy-only server reached over stdio gets the
// initialize-era removals implied, but none of those only HTTP has (the GET stream, resumption,
// Mcp-Session-Id).
func TestStdioLegacyServerImpliesNoHTTPRemovals(t *testing.T) {
	req, _ := wire.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	resp, _ := wire.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":"i","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`))
	ex := &wire.Exchange{ID: "ex-1", Transport: wire.TransportStdio, Request: wire.Request{Body: req.Raw, Message: req},
		Response: &wire.Response{Body: resp.Raw, Messages: []*wire.Message{resp}}}
	inv := Inventory([]*wire.Exchange{ex}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	keys := map[string]bool{}
	for _, it := range inv.Items {
		keys[it.Key] = true
	}
	if !inv.LegacyOnly || !keys["initialize"] {
		t.Fatalf("inventory %+v: want a legacy-only server relying on initialize", keys)
	}
	for _, k := range []string{"get-stream", "resumability", "sessions"} {
		if keys[k] {
			t.Errorf("a stdio server is said to rely on %s", k)
		}
	}
}
