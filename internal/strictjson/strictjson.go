// Package strictjson reads JSON objects the way a security boundary must: member names exactly as
// spelt (encoding/json matches them regardless of case, so "onTimeOut" would fill onTimeout), a
// member given twice refused (encoding/json keeps the last one silently), nothing after the value.
// The broker's config loader and its tool-argument decoder use it; both then decode each member's
// value on its own.
//
// Error texts never contain caller content: a member name is quoted only when it is a short
// identifier (Name), otherwise only its length is given.
//
// strictjson imports nothing of Sentinel's.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrSyntax is wrapped by every ParseObject error that means the data is not JSON at all, as
// opposed to JSON that breaks a rule (a repeated member, not an object, data after it).
var ErrSyntax = errors.New("not valid JSON")

// Object is one JSON object's members in the order they were given.
type Object struct {
	keys []string
	vals map[string]json.RawMessage
}

// ParseObject reads data as exactly one JSON object. It fails when data is not an object, when a
// member is given twice, or when anything but whitespace follows the object.
func ParseObject(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	o, err := readObject(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
		}
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

func readObject(dec *json.Decoder) (*Object, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("must be a JSON object, not %s", Kind(t))
	}
	o := &Object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
		}
		if _, dup := o.vals[k]; dup {
			return nil, fmt.Errorf("member %s is given twice", Name(k))
		}
		o.keys = append(o.keys, k)
		o.vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return o, nil
}

// Keys returns the member names in the order given.
func (o *Object) Keys() []string { return o.keys }

// Get returns a member's raw value.
func (o *Object) Get(name string) (json.RawMessage, bool) {
	v, ok := o.vals[name]
	return v, ok
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Unknown returns the member names that are not exactly one of allowed, in the order given.
func (o *Object) Unknown(allowed ...string) []string {
	var out []string
	for _, k := range o.keys {
		known := false
		for _, a := range allowed {
			if k == a {
				known = true
				break
			}
		}
		if !known {
			out = append(out, k)
		}
	}
	return out
}

// CheckKnown is Unknown as an error naming the first unknown member and the known ones.
func (o *Object) CheckKnown(allowed ...string) error {
	if u := o.Unknown(allowed...); len(u) > 0 {
		return fmt.Errorf("unknown field %s (known: %v)", Name(u[0]), allowed)
	}
	return nil
}

// Array reads raw as a JSON array and returns its elements.
func Array(raw json.RawMessage) ([]json.RawMessage, error) {
	var out []json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		return nil, fmt.Errorf("must be an array, not %s", KindOf(raw))
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("not a valid array: %w", err)
	}
	return out, nil
}

// MaxNameBytes is the longest member name Name quotes.
const MaxNameBytes = 32

// Name quotes s for an error message when it is a short identifier-like string (letters, digits,
// '_', '-', '.', at most MaxNameBytes), and otherwise says only how long it is.
func Name(s string) string {
	if len(s) > 0 && len(s) <= MaxNameBytes {
		ok := true
		for i := 0; i < len(s); i++ {
			if !IsNameByte(s[i]) {
				ok = false
				break
			}
		}
		if ok {
			return strconv.Quote(s)
		}
	}
	return fmt.Sprintf("(a name of %d bytes)", len(s))
}

// IsNameByte reports whether c may appear in a name Name quotes: an ASCII letter or digit, '_',
// '-' or '.'.
func IsNameByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return c == '_' || c == '-' || c == '.'
}

// KindOf names the JSON type of raw ("a string", "an object", ...), for type errors that must not
// quote the value.
func KindOf(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// Kind names the JSON type of a decoder token.
func Kind(t json.Token) string {
	switch t.(type) {
	case json.Delim:
		if t == json.Delim('[') {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a number"
}
