package wire

import (
	"fmt"
	"reflect"
	"testing"
)

// DecodeMessage splits params and result in the message's own pass; the split must be exactly
// what splitting them afterwards gives (members, the exact reading's objection, no error), for
// every shape a message can take.
func TestDecodeMessageSplitsAsSplitMembers(t *testing.T) {
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"isError":false}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":1,"Name":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"K9":10}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","par\u0061ms":{"x":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params" : { "x" : 1 , "y":{"z":[1,{"w":2}]} } }`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a\u0042":1,"ab":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"text":"a\"b\\c\u00e9"}}`,
	} {
		checkSplitInPass(t, []byte(raw))
	}
}

// FuzzDecodeMessageSplit checks the same on whatever the fuzzer makes of the messages above.
func FuzzDecodeMessageSplit(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"A":2,"b":{"c":[1]}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false},"result":{"x":1}}`))
	f.Fuzz(func(t *testing.T, raw []byte) { checkSplitInPass(t, raw) })
}

func checkSplitInPass(t *testing.T, raw []byte) {
	t.Helper()
	m, err := DecodeMessage(raw)
	if err != nil {
		return // rejected: nothing split to compare
	}
	for _, c := range []struct {
		name string
		got  *members
		src  []byte
	}{{"params", m.params, m.Params}, {"result", m.result, m.Result}} {
		if c.src == nil {
			continue
		}
		want := splitMembers(c.src)
		if !reflect.DeepEqual(c.got.fields, want.fields) || fmt.Sprint(c.got.strict) != fmt.Sprint(want.strict) ||
			fmt.Sprint(c.got.err) != fmt.Sprint(want.err) || !c.got.isOf(c.src) {
			t.Errorf("%s of %s: split in the message's pass %+v, split afterwards %+v", c.name, raw, c.got, want)
		}
	}
}
