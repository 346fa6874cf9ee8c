package active

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

func TestMinimalArgumentsFillsOnlyRequiredProperties(t *testing.T) {
	def := json.RawMessage(`{"name":"t","inputSchema":{"type":"object","required":["s","n","b","e","d","u"],
		"properties":{"s":{"type":"string"},"n":{"type":"integer"},"b":{"type":"boolean"},"e":{"type":"string","enum":["x","y"]},
		"d":{"type":"string","default":"dv"},"opt":{"type":"string"}}}}`)
	got := MinimalArguments(def)
	want := map[string]any{"s": "sentinel", "n": 1, "b": false, "e": "x", "d": "dv", "u": "sentinel"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MinimalArguments = %v, want %v", got, want)
	}
	if got := MinimalArguments(json.RawMessage(`not json`)); len(got) != 0 {
		t.Errorf("bad definition gave %v", got)
	}
}

func TestParseToolReadsAnnotationsAndHeaderParams(t *testing.T) {
	tl, ok := parseTool(json.RawMessage(`{"name":"w","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`))
	if !ok || !tl.ReadOnly || tl.HeaderParams["Region"] != "region" {
		t.Errorf("parseTool = %+v, %v", tl, ok)
	}
	if _, ok := parseTool(json.RawMessage(`{"name":""}`)); ok {
		t.Error("a nameless tool was accepted")
	}
}

func TestExtensionIDProblem(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"io.modelcontextprotocol/tasks", true},
		{"com.example/my-ext.v2", true},
		{"x/y", true},
		{"tasks", false},
		{"1bad/x", false},
		{"com.example-/x", false},
		{"com.example/-x", false},
		{"a/b/c", false},
		{"/x", false},
	}
	for _, tc := range tests {
		if got := ExtensionIDProblem(tc.id); (got == "") != tc.ok {
			t.Errorf("ExtensionIDProblem(%q) = %q, want ok=%v", tc.id, got, tc.ok)
		}
	}
}

func TestFeatureSaysAbsentUnusableOrUsable(t *testing.T) {
	caps := map[string]json.RawMessage{"tools": json.RawMessage(`{}`), "resources": json.RawMessage(`{"subscribe":true}`)}
	tests := []struct {
		name            string
		tg              *Target
		f               rules.Feature
		present, usable bool
	}{
		{"declared capability", &Target{Capabilities: caps}, rules.FeatureTools, true, true},
		{"undeclared capability", &Target{Capabilities: caps}, rules.FeaturePrompts, false, false},
		{"dotted capability", &Target{Capabilities: caps}, rules.FeatureSubscribe, true, true},
		{"tools but none callable", &Target{Capabilities: caps}, rules.FeatureCallableTool, true, false},
		{"a callable tool", &Target{Capabilities: caps, Callable: []string{"x"}}, rules.FeatureCallableTool, true, true},
		{"no pagination seen", &Target{}, rules.FeaturePagination, false, false},
		{"pagination seen", &Target{Paginated: true}, rules.FeaturePagination, true, true},
		{"file resource", &Target{Resources: []string{"FILE:///etc/x"}}, rules.FeatureFileResources, true, true},
		{"no file resource", &Target{Resources: []string{"test://a"}}, rules.FeatureFileResources, false, false},
		{"legacy served", &Target{legacyVer: "2025-11-25"}, rules.FeatureLegacyClients, true, true},
		{"second principal", &Target{}, rules.FeatureTwoPrincipals, true, false},
	}
	for _, tc := range tests {
		p, u, why := tc.tg.Feature(tc.f)
		if p != tc.present || u != tc.usable {
			t.Errorf("%s: present %v usable %v (%s), want %v %v", tc.name, p, u, why, tc.present, tc.usable)
		}
		if (!p || !u) && why == "" {
			t.Errorf("%s: no reason given", tc.name)
		}
	}
}

// askingServer is a 2026-07-28 server whose one read-only tool asks the client the 2025 way: its
// tools/call stream carries a sampling/createMessage request and then stays open, waiting for an
// answer the scan never sends, until release is closed.
func askingServer(t *testing.T) (url string, release chan struct{}) {
	release = make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		result := func(res string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, res)
		}
		switch req.Method {
		case "server/discover":
			result(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`)
		case "tools/list":
			result(`{"resultType":"complete","tools":[{"name":"ask","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}],"ttlMs":0,"cacheScope":"public"}`)
		case "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":1}}\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, req.ID)
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL, release
}

// TestDiscoveryStopsReadingWhenAToolAsksTheOldWay: looking for a tool that answers input_required,
// discovery reads a tools/call stream only until the server sends a request of its own, instead
// of holding every probe back until the server gives up on an answer. The exchange says it was
// cut by that (not by the read deadline), and still carries the request for the rules that judge it.
func TestDiscoveryStopsReadingWhenAToolAsksTheOldWay(t *testing.T) {
	url, _ := askingServer(t)
	// One active-only rule, so no probe calls the tool; the read deadline is long, so a
	// discovery that waited for the stream to end would be cut by it instead.
	out := scan(t, url, Options{Rules: []string{"origin-invalid-403"}, Limits: wire.Limits{ReadTimeout: time.Minute}})
	var found *wire.Exchange
	for _, ex := range out.Exchanges {
		if strings.Contains(ex.Summary(), "tools/call") {
			found = ex
			break // discovery's: it ends before any probe starts
		}
	}
	if found == nil || found.Response == nil {
		t.Fatalf("discovery sent no tools/call: %d exchanges", len(out.Exchanges))
	}
	if !found.Response.Truncated || found.Response.TruncatedBy != wire.TruncatedUntil {
		t.Errorf("the tools/call stream was cut by %q (truncated %v), want %q", found.Response.TruncatedBy, found.Response.Truncated, wire.TruncatedUntil)
	}
	if len(found.Response.Messages) != 1 || !found.Response.Messages[0].IsRequest() {
		t.Errorf("the exchange keeps %d messages, want the server's request", len(found.Response.Messages))
	}
	if out.Target.MRTRTool != "" {
		t.Errorf("a tool that asks the 2025 way was taken for an input_required tool: %q", out.Target.MRTRTool)
	}
}
