package broker

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
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

func TestSetMetricPolicyArgsValidate(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	tests := []struct {
		name string
		args setMetricPolicyArgs
		ok   bool
	}{
		{"metric only", setMetricPolicyArgs{Metric: "flag_injection"}, true},
		{"all fields", setMetricPolicyArgs{Metric: "check_groundedness", Threshold: f(0.3), OnTimeout: "fail_closed", MaxJudgeLatencyMs: i(250)}, true},
		{"unknown metric", setMetricPolicyArgs{Metric: "toxicity"}, false},
		{"threshold above 1", setMetricPolicyArgs{Metric: "flag_injection", Threshold: f(1.5)}, false},
		{"negative threshold", setMetricPolicyArgs{Metric: "flag_injection", Threshold: f(-0.1)}, false},
		{"unknown onTimeout", setMetricPolicyArgs{Metric: "flag_injection", OnTimeout: "maybe"}, false},
		{"zero latency", setMetricPolicyArgs{Metric: "flag_injection", MaxJudgeLatencyMs: i(0)}, false},
		{"latency past a minute", setMetricPolicyArgs{Metric: "flag_injection", MaxJudgeLatencyMs: i(60001)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.args.validate(); (err == nil) != tc.ok {
				t.Fatalf("validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// FuzzStrictDecode: decoding tool arguments never panics, and anything it accepts re-encodes to
// arguments that decode to the same value.
func FuzzStrictDecode(f *testing.F) {
	f.Add(`{"metric":"flag_injection","threshold":0.5}`)
	f.Add(`{"handle":"hdl_x","extra":1}`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, raw string) {
		var a setMetricPolicyArgs
		if err := strictDecode(json.RawMessage(raw), &a); err != nil {
			return
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var again setMetricPolicyArgs
		if err := strictDecode(b, &again); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
	})
}
