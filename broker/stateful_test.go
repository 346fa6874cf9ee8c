package broker

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// TestStatefulManifestMatchesGolden pins the definitions of get_evaluation and set_metric_policy,
// as TestManifestMatchesGolden pins the evaluation tools: a schema or annotation change shows up
// as a reviewed golden diff (-update accepts it).
func TestStatefulManifestMatchesGolden(t *testing.T) {
	got, err := json.MarshalIndent(StatefulToolDefs(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "stateful-manifest.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("stateful manifest differs from %s; run go test ./broker -run TestStatefulManifestMatchesGolden -update and review the diff", golden)
	}
}

func TestSetMetricPolicyArgumentsDecodeStrictly(t *testing.T) {
	tests := []struct {
		name, raw, wantArg string // wantArg: the argument an error names; "" when accepted
	}{
		{"metric only", `{"metric":"flag_injection"}`, ""},
		{"every field", `{"metric":"check_groundedness","enabled":false,"threshold":0.3,"onTimeout":"fail_closed","maxJudgeLatencyMs":250,"idempotencyKey":"req-1"}`, ""},
		{"no metric", `{}`, "metric"},
		{"an unknown metric", `{"metric":"toxicity"}`, "metric"},
		{"an unknown onTimeout", `{"metric":"flag_injection","onTimeout":"maybe"}`, "onTimeout"},
		{"a differently-cased key", `{"metric":"flag_injection","Threshold":0.5}`, "arguments"},
		{"a repeated key", `{"metric":"flag_injection","threshold":0.5,"threshold":0}`, "arguments"},
		{"a string threshold", `{"metric":"flag_injection","threshold":"0.5"}`, "threshold"},
		{"a fractional budget", `{"metric":"flag_injection","maxJudgeLatencyMs":2.5}`, "maxJudgeLatencyMs"},
		{"an idempotency key with spaces", `{"metric":"flag_injection","idempotencyKey":"a b"}`, "idempotencyKey"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeSetMetricPolicy(json.RawMessage(tc.raw))
			var ia *tools.InvalidArgumentError
			switch {
			case tc.wantArg == "" && err != nil:
				t.Fatalf("decode(%s) = %v, want ok", tc.raw, err)
			case tc.wantArg != "" && (!errors.As(err, &ia) || ia.Argument != tc.wantArg):
				t.Fatalf("decode(%s) = %v, want an error on %q", tc.raw, err, tc.wantArg)
			}
		})
	}
}

// FuzzDecodeSetMetricPolicy: decoding never panics, and what it accepts names a known metric and
// a valid (or absent) onTimeout.
func FuzzDecodeSetMetricPolicy(f *testing.F) {
	f.Add(`{"metric":"flag_injection","threshold":0.5}`)
	f.Add(`{"metric":"flag_injection","onTimeout":"fail_open","idempotencyKey":"k"}`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, raw string) {
		a, err := decodeSetMetricPolicy(json.RawMessage(raw))
		if err != nil {
			return
		}
		if a.Metric != eval.MetricInjection && a.Metric != eval.MetricGroundedness {
			t.Fatalf("accepted metric %q", a.Metric)
		}
		if a.OnTimeout != "" && !validOnTimeout(a.OnTimeout) {
			t.Fatalf("accepted onTimeout %q", a.OnTimeout)
		}
	})
}
