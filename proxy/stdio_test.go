package proxy

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// TestStdioFrontEndGradesLinesAndExchanges feeds a stdio conversation through the front end into
// a real pipeline and store: a banner on stdout is a finding of the stdio binding, an exchange is
// graded by the protocol-level checks (a retired error code), no HTTP-only rule is judged, and
// every line is recorded.
func TestStdioFrontEndGradesLinesAndExchanges(t *testing.T) {
	store, err := findings.Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	pipe, err := NewPipeline(PipelineOptions{Store: store, Graders: []Grader{Passive()}})
	if err != nil {
		t.Fatal(err)
	}
	fe := NewStdioFrontEnd(pipe, "stdio: test-server")
	convo := []struct {
		dir  wire.Direction
		line string
	}{
		{wire.ToClient, "Server listening on stdio"},
		{wire.ToServer, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x://gone","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
		{wire.ToClient, `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found"}}`},
		{wire.ToServer, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
	}
	for i, c := range convo {
		f := wire.DecodeFrame(wire.Line{Bytes: []byte(c.line), Size: int64(len(c.line))})
		f.Seq, f.Dir, f.At = int64(i+1), c.dir, time.Now()
		fe.Observe(f)
	}
	fe.Close() // the tools/list was never answered: recorded all the same
	ctx := t.Context()
	if err := pipe.Close(ctx); err != nil {
		t.Fatal(err)
	}
	fs, err := store.Findings(ctx, findings.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range fs {
		got[f.RuleID] = true
		if r, ok := rules.ByID(f.RuleID); ok && r.Transport == rules.TransportHTTP {
			t.Errorf("HTTP-only rule %s judged on stdio traffic: %s", r.Name, f.Observed)
		}
	}
	for _, name := range []string{"stdio-stdout-messages-only", "retired-codes"} {
		if !got[rules.IDOf(name)] {
			t.Errorf("no finding for %s (got %v)", name, got)
		}
	}
	exs, err := store.Exchanges(ctx, findings.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, ex := range exs {
		methods = append(methods, ex.RPCMethod)
		if ex.Target != "stdio: test-server" {
			t.Errorf("exchange %s has target %q", ex.ID, ex.Target)
		}
	}
	if len(exs) != 3 || !strings.Contains(strings.Join(methods, ","), "resources/read") || !strings.Contains(strings.Join(methods, ","), "tools/list") {
		t.Errorf("recorded %d exchanges %v; want the banner line, resources/read and tools/list", len(exs), methods)
	}
}
