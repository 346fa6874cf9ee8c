package wire_test

import (
	"fmt"

	"github.com/mcp-sentinel/sentinel/wire"
)

// A well-formed tools/call, then the same request broken in exactly one place.
func ExampleNewCall() {
	ok := wire.NewCall("tools/call", map[string]any{"name": "Grüße", "arguments": map[string]any{}}, wire.WithID(1))
	fmt.Println(ok.Header.Get(wire.HeaderMethod), ok.Header.Get(wire.HeaderName))
	broken := wire.NewCall("tools/call", map[string]any{"name": "x"}, wire.WithoutHeader(wire.HeaderName))
	fmt.Println(broken.Header.Get(wire.HeaderName) == "")
	// Output:
	// tools/call =?base64?R3LDvMOfZQ==?=
	// true
}

func ExampleDecodeHeaderValue() {
	for _, raw := range []string{"  plain ", "=?base64?SGVsbG8sIOS4lueVjA==?=", "=?BASE64?SGk=?="} {
		v, encoded, err := wire.DecodeHeaderValue(raw)
		fmt.Printf("%q %v %v\n", v, encoded, err)
	}
	// Output:
	// "plain" false <nil>
	// "Hello, 世界" true <nil>
	// "=?BASE64?SGk=?=" false <nil>
}
