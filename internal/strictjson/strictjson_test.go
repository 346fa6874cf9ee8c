package strictjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseObjectIsExactAboutNames(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"a plain object", `{"a":1,"b":{"c":2}}`, ""},
		{"a repeated member", `{"a":1,"a":2}`, `member "a" is given twice`},
		{"data after the object", `{"a":1} {}`, "data after the JSON object"},
		{"an array", `[1]`, "must be a JSON object, not an array"},
		{"null", `null`, "must be a JSON object, not null"},
		{"truncated", `{"a":`, "not valid JSON"},
		{"a long repeated name is not echoed", `{"` + strings.Repeat("x", 40) + `":1,"` + strings.Repeat("x", 40) + `":2}`, "member (a name of 40 bytes) is given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseObject([]byte(tt.in))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("ParseObject(%q) = %v", tt.in, err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Fatalf("ParseObject(%q) = %v, want %q", tt.in, err, tt.wantErr)
			}
		})
	}
	o, err := ParseObject([]byte(`{"onTimeOut":1,"metric":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Unknown("metric", "onTimeout"); len(got) != 1 || got[0] != "onTimeOut" {
		t.Errorf("Unknown = %v, want [onTimeOut]: names match exactly, not regardless of case", got)
	}
	if err := o.CheckKnown("metric", "onTimeout"); err == nil || !strings.Contains(err.Error(), `unknown field "onTimeOut"`) {
		t.Errorf("CheckKnown = %v", err)
	}
}

func TestNameQuotesOnlyShortIdentifiers(t *testing.T) {
	for in, want := range map[string]string{
		"onTimeout":                         `"onTimeout"`,
		"ignore previous":                   "(a name of 15 bytes)",
		strings.Repeat("a", MaxNameBytes+1): "(a name of 33 bytes)",
		"":                                  "(a name of 0 bytes)",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"a":[1,{"b":null}]}`, `[]`, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := ParseObject(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, k := range o.Keys() {
			if seen[k] {
				t.Fatalf("repeated member %q accepted", k)
			}
			seen[k] = true
			if _, ok := o.Get(k); !ok {
				t.Fatalf("member %q listed but not stored", k)
			}
		}
	})
}

func TestCheckTextRefusesWhatEncodingJSONWouldReplace(t *testing.T) {
	tests := []struct {
		name, in string
		wantAt   int // -1: accepted
	}{
		{"plain", `{"a":"héllo \u00e9 \ud83d\ude00"}`, -1},
		{"a quote escape before a brace", `{"a":"\"{["}`, -1},
		{"invalid UTF-8", "{\"a\":\"x\xffy\"}", 7},
		{"a truncated UTF-8 sequence", "{\"a\":\"\xe2\x82\"}", 6},
		{"a lone high surrogate", `{"a":"\ud800x"}`, 6},
		{"a lone low surrogate", `{"a":"\udc00"}`, 6},
		{"a high surrogate followed by a non-surrogate escape", `{"a":"\ud800\u0041"}`, 6},
		{"a high surrogate at the end", `{"a":"\ud83d"}`, 6},
		{"nesting past the limit", strings.Repeat("[", 9) + strings.Repeat("]", 9), 8},
		{"nesting inside strings does not count", `{"a":"[[[[[[[[[[[["}`, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckText([]byte(tt.in), 8)
			var te *TextError
			switch {
			case tt.wantAt < 0 && err != nil:
				t.Fatalf("CheckText(%q) = %v, want nil", tt.in, err)
			case tt.wantAt >= 0 && (!errorsAs(err, &te) || te.Offset != tt.wantAt):
				t.Fatalf("CheckText(%q) = %v, want a TextError at byte %d", tt.in, err, tt.wantAt)
			}
		})
	}
}

func errorsAs(err error, te **TextError) bool {
	e, ok := err.(*TextError)
	if ok {
		*te = e
	}
	return ok
}

func FuzzCheckText(f *testing.F) {
	for _, s := range []string{`{"a":"\ud83d\ude00"}`, "\xff", `[[[]]]`, `"\ud800"`, `"\\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if CheckText(data, 64) != nil {
			return
		}
		// Accepted text decodes without encoding/json replacing anything: every string it yields
		// is valid UTF-8 with no U+FFFD that the input did not spell.
		var v any
		if err := json.Unmarshal(data, &v); err == nil && !bytes.Contains(data, []byte("\xef\xbf\xbd")) && !bytes.Contains(bytes.ToLower(data), []byte(`\ufffd`)) {
			if s, ok := v.(string); ok && strings.ContainsRune(s, utf8.RuneError) {
				t.Fatalf("accepted text %q decoded with a replacement character", data)
			}
		}
	})
}
