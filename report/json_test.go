package report

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestDecodeRejects(t *testing.T) {
	const rule = `{"id":"MCP/2026-07-28/MUST/x","name":"x","level":"MUST","requirement":"r","specUrl":"u","remediation":"m","check":"passive","areas":["jsonrpc"]}`
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{name: "a document without a schema", in: `{"tool":"t","target":"u","started":"2026-07-28T12:00:00Z","durationNs":0,"rules":[]}`, wantErr: `unsupported result schema ""`},
		{name: "an unknown schema version", in: `{"schema":"sentinel.result/v2","rules":[]}`, wantErr: `unsupported result schema "sentinel.result/v2"`},
		{name: "an unknown top-level field", in: `{"schema":"sentinel.result/v1","rules":[],"verdict":"ok"}`, wantErr: `unknown field "verdict"`},
		{name: "an unknown field inside a rule", in: `{"schema":"sentinel.result/v1","rules":[{"rule":{"id":"x","level":"MUST","severity":1},"status":"pass"}]}`, wantErr: `unknown field "severity"`},
		{name: "trailing data after the object", in: `{"schema":"sentinel.result/v1","rules":[]} {}`, wantErr: "unexpected data after the result object"},
		{name: "a status outside the closed set", in: `{"schema":"sentinel.result/v1","rules":[{"rule":` + rule + `,"status":"warn"}]}`, wantErr: `unknown status "warn"`},
		{name: "an evidence status outside the closed set", in: `{"schema":"sentinel.result/v1","rules":[{"rule":` + rule + `,"status":"fail","evidence":[{"ruleId":"x","status":"bad"}]}]}`, wantErr: `evidence[0]: unknown status "bad"`},
		{name: "a level outside the four", in: `{"schema":"sentinel.result/v1","rules":[{"rule":{"id":"x","level":"MAY","areas":[]},"status":"pass"}]}`, wantErr: `unknown level "MAY"`},
		{name: "a rule without an id", in: `{"schema":"sentinel.result/v1","rules":[{"rule":{"level":"MUST"},"status":"pass"}]}`, wantErr: "rule has no id"},
		{name: "an unknown check mode", in: `{"schema":"sentinel.result/v1","rules":[{"rule":{"id":"x","level":"MUST","check":"psychic"},"status":"pass"}]}`, wantErr: `unknown check mode "psychic"`},
		{name: "text that is not JSON", in: `schema: v1`, wantErr: "decoding the JSON result"},
		{name: "field names differing only in case", in: `{"SCHEMA":"sentinel.result/v1","rules":[]}`, wantErr: `unknown field "SCHEMA"`},
		{name: "a probe step without a name", in: `{"schema":"sentinel.result/v1","probes":[{"name":"","startMs":0,"durationMs":1,"requests":1}],"rules":[]}`, wantErr: "probes[0]: a step needs a name"},
		{name: "a probe step with a negative duration", in: `{"schema":"sentinel.result/v1","probes":[{"name":"x","startMs":0,"durationMs":-1,"requests":1}],"rules":[]}`, wantErr: "probes[0]"},
		{name: "an unknown field inside a probe step", in: `{"schema":"sentinel.result/v1","probes":[{"name":"x","startMs":0,"durationMs":1,"requests":1,"durationNs":5}],"rules":[]}`, wantErr: `unknown field "durationNs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("Decode(%s) = %+v, want an error mentioning %q", tt.in, r, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Decode(%s) error = %q, want it to mention %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

// TestDecodeSchemaErrorIsTyped lets callers (findings export) tell "written by another
// version" from "corrupt".
func TestDecodeSchemaErrorIsTyped(t *testing.T) {
	_, err := Decode(strings.NewReader(`{"schema":"sentinel.result/v9","rules":[]}`))
	if !errors.Is(err, ErrSchema) {
		t.Errorf("Decode(v9) error = %v, want it to wrap ErrSchema", err)
	}
}

func TestDecodeSortsRulesByID(t *testing.T) {
	r := testResult(rules.Must, rules.Pass, rules.Should, rules.Fail, rules.MustNot, rules.Fail)
	r.Rules[0], r.Rules[2] = r.Rules[2], r.Rules[0]
	r.Rules[0].Rule.ID, r.Rules[2].Rule.ID = "z", "a"
	data, err := jsonMarshalUnsorted(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(back.Rules); i++ {
		if back.Rules[i-1].Rule.ID > back.Rules[i].Rule.ID {
			t.Fatalf("Decode left rules unsorted: %q before %q", back.Rules[i-1].Rule.ID, back.Rules[i].Rule.ID)
		}
	}
}

// TestMarshalCanonicalNormalises covers inputs a caller may build by hand: unsorted rules, a
// non-UTC start time, an empty schema field and nil rules all come out canonical, and r itself
// is left alone.
func TestMarshalCanonicalNormalises(t *testing.T) {
	r := testResult(rules.Must, rules.Pass, rules.Must, rules.Fail)
	r.Rules[0], r.Rules[1] = r.Rules[1], r.Rules[0]
	r.Schema = ""
	r.Started = time.Date(2026, 7, 28, 14, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	before := r.Rules[0].Rule.ID
	data, err := MarshalCanonical(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if back.Schema != SchemaVersion || !back.Started.Equal(r.Started) || back.Started.Location() != time.UTC {
		t.Errorf("canonical form: schema %q started %v, want %q and the same instant in UTC", back.Schema, back.Started, SchemaVersion)
	}
	if r.Rules[0].Rule.ID != before || r.Schema != "" {
		t.Errorf("MarshalCanonical modified its argument")
	}
	empty, err := MarshalCanonical(&Result{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(empty, []byte(`"rules": []`)) {
		t.Errorf("nil rules render as %s, want an empty array", empty)
	}
}

// withProbes is a scan result with the timing of its steps, as active.Scan records them.
func withProbes() *Result {
	r := testResult(rules.Must, rules.Fail)
	r.Probes = []ProbeRun{
		{Name: DiscoveryStep, StartMs: 0, DurationMs: Millis(3210 * time.Microsecond), Requests: 5},
		{Name: "header-case", StartMs: 3.21, DurationMs: 0.875, Requests: 2},
		{Name: "list-changed", StartMs: 3.3, DurationMs: 40.5, Requests: 3, Cut: "probe-timeout"},
	}
	return r
}

// TestProbeRunsInJSON: the per-step timing is written under "probes" with durationMs, and
// comes back equal.
func TestProbeRunsInJSON(t *testing.T) {
	data, err := MarshalCanonical(withProbes())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"probes": [`, `"name": "discovery"`, `"durationMs": 3.21`, `"startMs": 3.3`, `"requests": 5`, `"cut": "probe-timeout"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the JSON result lacks %s:\n%s", want, data)
		}
	}
	back, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Probes, withProbes().Probes) {
		t.Errorf("probes came back as %+v", back.Probes)
	}
	if Millis(1500*time.Nanosecond) != 0.001 || Millis(2*time.Second) != 2000 {
		t.Errorf("Millis keeps microseconds: %v %v", Millis(1500*time.Nanosecond), Millis(2*time.Second))
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, r := range []*Result{testResult(), bigResult(40), withProbes()} {
		data, err := MarshalCanonical(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Decode(MarshalCanonical(x)): %v", err)
		}
		again, err := MarshalCanonical(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, again) {
			t.Errorf("render(decode(render(x))) != render(x)")
		}
	}
}

// FuzzDecode: whatever Decode accepts renders canonically, decodes back to an equal value, and
// renders to the same bytes again; nothing it accepts carries a status or level outside the
// closed sets.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"mixed", "allpass", "empty", "escaping"} {
		data, err := os.ReadFile("testdata/" + name + ".result.json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"schema":"sentinel.result/v1","rules":null}`))
	f.Add([]byte(`{"schema":"sentinel.result/v1","probes":[{"name":"discovery","startMs":0,"durationMs":1.5,"requests":3}],"rules":[]}`))
	f.Add([]byte(`{"schema":"sentinel.result/v1","rules":[],"Schema":"x"}`))
	f.Add([]byte("{\"schema\":\"sentinel.result/v1\",\"target\":\"\\u2028\\u0000\xff\",\"rules\":[]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, rr := range r.Rules {
			if !rr.Status.Valid() || !rr.Rule.Level.Valid() {
				t.Fatalf("Decode accepted status %q level %q", rr.Status, rr.Rule.Level)
			}
		}
		once, err := MarshalCanonical(r)
		if err != nil {
			t.Fatalf("MarshalCanonical(Decode(x)): %v", err)
		}
		back, err := Decode(bytes.NewReader(once))
		if err != nil {
			t.Fatalf("Decode(MarshalCanonical(Decode(x))): %v\n%s", err, once)
		}
		twice, err := MarshalCanonical(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("canonical JSON is not stable:\n%s\n%s", once, twice)
		}
		if !reflect.DeepEqual(normalTimes(back), normalTimes(r)) {
			t.Fatalf("Decode(render(x)) != x")
		}
	})
}

// normalTimes puts Started in UTC: a decoded offset time and its UTC form are the same instant
// but not DeepEqual.
func normalTimes(r *Result) *Result {
	c := *r
	c.Started = c.Started.UTC()
	return &c
}
