package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestIndentJSONMatchesIndent: for compact JSON as the encoder writes it, indentJSON gives
// json.Indent's bytes — on a full-size result and on the corners (empty containers, escapes,
// quotes and brackets inside strings, nesting, scalars, the trailing newline).
func TestIndentJSONMatchesIndent(t *testing.T) {
	big, err := json.Marshal(bigResult(250))
	if err != nil {
		t.Fatal(err)
	}
	cases := []string{
		string(big),
		`{}`, `[]`, `{"a":{}}`, `{"a":[]}`, `[[],{},[[]]]`, `{"a":[1,2,{"b":null}],"c":true}`,
		`"x"`, `1`, `null`, `{"q":"a \"quoted\" {string} [with] , and : inside"}`,
		`{"e":"back\\slash\\","u":"\u2028 \u003c"}`, `["\\\"",""]`, `{"":""}`,
		"{\"a\":1}\n", "[1,[2,[3,[4]]]]\n",
	}
	for _, c := range cases {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(c), "", "  "); err != nil {
			t.Fatalf("json.Indent(%q): %v", c, err)
		}
		if got := indentJSON(nil, []byte(c)); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("indentJSON(%.80q):\n%.400s\nwant:\n%.400s", c, got, want.Bytes())
		}
	}
}

// FuzzIndentJSON compares indentJSON with json.Indent on whatever valid JSON the fuzzer finds,
// compacted first as the encoder would write it.
func FuzzIndentJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,{}]}`, `["\"\\",[]]`, `{"k":"v","n":{"m":[true,false,null]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var compact bytes.Buffer
		if json.Compact(&compact, b) != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(nil, compact.Bytes()); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("indentJSON(%q) = %q, want %q", compact.Bytes(), got, want.Bytes())
		}
	})
}

// TestMarshalCanonicalIsTheEncoders: MarshalCanonical's splice of rules encoded one at a time,
// indented by indentJSON, gives the bytes one indenting json.Encoder writes for the whole
// document — for a full-size result, one with a single rule, one with a note and a probe before
// the rules, and an empty one.
func TestMarshalCanonicalIsTheEncoders(t *testing.T) {
	withExtras := bigResult(40)
	withExtras.Notes = []string{`a note quoting "rules":[] as text`}
	withExtras.Probes = []ProbeRun{{Name: "rules", StartMs: 1, DurationMs: 2, Requests: 3}}
	for name, r := range map[string]*Result{"full": bigResult(250), "one rule": bigResult(1), "extras": withExtras, "empty": {}} {
		got, err := MarshalCanonical(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc := canonicalDocument(r)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&doc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: MarshalCanonical differs from the indenting Encoder (%d vs %d bytes)", name, len(got), len(want.Bytes()))
		}
	}
}
