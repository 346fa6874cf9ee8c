package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

var scanSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+10`, `true`, `false`, `null`, ` {"a" : [1, 2.5, "x"] , "b":{"c":null}} `,
	`{"a":1,"a":2}`, `{"a":1,"A":2}`, `{"\u0061":1}`, `{"k\"q":"v\\n"}`, `"\ud800"`, "\"\xff\"", `[1,]`, `{"a":1,}`,
	`01`, `1.`, `1e`, `-`, `tru`, `nul`, `{"a"}`, `{"a":}`, `[`, `{`, `"abc`, "\"a\x01\"", `"\x"`, `"\u12g4"`,
	`{} {}`, `[] x`, `1 2`, `"abcdefghijklmnop\"qrstuvwxyz"`, "\"abcdefghijklmno\x01pq\"", `{"abcdefghijk":"lmnopqrstuvwx\u00e9yz"}`,
	`"\\\"\\"`, `"abcdefgh\\"`, `"\"\"\"\"\"\"\"\"\""`, "\"\\\"\x1f\"", `"abc\u00"`, `"abc\`,
}

// deepSeeds are at encoding/json's nesting bound and one past it.
var deepSeeds = []string{strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)}

// FuzzScanAgreesWithEncodingJSON: the scanner accepts exactly what encoding/json accepts, and
// Object, Array and String read what encoding/json reads, byte for byte.
func FuzzScanAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		i := skipSpace(b, 0)
		end, err := scanValue(b, i, 0)
		valid := err == nil && skipSpace(b, end) == len(b)
		if valid != json.Valid(b) || Valid(b) != valid {
			t.Fatalf("scan says valid %v (Valid %v), encoding/json %v, for %q (err %v)", valid, Valid(b), json.Valid(b), b, err)
		}
		var wantObj map[string]json.RawMessage
		objOK := json.Unmarshal(b, &wantObj) == nil && wantObj != nil
		gotObj := Object(b)
		if objOK != (gotObj != nil) || len(gotObj) != len(wantObj) {
			t.Fatalf("Object(%q) = %v, encoding/json %v (%v)", b, gotObj, wantObj, objOK)
		}
		for k, v := range wantObj {
			if !bytes.Equal(gotObj[k], v) {
				t.Fatalf("Object(%q)[%q] = %q, encoding/json %q", b, k, gotObj[k], v)
			}
		}
		last := map[string][]byte{}
		eachErr := EachMember(b, func(k string, v []byte) error { last[k] = v; return nil })
		if (eachErr == nil) != objOK || (objOK && len(last) != len(wantObj)) {
			t.Fatalf("EachMember(%q) = %v with %d keys, encoding/json %v with %d", b, eachErr, len(last), objOK, len(wantObj))
		}
		for k, v := range wantObj {
			if !bytes.Equal(last[k], v) {
				t.Fatalf("EachMember(%q) last %q = %q, encoding/json %q", b, k, last[k], v)
			}
		}
		var wantArr []json.RawMessage
		arrOK := json.Unmarshal(b, &wantArr) == nil && wantArr != nil
		gotArr := Array(b)
		if arrOK != (gotArr != nil) || len(gotArr) != len(wantArr) {
			t.Fatalf("Array(%q) = %q, encoding/json %q (%v)", b, gotArr, wantArr, arrOK)
		}
		for k := range wantArr {
			if !bytes.Equal(gotArr[k], wantArr[k]) {
				t.Fatalf("Array(%q)[%d] = %q, encoding/json %q", b, k, gotArr[k], wantArr[k])
			}
		}
		var elems [][]byte
		if err := EachElement(b, func(v []byte) error { elems = append(elems, v); return nil }); (err == nil) != arrOK || (arrOK && len(elems) != len(wantArr)) {
			t.Fatalf("EachElement(%q) = %v with %d elements, encoding/json %v with %d", b, err, len(elems), arrOK, len(wantArr))
		}
		wantInt, intOK := refInt(b)
		if gotInt, ok := Int(b); json.Valid(b) && (ok != intOK || gotInt != wantInt) {
			t.Fatalf("Int(%q) = %d %v, encoding/json %d %v", b, gotInt, ok, wantInt, intOK)
		}
		for _, other := range [][]byte{b, []byte("1"), []byte(`"a"`), []byte("null"), []byte(" 1.0 ")} {
			if got, want := SameID(b, other), refSameID(b, other); got != want {
				t.Fatalf("SameID(%q, %q) = %v, encoding/json %v", b, other, got, want)
			}
		}
		if got, want := DuplicateKey(b), refDuplicateKey(b); json.Valid(b) && got != want {
			t.Fatalf("DuplicateKey(%q) = %q, encoding/json's tokens %q", b, got, want)
		}
		trimmed := bytes.TrimSpace(b)
		var wantStr string
		strOK := len(trimmed) > 0 && trimmed[0] == '"' && json.Unmarshal(b, &wantStr) == nil
		gotStr, ok := String(b)
		if ok != strOK || gotStr != wantStr {
			t.Fatalf("String(%q) = %q %v, encoding/json %q %v", b, gotStr, ok, wantStr, strOK)
		}
	})
}

func TestScanSeedsAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range append(append([]string(nil), scanSeeds...), deepSeeds...) {
		b := []byte(s)
		i := skipSpace(b, 0)
		end, err := scanValue(b, i, 0)
		if valid := err == nil && skipSpace(b, end) == len(b); valid != json.Valid(b) {
			t.Errorf("%.40q: scan valid %v, encoding/json %v (%v)", s, valid, json.Valid(b), err)
		}
	}
}

// TestDecodedMembersAreSlicesOfTheMessage: a decoded message's params and result are split once,
// and what a reader gets is the message's own bytes, never a copy, so a large body costs one
// scan however many checks read into it.
func TestDecodedMembersAreSlicesOfTheMessage(t *testing.T) {
	raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` +
		strings.Repeat("x", 1<<16) + `"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	m, err := DecodeMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	within := func(v []byte) bool {
		if len(v) == 0 {
			return false
		}
		p, lo := uintptr(unsafe.Pointer(&v[0])), uintptr(unsafe.Pointer(&raw[0]))
		return p >= lo && p+uintptr(len(v)) <= lo+uintptr(len(raw))
	}
	args := m.ParamField("arguments")
	if !within(args) || !within(m.ParamsMembers()["name"]) || !within(m.Meta()[MetaProtocolVersion]) {
		t.Fatal("a member of the decoded message is a copy, not a slice of its bytes")
	}
	if m.params == nil || m.params.of(m.Params) != m.params {
		t.Fatal("params were not split once when the message was decoded")
	}
	// A message whose params were replaced reads the new ones.
	m2 := &Message{Raw: m.Raw, JSONRPC: m.JSONRPC, ID: m.ID, Method: m.Method, Params: m.Params, params: m.params}
	m2.Params = json.RawMessage(`{"name":"other"}`)
	if v, _ := String(m2.ParamField("name")); v != "other" {
		t.Fatalf("replaced params read %q, want other", v)
	}
	// The exact reading still rejects a key twice; the lenient one keeps the last.
	dup, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if dup.ParamField("a") != nil || string(dup.ParamsMembers()["a"]) != "2" {
		t.Fatalf("params with a key twice: ParamField %q, ParamsMembers %q; want nil and 2", dup.ParamField("a"), dup.ParamsMembers()["a"])
	}
}

func TestDecodeMessageReadsNullMembersAsEncodingJSONDoes(t *testing.T) {
	m, err := DecodeMessage([]byte(`{"jsonrpc":null,"id":1,"result":{}}`))
	if err != nil || m.JSONRPC != "" {
		t.Fatalf("jsonrpc null: %v %q, want accepted and empty", err, m.JSONRPC)
	}
	if _, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":null}`)); err == nil {
		t.Fatal("method null accepted, want the empty-method error")
	}
}

func BenchmarkDecodeMessage256KiB(b *testing.B) {
	raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` +
		strings.Repeat("x", 256<<10) + `"}}}`)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := DecodeMessage(raw)
		if err != nil || m.ParamField("name") == nil {
			b.Fatal(err)
		}
	}
}

// TestScanStringFindsEveryByteThatEndsAPlainRun: the word-at-a-time fast path stops at a quote,
// a backslash or a control byte wherever it falls in the word.
func TestScanStringFindsEveryByteThatEndsAPlainRun(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for pos := 0; pos < n; pos++ {
			for _, c := range []byte{'"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xff, ' '} {
				inner := bytes.Repeat([]byte("a"), n)
				inner[pos] = c
				lit := append(append([]byte{'"'}, inner...), '"')
				i := skipSpace(lit, 0)
				end, err := scanValue(lit, i, 0)
				valid := err == nil && end == len(lit)
				if valid != json.Valid(lit) {
					t.Fatalf("%q: scan valid %v, encoding/json %v", lit, valid, json.Valid(lit))
				}
				var want string
				wantOK := json.Unmarshal(lit, &want) == nil
				got, ok := String(lit)
				if ok != wantOK || got != want {
					t.Fatalf("String(%q) = %q %v, encoding/json %q %v", lit, got, ok, want, wantOK)
				}
			}
		}
	}
}

// refInt, refSameID and refDuplicateKey are the readers the passive checks had before they read
// through wire, on encoding/json: Int, SameID and DuplicateKey must agree with them (DuplicateKey
// on valid JSON: it says nothing of an object that does not parse).
func refInt(b []byte) (int, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.ContainsAny(b, ".eE") || string(b) == "null" { // encoding/json reads null into an int as 0
		return 0, false
	}
	var n int
	if json.Unmarshal(b, &n) != nil {
		return 0, false
	}
	return n, true
}

func refSameID(a, b []byte) bool {
	if a == nil || b == nil {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	switch p := x.(type) {
	case string:
		q, ok := y.(string)
		return ok && p == q
	case float64:
		q, ok := y.(float64)
		return ok && p == q
	case nil:
		return y == nil
	}
	return false
}

func refDuplicateKey(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := t.(string)
		if seen[k] {
			return k
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

func TestScalarReaders(t *testing.T) {
	ints := []struct {
		in   string
		n    int
		want bool
	}{{"7", 7, true}, {" -3 ", -3, true}, {"1.0", 0, false}, {"1e3", 0, false}, {`"7"`, 0, false},
		{"99999999999999999999", 0, false}, {"", 0, false}, {"07", 0, false}, {"null", 0, false}} // null is no integer (encoding/json leaves an int 0 for it)
	for _, c := range ints {
		if n, ok := Int([]byte(c.in)); n != c.n || ok != c.want {
			t.Errorf("Int(%q) = %d %v, want %d %v", c.in, n, ok, c.n, c.want)
		}
	}
	ids := []struct {
		a, b string
		want bool
	}{{"1", "1", true}, {"1", "1.0", true}, {"1", `"1"`, false}, {`"a"`, `"\u0061"`, true}, {"null", "null", true},
		{"true", "true", false}, {"{}", "{}", false}, {"-0", "0", true}, {"x", "x", true}, {"x", "y", false}}
	for _, c := range ids {
		if got := SameID([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("SameID(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if SameID(nil, []byte("1")) {
		t.Error("a nil id matched")
	}
	dups := map[string]string{`{"a":1,"b":2,"a":3}`: "a", `{"a":1,"\u0061":2}`: "a", `{"a":1,"b":2}`: "", `[1,1]`: "", `{"a":1,"a":`: ""}
	for in, want := range dups {
		if got := DuplicateKey([]byte(in)); got != want {
			t.Errorf("DuplicateKey(%s) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"image/png": true, "text/plain; charset=utf-8": true, "": false, "image/": false} {
		if got := IsMediaType(in); got != want {
			t.Errorf("IsMediaType(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestInternedIsSortedAndReturnsItsOwnStrings(t *testing.T) {
	for i := 1; i < len(interned); i++ {
		if interned[i-1] >= interned[i] {
			t.Fatalf("interned[%d] %q is not before interned[%d] %q: the binary search needs byte order", i-1, interned[i-1], i, interned[i])
		}
	}
	for _, s := range interned {
		if got, ok := intern([]byte(s)); !ok || got != s {
			t.Fatalf("intern(%q) = %q %v", s, got, ok)
		}
		if got := unquote([]byte(`"` + s + `"`)); got != s {
			t.Fatalf("unquote of %q = %q", s, got)
		}
	}
	for _, s := range []string{"", "a", "zzz", "jsonrp", "jsonrpcx", "Method"} {
		if got, ok := intern([]byte(s)); ok {
			t.Fatalf("intern(%q) = %q, want no match", s, got)
		}
	}
	key := []byte(`"jsonrpc"`)
	if n := testing.AllocsPerRun(100, func() { _ = unquote(key) }); n != 0 {
		t.Fatalf("unquote of an interned key allocates %v times, want 0", n)
	}
}

// TestScanStringFastAgreesWithSlow: the vectorised scan accepts exactly the strings the
// byte-at-a-time scan accepts, and reads the same end and escape flag, for escapes (an escaped
// quote, backslash runs, \u) and bad bytes at every position around a closing quote.
func TestScanStringFastAgreesWithSlow(t *testing.T) {
	pieces := []string{`a`, `\"`, `\\`, `\\\"`, `\u00e9`, `\u12g4`, `\x`, "\x01", "\x1f", `"`, `\`, `\u00`, "\xff", `\/`, `\n`}
	var check func(prefix string, depth int)
	check = func(prefix string, depth int) {
		for _, tail := range []string{``, `"`, `"x`, `\"`} {
			lit := []byte(`"` + prefix + tail)
			fe, fesc, ok := scanStringFast(lit, 0)
			se, sesc, err := scanStringSlow(lit, 0)
			if ok != (err == nil) || (ok && (fe != se || fesc != sesc)) {
				t.Fatalf("%q: fast (end %d, escaped %v, ok %v), slow (end %d, escaped %v, err %v)", lit, fe, fesc, ok, se, sesc, err)
			}
		}
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			check(prefix+p, depth-1)
		}
	}
	check("", 3)
	long := strings.Repeat(`ab\"cd\\`, 5000) + "\x02"
	if _, _, ok := scanStringFast([]byte(`"`+long+`"`), 0); ok {
		t.Fatal("a control byte after 5000 escapes was accepted")
	}
}
