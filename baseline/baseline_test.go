package baseline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

func failingResult() *report.Result {
	id := rules.MakeID(rules.Must, "cache-hints-present")
	return &report.Result{Schema: report.SchemaVersion, Tool: "sentinel test", Target: "http://127.0.0.1:1/mcp",
		Rules: []report.RuleResult{{Rule: rules.Rule{ID: id, Name: "cache-hints-present", Level: rules.Must}, Status: rules.Fail,
			Evidence: []rules.Outcome{
				{RuleID: id, Status: rules.Fail, Exchange: "ex-1", Observed: "on POST tools/list → 200 application/json result: no ttlMs"},
				{RuleID: id, Status: rules.Fail, Exchange: "ex-2", Observed: "on POST prompts/list → 200 application/json result: no ttlMs"},
			}}}}
}

// TestWriteReadRoundTrip: what Write writes, Read reads back, and the scan it came from is then
// entirely known.
func TestWriteReadRoundTrip(t *testing.T) {
	f := FromResult(failingResult())
	if len(f.Entries) != 2 || f.Entries[0].Note == "" {
		t.Fatalf("FromResult = %+v, want two entries with notes", f.Entries)
	}
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	r := failingResult()
	Apply(r, back, "b.json")
	if tl := r.Tally(); tl.Known != 1 || tl.GateFindings != 0 || tl.Verdict != report.VerdictPassed {
		t.Errorf("with its own baseline the scan tallies %+v, want one known finding and a pass", tl)
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"not JSON", "entries: []", "decoding the baseline"},
		{"no schema", `{"entries": []}`, `schema ""`},
		{"unknown field", `{"schema": "sentinel.baseline/v1", "entries": [], "x": 1}`, `unknown field "x"`},
		{"trailing data", `{"schema": "sentinel.baseline/v1", "entries": []} {}`, "unexpected data"},
		{"not a rule ID", `{"schema": "sentinel.baseline/v1", "entries": [{"rule": "cache", "observation": "0123456789abcdef"}]}`, "is not a rule ID"},
		{"short fingerprint", `{"schema": "sentinel.baseline/v1", "entries": [{"rule": "MCP/x", "observation": "0123"}]}`, "16-hex-digit"},
		{"bad level", `{"schema": "sentinel.baseline/v1", "entries": [{"rule": "MCP/x", "observation": "0123456789abcdef", "level": "MAY"}]}`, "unknown level"},
		{"too large", `{"schema": "sentinel.baseline/v1", "tool": "` + strings.Repeat("x", MaxBytes) + `"}`, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Read(strings.NewReader(tt.body)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// FuzzRead: any bytes give a baseline or an error; what Read accepts, Write writes and Read
// reads back the same.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"schema": "sentinel.baseline/v1", "entries": [{"rule": "MCP/2026-07-28/MUST/x", "observation": "0123456789abcdef", "note": "n"}]}`))
	f.Add([]byte(`{"schema": "sentinel.baseline/v1", "entries": null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, b); err != nil {
			t.Fatal(err)
		}
		again, err := Read(&buf)
		if err != nil {
			t.Fatalf("Read(Write(x)) failed: %v", err)
		}
		if len(again.Entries) > len(b.Entries) {
			t.Fatalf("entries grew from %d to %d", len(b.Entries), len(again.Entries))
		}
	})
}
