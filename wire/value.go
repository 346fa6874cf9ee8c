package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodeValue decodes one JSON value into the generic form a JSON Schema validator reads:
// map[string]any, []any, string, bool, nil, and json.Number for numbers, so that 1.0, 1e400 and
// 18446744073709551617 keep their exact value (multipleOf, integer and bound checks compare
// them as rationals). Anything after the value, other than white space, is an error. It is the
// one place a schema or an instance off the wire is parsed.
func DecodeValue(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("decoding JSON: empty")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("decoding JSON: data after the value")
	}
	return v, nil
}
