package wire

import (
	"encoding/json"
	"testing"
)

// TestDecodeValue: numbers keep their text, and anything after the value is refused.
func TestDecodeValue(t *testing.T) {
	v, err := DecodeValue([]byte(` {"n": 18446744073709551617, "f": 1.0} `))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["n"] != json.Number("18446744073709551617") || m["f"] != json.Number("1.0") {
		t.Errorf("numbers lost their text: %#v", m)
	}
	for _, bad := range []string{``, ` `, `{} {}`, `{"a":}`, `[1,]`, `1 x`} {
		if _, err := DecodeValue([]byte(bad)); err == nil {
			t.Errorf("DecodeValue(%q) accepted it", bad)
		}
	}
}

// FuzzDecodeValue: DecodeValue accepts exactly the single JSON values encoding/json accepts.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2]`, `"x"`, `1e400`, `{} {}`, `nul`, ` 7 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := DecodeValue(b)
		if (err == nil) != json.Valid(b) {
			t.Errorf("DecodeValue(%q) error %v, json.Valid %v", b, err, json.Valid(b))
		}
	})
}
