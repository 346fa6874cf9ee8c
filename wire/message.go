package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Meta keys of the 2026-07-28 revision.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// JSON-RPC and MCP error codes a check compares against.
const (
	CodeParseError            = -32700
	CodeInvalidRequest        = -32600
	CodeMethodNotFound        = -32601
	CodeInvalidParams         = -32602
	CodeInternalError         = -32603
	CodeHeaderMismatch        = -32020
	CodeMissingCapability     = -32021
	CodeUnsupportedVersion    = -32022
	ProtocolVersion           = "2026-07-28"
	JSONRPCVersion            = "2.0"
	messageFieldsCaseFoldNote = "differs only in letter case from a JSON-RPC member"
)

// ErrNotObject is returned by DecodeMessage for a body that is valid JSON but not an object.
var ErrNotObject = errors.New("not a JSON object")

// DecodeMessage decodes one JSON-RPC message case-sensitively: "METHOD" is not "method". It
// rejects what a case-insensitive or last-wins decoder would read differently from a
// case-sensitive one: a key present twice, or a member name that differs from a JSON-RPC member
// only in letter case alongside it. It keeps raw verbatim in Message.Raw. A member of the wrong
// JSON type (a numeric method, a string error) is an error too.
func DecodeMessage(raw []byte) (*Message, error) {
	fields, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	m := &Message{Raw: json.RawMessage(raw)}
	for k, v := range fields {
		switch k {
		case "jsonrpc":
			if err := json.Unmarshal(v, &m.JSONRPC); err != nil {
				return nil, fmt.Errorf("decoding member jsonrpc: %w", err)
			}
		case "id":
			m.ID = v
		case "method":
			if err := json.Unmarshal(v, &m.Method); err != nil {
				return nil, fmt.Errorf("decoding member method: %w", err)
			}
			if m.Method == "" {
				return nil, errors.New("decoding member method: empty method name")
			}
		case "params":
			m.Params = v
		case "result":
			m.Result = v
		case "error":
			m.Error = decodeError(v)
		}
	}
	return m, nil
}

// decodeError reads an error member. It never fails: an error member of the wrong shape (not an
// object, no integer code, a message that is not a string) is kept with what could be read and
// Problem saying what is wrong, because error-object-shape grades exactly that, and a message
// dropped here would never reach it.
func decodeError(raw []byte) *Error {
	e := &Error{}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		e.Problem = "error is null"
		return e
	}
	fields, err := decodeObject(raw)
	if err != nil {
		e.Problem = fmt.Sprintf("error is not an object: %v", err)
		return e
	}
	e.Data = fields["data"]
	if v, ok := fields["message"]; ok {
		if json.Unmarshal(v, &e.Message) != nil {
			e.Problem = "error message is not a string"
		}
	} else {
		e.Problem = "error object has no message"
	}
	v, ok := fields["code"]
	if !ok {
		e.Problem = "error object has no code"
		return e
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		e.Problem = fmt.Sprintf("error code %s is not a number", clipJSON(v))
		return e
	}
	if f != float64(int(f)) {
		e.Problem = fmt.Sprintf("error code %v is not an integer", f)
		return e
	}
	e.Code = int(f)
	return e
}

// clipJSON quotes at most 40 bytes of a raw value for a Problem text.
func clipJSON(v json.RawMessage) string {
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}

// decodeObject reads one JSON object into its members with exact keys, rejecting duplicate keys,
// case-variant twins of a key, and anything after the object.
func decodeObject(raw []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("reading JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ErrNotObject
	}
	fields := map[string]json.RawMessage{}
	folded := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("reading member name: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("member name %v is not a string", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("reading member %q: %w", key, err)
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("member %q appears twice", key)
		}
		low := strings.ToLower(key)
		if prev, twin := folded[low]; twin {
			return nil, fmt.Errorf("member %q %s %q: ambiguous", key, messageFieldsCaseFoldNote, prev)
		}
		folded[low] = key
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("reading end of object: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON object")
	}
	return fields, nil
}

// Meta returns the members of params._meta (for a request or notification) or result._meta (for
// a result), with exact keys; nil when there is none or it is not an object.
func (m *Message) Meta() map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	var err error
	if m.IsResponse() {
		obj, err = m.resultObject()
	} else {
		obj, err = decodeObject(m.Params)
	}
	if err != nil {
		return nil
	}
	meta, err := decodeObject(obj["_meta"])
	if err != nil {
		return nil
	}
	return meta
}

// HasMeta reports whether the message carries a _meta object at all.
func (m *Message) HasMeta() bool { return m.Meta() != nil }

// MetaString returns a string member of _meta, and whether it was present as a string.
func (m *Message) MetaString(key string) (string, bool) {
	v, ok := m.Meta()[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// ParamField returns one member of params (exact key); nil when absent.
func (m *Message) ParamField(name string) json.RawMessage {
	if m == nil {
		return nil
	}
	obj, err := decodeObject(m.Params)
	if err != nil {
		return nil
	}
	return obj[name]
}

// ResultField returns one member of result (exact key); nil when absent or not an object.
func (m *Message) ResultField(name string) json.RawMessage {
	if m == nil {
		return nil
	}
	obj, err := m.resultObject()
	if err != nil {
		return nil
	}
	return obj[name]
}

// ResultString returns a string member of result and whether it was one.
func (m *Message) ResultString(name string) (string, bool) {
	var s string
	if v := m.ResultField(name); v != nil && json.Unmarshal(v, &s) == nil {
		return s, true
	}
	return "", false
}

// ResultType is result.resultType, empty when absent.
func (m *Message) ResultType() string {
	s, _ := m.ResultString("resultType")
	return s
}

// Completed reports whether m is the final answer to a request: a result (no error) whose
// resultType is "complete" or absent. An absent resultType is what a 2025-era server sends, and
// its results are always final; result-type-present fails the omission on its own, but the call
// completed all the same. An input_required result, an unknown resultType and an error are not
// completions. This is the one meaning of "the call completed" every check and probe uses: a
// server that accepted tampered state and omitted resultType on the retry completed the call.
func (m *Message) Completed() bool {
	if m == nil || m.Error != nil || m.Result == nil || m.Method != "" {
		return false
	}
	obj, err := m.resultObject()
	if err != nil {
		return false
	}
	raw, present := obj["resultType"]
	if !present {
		return true
	}
	var rt string
	return json.Unmarshal(raw, &rt) == nil && rt == "complete"
}

// ErrorCode returns the JSON-RPC error code and true when m is an error response whose code
// could be read (an error member with a Problem has no code to compare).
func (m *Message) ErrorCode() (int, bool) {
	if m == nil || m.Error == nil || m.Error.Problem != "" && m.Error.Code == 0 {
		return 0, false
	}
	return m.Error.Code, true
}

// IDString is the id as it appeared on the wire (e.g. `7` or `"a"`), empty when absent.
func (m *Message) IDString() string {
	if m == nil {
		return ""
	}
	return string(bytes.TrimSpace(m.ID))
}

// Decode unmarshals raw JSON into v; a helper for checks that want a typed view of a result.
func Decode(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return errors.New("decoding JSON: empty")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decoding JSON: %w", err)
	}
	return nil
}
