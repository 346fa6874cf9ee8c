package passive

import (
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// TestEveryPassiveRuleHasACheck proves the registry and the checks agree: every rule whose check
// mode is passive or both has an entry, and every entry cites only rules that exist.
func TestEveryPassiveRuleHasACheck(t *testing.T) {
	all := rules.All()
	if len(all) == 0 {
		t.Fatal("the rule registry is empty")
	}
	covered := map[string]string{}
	for _, e := range All() {
		if e.Name == "" || e.Check == nil || len(e.RuleIDs) == 0 {
			t.Errorf("entry %+v is incomplete", e.Name)
		}
		for _, id := range e.RuleIDs {
			if _, ok := rules.ByID(id); !ok {
				t.Errorf("check %q cites %s, which is not in the registry", e.Name, id)
			}
			covered[id] = e.Name
		}
	}
	for _, id := range StdioRuleIDs() {
		if _, ok := rules.ByID(id); !ok {
			t.Errorf("the stdio checks cite %s, which is not in the registry", id)
		}
		covered[id] = "stdio"
	}
	for _, r := range all {
		if r.Check != rules.CheckPassive && r.Check != rules.CheckBoth {
			continue
		}
		if _, ok := covered[r.ID]; !ok {
			t.Errorf("rule %s is marked %s but no passive check produces it", r.ID, r.Check)
		}
	}
}

// TestEntryNamesUnique keeps check names usable as identifiers in panic reports.
func TestEntryNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range All() {
		if seen[e.Name] {
			t.Errorf("two checks are named %q", e.Name)
		}
		seen[e.Name] = true
	}
}

// TestRunRecoversPanickingCheck proves one broken check cannot take down a proxy: its panic
// becomes an indeterminate outcome naming it, and the other checks still run.
func TestRunRecoversPanickingCheck(t *testing.T) {
	es := []entry{
		{"boom", []string{"jsonrpc-envelope"}, func(*view, *History) []rules.Outcome { panic("nil map") }},
		{"fine", []string{"utf8-messages"}, func(*view, *History) []rules.Outcome {
			return []rules.Outcome{pass("utf8-messages", "ok")}
		}},
	}
	got := run(&wire.Exchange{ID: "ex"}, nil, es)
	if len(got) != 2 {
		t.Fatalf("want 2 outcomes, got %+v", got)
	}
	if got[0].Status != rules.Indeterminate || !strings.Contains(got[0].Why, `"boom"`) || got[0].RuleID != rules.IDOf("jsonrpc-envelope") {
		t.Errorf("panic outcome = %+v, want indeterminate naming the check", got[0])
	}
	if got[1].Status != rules.Pass || got[1].Exchange != "ex" {
		t.Errorf("the next check did not run normally: %+v", got[1])
	}
}

// TestRunBoundsOutcomes proves a hostile stream cannot grow one exchange's report without limit.
func TestRunBoundsOutcomes(t *testing.T) {
	many := entry{"many", []string{"jsonrpc-envelope"}, func(*view, *History) []rules.Outcome {
		out := make([]rules.Outcome, MaxOutcomes*2)
		for i := range out {
			out[i] = pass("jsonrpc-envelope", "x")
		}
		return out
	}}
	got := run(&wire.Exchange{ID: "ex"}, nil, []entry{many})
	if len(got) != MaxOutcomes+1 || got[MaxOutcomes].Status != rules.Indeterminate {
		t.Fatalf("got %d outcomes, last %+v; want %d then one indeterminate", len(got), got[len(got)-1], MaxOutcomes)
	}
}

// TestRunNilAndEmpty proves an exchange that says nothing yields nothing.
func TestRunNilAndEmpty(t *testing.T) {
	tests := []struct {
		name string
		ex   *wire.Exchange
	}{
		{"nil exchange", nil},
		{"transport failure", &wire.Exchange{ID: "x", Request: wire.Request{Method: "POST"}, Err: "connection refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Run(tt.ex, NewHistory()); len(got) != 0 {
				t.Errorf("want no outcomes, got %+v", got)
			}
		})
	}
}

// TestAllMatchesRun proves the exported per-entry Check gives the same outcomes Run does.
func TestAllMatchesRun(t *testing.T) {
	ex := typicalExchange()
	var viaAll int
	for _, e := range All() {
		viaAll += len(e.Check(ex, NewHistory()))
	}
	if viaRun := len(Run(ex, NewHistory())); viaAll != viaRun || viaRun == 0 {
		t.Errorf("All() checks gave %d outcomes, Run gave %d", viaAll, viaRun)
	}
}

// TestDeprecationsSightings proves the inventory's source sees both sides of a legacy exchange.
func TestDeprecationsSightings(t *testing.T) {
	ex := typicalExchange()
	ex.Request.Body = []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}}}}`)
	ex.Response.Header.Set("Mcp-Session-Id", "s-1")
	ex.Response.Header.Set("Content-Type", "application/json")
	ex.Response.Body = []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}}}}`)
	kinds := map[string]string{}
	for _, s := range Deprecations(ex) {
		kinds[s.Kind] = s.Side
		if s.Feature == "" || s.Evidence == "" || s.Exchange != ex.ID {
			t.Errorf("incomplete sighting %+v", s)
		}
	}
	for kind, side := range map[string]string{
		rules.EvidenceInitialize: SideServer, rules.EvidenceSessionID: SideServer, rules.EvidenceCapabilityLogging: SideServer,
	} {
		if kinds[kind] != side {
			t.Errorf("sighting %s: side %q, want %q (all: %v)", kind, kinds[kind], side, kinds)
		}
	}
	if got := Deprecations(typicalExchange()); len(got) != 0 {
		t.Errorf("a modern exchange shows deprecations: %+v", got)
	}
}

// typicalExchange is a modern tools/call answered on an SSE stream with progress.
func typicalExchange() *wire.Exchange {
	h := map[string][]string{
		"Content-Type": {"application/json"}, "Mcp-Protocol-Version": {"2026-07-28"},
		"Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"},
	}
	return &wire.Exchange{
		ID: "ex-typical",
		Request: wire.Request{Method: "POST", URL: "http://127.0.0.1/mcp", Header: h, Body: []byte(
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"}}}`)},
		Response: &wire.Response{Status: 200,
			Header: map[string][]string{"Content-Type": {"text/event-stream"}, "X-Accel-Buffering": {"no"}},
			Body: []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p1\",\"progress\":1,\"total\":2}}\n\n" +
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p1\",\"progress\":2,\"total\":2}}\n\n" +
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]," +
				"\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}\n\n")},
	}
}
