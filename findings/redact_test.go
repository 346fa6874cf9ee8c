package findings

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactorPayload(t *testing.T) {
	r := NewRedactor([]string{"ssn"})
	tests := []struct {
		name, in, want string
	}{
		{"top-level token replaced, order kept", `{"b":1,"token":"abc","a":2}`, `{"b":1,"token":"[redacted]","a":2}`},
		{"nested and case-insensitive", `{"p":{"Access_Token":"x","keep":"<y>"}}`, `{"p":{"Access_Token":"[redacted]","keep":"<y>"}}`},
		{"object under a redacted key removed whole", `{"password":{"a":"b"}}`, `{"password":"[redacted]"}`},
		{"extra key from options", `[{"ssn":123}]`, `[{"ssn":"[redacted]"}]`},
		{"unrelated progressToken kept", `{"progressToken":"p1"}`, `{"progressToken":"p1"}`},
		{"SSE stream by pattern", "data: {\"token\": \"abc\"}\n\n", "data: {\"token\": \"[redacted]\"}\n\n"},
		{"truncated JSON by pattern", `{"a":1,"client_secret":"abc`, `{"a":1,"client_secret":"[redacted]"`},
		{"not JSON untouched", "hello", "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(r.Payload([]byte(tt.in))); got != tt.want {
				t.Errorf("Payload(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzRedactorPayload(f *testing.F) {
	for _, s := range []string{`{"token":"SECRETVALUE"}`, `[{"a":{"password":"SECRETVALUE"}}]`,
		"data: {\"token\":\"SECRETVALUE\"}\n\n", `{"token":"SECRETVALUE`, `{"x":"\u0000"}`, `"token"`} {
		f.Add([]byte(s))
	}
	r := NewRedactor(nil)
	f.Fuzz(func(t *testing.T, in []byte) {
		out := r.Payload(in)
		if json.Valid(in) && !json.Valid(out) {
			t.Fatalf("Payload turned valid JSON %q into invalid %q", in, out)
		}
		// A second pass may normalise layout once; after that it must change nothing.
		twice := r.Payload(out)
		if thrice := r.Payload(twice); !bytes.Equal(thrice, twice) {
			t.Fatalf("Payload does not settle: %q then %q", twice, thrice)
		}
		if len(in) > 0 && len(out) > 4*len(in)+64 {
			t.Fatalf("Payload grew %d bytes into %d", len(in), len(out))
		}
		if json.Valid(in) && bytes.Contains(in, []byte(`"token":"SECRETVALUE"`)) && strings.Contains(string(out), `"token":"SECRETVALUE"`) {
			t.Fatalf("a token value survived: %q", out)
		}
	})
}

// referenceValue is the structural rewrite as it was written on encoding/json's token stream,
// kept as the oracle for the one on wire's scanner.
func (r *Redactor) referenceValue(buf *bytes.Buffer, raw []byte, changed *bool) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		buf.Write(raw)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return err
	}
	isObject := raw[0] == '{'
	buf.WriteByte(raw[0])
	for i := 0; dec.More(); i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		redact := false
		if isObject {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			writeString(buf, key)
			buf.WriteByte(':')
			redact = r.keys[strings.ToLower(key)]
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if redact {
			*changed = true
			writeString(buf, Redacted)
			continue
		}
		if err := r.referenceValue(buf, v, changed); err != nil {
			return err
		}
	}
	if isObject {
		buf.WriteByte('}')
	} else {
		buf.WriteByte(']')
	}
	return nil
}

// FuzzRedactorRewriteMatchesTheTokenStreamOne: on valid JSON, the rewrite on wire's scanner
// writes exactly what the encoding/json one wrote.
func FuzzRedactorRewriteMatchesTheTokenStreamOne(f *testing.F) {
	for _, s := range []string{`{"b":1,"token":"abc","a":2}`, `{"p":{"Access_Token":"x","keep":"<y>"}}`, `[{"ssn":123}, [1, {"password":{"a":"b"}}]]`,
		` { "\u0074oken" : "x" , "k\"q" : [ ] } `, `{"a":{"a":1,"a":2},"token":null}`, `[]`, `{}`, `"token"`, `12`} {
		f.Add([]byte(s))
	}
	r := NewRedactor([]string{"ssn"})
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		var got, want bytes.Buffer
		var gotChanged, wantChanged bool
		gerr, werr := r.value(&got, in, &gotChanged), r.referenceValue(&want, in, &wantChanged)
		if (gerr == nil) != (werr == nil) || gotChanged != wantChanged || got.String() != want.String() {
			t.Fatalf("rewrite of %q: %q (changed %v, err %v), the token-stream one %q (changed %v, err %v)",
				in, got.String(), gotChanged, gerr, want.String(), wantChanged, werr)
		}
	})
}

func TestRedactorURL(t *testing.T) {
	r := NewRedactor([]string{"sig"})
	tests := []struct{ in, want string }{
		{"http://h/mcp", "http://h/mcp"},
		{"http://user:pw@h/mcp?x=1", "http://h/mcp?x=1"},
		{"http://h/mcp?access_token=abc&x=1", "http://h/mcp?access_token=%5Bredacted%5D&x=1"},
		{"http://h/mcp?SIG=abc", "http://h/mcp?SIG=%5Bredacted%5D"},
		{"http://h/%zz?token=abc", "http://h/%zz"},
	}
	for _, tt := range tests {
		if got := r.URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// mayHold is the cheap pre-test that decides whether a payload is walked at all: it must see a
// key in any case and anywhere, and must not be fooled by a key split across strings.
func TestRedactorMayHold(t *testing.T) {
	long := strings.Repeat("k", 80)
	r := NewRedactor([]string{"ssn", long})
	tests := []struct {
		name, in string
		want     bool
	}{
		{"no key", `{"a":"b","progressToken":1}`, false},
		{"key in another case", `{"a":{"ACCESS_TOKEN":"x"}}`, true},
		{"key inside an SSE stream", "data: {\"x\":1,\"Password\":\"p\"}\n\n", true},
		{"key only as a value's prefix", `{"a":"tokenizer"}`, false},
		{"extra key", `[{"SSN":1}]`, true},
		{"configured key longer than the scan buffer", `{"` + strings.ToUpper(long) + `":1}`, true},
		{"unterminated quote", `{"token`, false},
		{"binary", "\x00\xff\"\x01\"", false},
	}
	for _, tt := range tests {
		if got := r.mayHold([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: mayHold(%q) = %v, want %v", tt.name, tt.in, got, tt.want)
		}
	}
}

// BenchmarkRedactorMayHold4MiB is the pre-test on a large body without any key: it must scan
// in place, not copy the body.
func BenchmarkRedactorMayHold4MiB(b *testing.B) {
	body := bytes.Repeat([]byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"hello world"}}`), 4<<20/56)
	r := NewRedactor(nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if r.mayHold(body) {
			b.Fatal("no key is there")
		}
	}
}
