package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeMessageIsCaseSensitiveAndStrict(t *testing.T) {
	tests := []struct {
		name, in   string
		err        bool
		method, id string
		kind       string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, false, "tools/list", "1", "request"},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/x"}`, false, "notifications/x", "", "notification"},
		{"result", `{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete"}}`, false, "", `"a"`, "response"},
		{"error", `{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"m"}}`, false, "", "2", "response"},
		{"upper-case METHOD is not a method", `{"jsonrpc":"2.0","id":1,"METHOD":"tools/list"}`, false, "", "1", "none"},
		{"case twins are rejected", `{"jsonrpc":"2.0","id":1,"method":"a","Method":"b"}`, true, "", "", ""},
		{"duplicate key is rejected", `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, true, "", "", ""},
		{"numeric method is rejected", `{"jsonrpc":"2.0","id":1,"method":5}`, true, "", "", ""},
		{"error without code is kept, with its problem", `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`, false, "", "1", "response"},
		{"array is not an object", `[{"jsonrpc":"2.0"}]`, true, "", "", ""},
		{"trailing data is rejected", `{"jsonrpc":"2.0","id":1,"result":{}} {}`, true, "", "", ""},
		{"invalid JSON", `{"jsonrpc":`, true, "", "", ""},
		{"explicit null id is kept", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}}`, false, "", "null", "response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := DecodeMessage([]byte(tc.in))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if m.Method != tc.method || m.IDString() != tc.id {
				t.Errorf("method %q id %q, want %q %q", m.Method, m.IDString(), tc.method, tc.id)
			}
			kind := "none"
			switch {
			case m.IsRequest():
				kind = "request"
			case m.IsNotification():
				kind = "notification"
			case m.IsResponse():
				kind = "response"
			}
			if kind != tc.kind {
				t.Errorf("kind %q, want %q", kind, tc.kind)
			}
		})
	}
}

func TestMessageHelpersReadMetaAndResult(t *testing.T) {
	req, err := DecodeMessage(NewCall("tools/list", nil, WithID(9)).Body)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := req.MetaString(MetaProtocolVersion); !ok || v != ProtocolVersion {
		t.Errorf("request protocolVersion = %q, %v", v, ok)
	}
	res, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.ResultType() != "complete" || res.Meta()[MetaServerInfo] == nil {
		t.Errorf("resultType %q meta %v", res.ResultType(), res.Meta())
	}
	if res.ResultField("absent") != nil {
		t.Error("absent result field should be nil")
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"x"}`, `{"METHOD":"x"}`, `{"method":"a","Method":"b"}`,
		`{"id":1,"result":{}}`, `{"error":{"code":1.5}}`, `{"field\u0000":1}`, `{"\u006dethod":"x"}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"A":10}`))
	f.Add([]byte(`{"\u212aey":1,"key":2}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if _, strict, err := splitObject(raw); err == nil {
			if want := refStrict(raw); (strict != nil) != want {
				t.Fatalf("splitObject(%q) strict = %v, the lower-cased key map says %v", raw, strict, want)
			}
		}
		m, err := DecodeMessage(raw)
		if err != nil {
			return
		}
		var exact map[string]json.RawMessage
		if json.Unmarshal(raw, &exact) != nil {
			t.Fatalf("DecodeMessage accepted what encoding/json rejects: %q", raw)
		}
		for key, set := range map[string]bool{
			"method": m.Method != "", "id": m.ID != nil, "result": m.Result != nil, "error": m.Error != nil,
		} {
			if _, ok := exact[key]; set && !ok {
				t.Fatalf("member %q set without the exact key in %q", key, raw)
			}
		}
		if len(m.Raw) != len(raw) {
			t.Fatalf("Raw not kept verbatim")
		}
	})
}

func FuzzParseBody(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"k":1}}}`, `[{"jsonrpc":"2.0","id":1,"result":{}},{"x":1}]`,
		`{"jsonrpc":"2.0","method":"m","params":{"_meta":{"A":1,"a":2}}}`, `[`, ``, `  `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		lim := Limits{MaxBodyBytes: 1 << 16, MaxSSEEvents: 16}
		evs, msgs, errs := ParseBody("application/json", body, lim)
		if len(evs) != 0 {
			t.Fatalf("events from a JSON body")
		}
		if len(msgs) > len(body)/2+1 {
			t.Fatalf("%d messages from %d bytes", len(msgs), len(body))
		}
		if len(msgs) > 1 && !IsBatch(errs) {
			t.Fatalf("several messages without the batch note")
		}
		for _, m := range msgs {
			for k := range m.Meta() {
				if !json.Valid(m.Meta()[k]) {
					t.Fatalf("_meta member %q is not valid JSON", k)
				}
			}
		}
	})
}

func TestCompletedIsOneMeaningOfTheCallCompleted(t *testing.T) {
	tests := []struct {
		name, body string
		want       bool
	}{
		{"resultType complete", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`, true},
		{"no resultType (a 2025 result, final)", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, true},
		{"input_required", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"x"}}`, false},
		{"an unknown resultType", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"task"}}`, false},
		{"resultType of the wrong type", `{"jsonrpc":"2.0","id":1,"result":{"resultType":1}}`, false},
		{"an error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad state"}}`, false},
		{"a result that is not an object", `{"jsonrpc":"2.0","id":1,"result":"done"}`, false},
		{"a request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := DecodeMessage([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Completed(); got != tt.want {
				t.Errorf("Completed() = %v, want %v", got, tt.want)
			}
		})
	}
	var nilMsg *Message
	if nilMsg.Completed() {
		t.Error("a nil message completed")
	}
}

func TestMalformedErrorMembersAreKeptWithTheirProblem(t *testing.T) {
	tests := []struct{ in, problem string }{
		{`{"jsonrpc":"2.0","id":1,"error":{"code":"bad","message":"x"}}`, "is not a number"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`, "is not an integer"},
		{`{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`, "no code"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}`, "no message"},
		{`{"jsonrpc":"2.0","id":1,"error":"boom"}`, "not an object"},
		{`{"jsonrpc":"2.0","id":1,"error":null}`, "null"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"fine"}}`, ""},
	}
	for _, tt := range tests {
		m, err := DecodeMessage([]byte(tt.in))
		if err != nil || m.Error == nil {
			t.Fatalf("%s: err %v, error member %v", tt.in, err, m)
		}
		if tt.problem == "" && m.Error.Problem != "" || !strings.Contains(m.Error.Problem, tt.problem) {
			t.Errorf("%s: problem %q, want one containing %q", tt.in, m.Error.Problem, tt.problem)
		}
	}
}

// refStrict is the exact reading's rule on encoding/json's tokens: a key twice, or two keys
// whose strings.ToLower agree.
func refStrict(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	seen, lower := map[string]bool{}, map[string]string{}
	strict := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		k := tok.(string)
		if seen[k] {
			strict = true
		}
		seen[k] = true
		if prev, ok := lower[strings.ToLower(k)]; ok && prev != k {
			strict = true
		}
		lower[strings.ToLower(k)] = k
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return strict
}

// TestResultMembersAreDecodedOnceAndFollowAReplacedResult: the accessors of result members share
// one decoding per message, and a Result replaced afterwards is read afresh, never the memo of
// the old one.
func TestResultMembersAreDecodedOnceAndFollowAReplacedResult(t *testing.T) {
	m, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":5,"_meta":{"k":"v"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ResultField("ttlMs")) != "5" || !m.Completed() || m.Meta()["k"] == nil {
		t.Fatalf("first read: ttl %s completed %v meta %v", m.ResultField("ttlMs"), m.Completed(), m.Meta())
	}
	m.Result = json.RawMessage(`{"resultType":"input_required","ttlMs":7}`)
	if string(m.ResultField("ttlMs")) != "7" || m.Completed() || m.Meta() != nil {
		t.Errorf("after replacing Result: ttl %s completed %v meta %v, want the new result's", m.ResultField("ttlMs"), m.Completed(), m.Meta())
	}
	m.Result = nil
	if m.ResultField("ttlMs") != nil || m.Completed() {
		t.Errorf("after clearing Result: ttl %s completed %v", m.ResultField("ttlMs"), m.Completed())
	}
}

// TestResultMembersAreSafeForConcurrentReaders: the proxy and a scan may read one message from
// several goroutines (run with -race).
func TestResultMembersAreSafeForConcurrentReaders(t *testing.T) {
	m, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","n":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	for range 8 {
		go func() { done <- m.Completed() && string(m.ResultField("n")) == "1" }()
	}
	for range 8 {
		if !<-done {
			t.Error("a concurrent reader saw a different result")
		}
	}
}
