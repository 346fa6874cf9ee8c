package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
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
	// params and result are split in the same pass as the message (each split once, never
	// scanned twice): the last of each, as fields keeps the last value of a key given twice.
	ms := &messageSplit{}
	fields, strict, err := splitObjectNested(raw, ms.nested)
	if err == nil && strict != nil {
		err = strict
	}
	if err != nil {
		return nil, err
	}
	m := &Message{Raw: json.RawMessage(raw)}
	for k, v := range fields {
		switch k {
		case "jsonrpc":
			s, ok := stringOrNull(v)
			if !ok {
				return nil, errors.New("decoding member jsonrpc: not a string")
			}
			m.JSONRPC = s
		case "id":
			m.ID = v
		case "method":
			s, ok := stringOrNull(v)
			if !ok {
				return nil, errors.New("decoding member method: not a string")
			}
			m.Method = s
			if m.Method == "" {
				return nil, errors.New("decoding member method: empty method name")
			}
		case "params":
			m.Params = v
			m.params = ms.params.membersOf(v)
		case "result":
			m.Result = v
			m.result = ms.result.membersOf(v)
		case "error":
			m.Error = decodeError(v)
		}
	}
	return m, nil
}

// stringOrNull reads a string member as encoding/json reads one into a string: null leaves it
// empty.
func stringOrNull(v []byte) (string, bool) {
	if string(v) == "null" {
		return "", true
	}
	return String(v)
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
// case-variant twins of a key, and anything after the object. Values are slices of raw.
func decodeObject(raw []byte) (map[string]json.RawMessage, error) {
	fields, strict, err := splitObject(raw)
	if err != nil {
		return nil, err
	}
	if strict != nil {
		return nil, strict
	}
	return fields, nil
}

// splitObject reads one JSON object in one pass. err is a syntax error, or ErrNotObject for
// another JSON value; fields are then nil. Otherwise fields are its members (a key present twice
// keeps its last value, as encoding/json reads it), and strict says why DecodeMessage's exact
// reading rejects the object (a key twice, a case-variant twin), nil when it does not.
func splitObject(raw []byte) (fields map[string]json.RawMessage, strict, err error) {
	return splitObjectNested(raw, nil)
}

// splitObjectNested is splitObject, seeing into the members nested names in the same pass (see
// scanObjectNested).
func splitObjectNested(raw []byte, nested func(key []byte) *objectSplit) (fields map[string]json.RawMessage, strict, err error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return nil, nil, fmt.Errorf("reading JSON: %w", io.EOF)
	}
	if raw[i] != '{' {
		if _, err := scanValue(raw, i, 0); err != nil {
			return nil, nil, fmt.Errorf("reading JSON: %w", err)
		}
		return nil, nil, ErrNotObject
	}
	var s objectSplit
	s.init()
	end, err := scanObjectNested(raw, i, 1, s.add, nested)
	if err != nil {
		return nil, nil, fmt.Errorf("reading JSON object: %w", err)
	}
	if skipSpace(raw, end) != len(raw) {
		return nil, nil, errors.New("data after the JSON object")
	}
	return s.fields, s.strict, nil
}

// objectSplit gathers one object's members as a scan meets them, and why the exact reading
// rejects the object (see splitObject).
type objectSplit struct {
	fields map[string]json.RawMessage
	strict error
	// Case-variant twins: the keys seen so far, compared in letter case (a short list for the
	// few members a message has, a map past that).
	seen   [8]string
	nseen  int // how many of seen are set (a count, not a slice of seen: s would escape)
	folded map[string]string
}

func (s *objectSplit) init() {
	s.fields = make(map[string]json.RawMessage, 8)
}

// add takes one member: q is its quoted key, v its value.
func (s *objectSplit) add(q, v []byte) error {
	key := unquote(q)
	if _, dup := s.fields[key]; dup && s.strict == nil {
		s.strict = fmt.Errorf("member %q appears twice", key)
	}
	s.fields[key] = v
	if s.strict != nil {
		return nil
	}
	if s.folded == nil && s.nseen < len(s.seen) {
		for _, prev := range s.seen[:s.nseen] {
			if prev != key && sameLower(prev, key) {
				s.strict = fmt.Errorf("member %q %s %q: ambiguous", key, messageFieldsCaseFoldNote, prev)
				return nil
			}
		}
		s.seen[s.nseen] = key
		s.nseen++
		return nil
	}
	if s.folded == nil {
		s.folded = make(map[string]string, 2*len(s.seen))
		for _, k := range s.seen[:s.nseen] {
			s.folded[strings.ToLower(k)] = k
		}
	}
	low := key
	for k := 0; k < len(key); k++ {
		if c := key[k]; c >= 0x80 || ('A' <= c && c <= 'Z') {
			low = strings.ToLower(key)
			break
		}
	}
	if prev, twin := s.folded[low]; twin && prev != key {
		s.strict = fmt.Errorf("member %q %s %q: ambiguous", key, messageFieldsCaseFoldNote, prev)
	}
	s.folded[low] = key
	return nil
}

// messageSplit is where DecodeMessage's one pass gathers params and result (one allocation
// for both).
type messageSplit struct {
	params, result objectSplit
}

// nested sees into params and result; a key given twice starts its split afresh, so the split
// is of the last value, as fields keeps it (and the exact reading rejects the message anyway).
func (ms *messageSplit) nested(q []byte) *objectSplit {
	var s *objectSplit
	switch string(q) {
	case `"params"`:
		s = &ms.params
	case `"result"`:
		s = &ms.result
	default:
		return nil
	}
	*s = objectSplit{}
	s.init()
	return s
}

// membersOf is the split of v that s gathered in the message's own pass, or v split afresh
// when s saw none (v is not an object).
func (s *objectSplit) membersOf(v []byte) *members {
	if s.fields == nil {
		return splitMembers(v)
	}
	return &members{src: v, fields: s.fields, strict: s.strict}
}

// sameLower reports whether strings.ToLower(a) == strings.ToLower(b), without lowering either
// when both are ASCII (camelCase keys would otherwise cost a copy each).
func sameLower(a, b string) bool {
	for k := 0; k < len(a); k++ {
		if a[k] >= 0x80 {
			return strings.ToLower(a) == strings.ToLower(b) //nolint:staticcheck // the rule is lower-case equality, not Unicode case folding
		}
	}
	for k := 0; k < len(b); k++ {
		if b[k] >= 0x80 {
			return strings.ToLower(a) == strings.ToLower(b) //nolint:staticcheck // the rule is lower-case equality, not Unicode case folding
		}
	}
	if len(a) != len(b) {
		return false
	}
	for k := 0; k < len(a); k++ {
		x, y := a[k], b[k]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// members is params or result split once, by DecodeMessage, for every reader to share.
type members struct {
	src    []byte // the bytes split: a message whose Params or Result changed since re-splits
	fields map[string]json.RawMessage
	strict error // why the exact reading rejects it (see splitObject)
	err    error // not a valid JSON object
}

func splitMembers(src []byte) *members {
	f, strict, err := splitObject(src)
	return &members{src: src, fields: f, strict: strict, err: err}
}

// of returns the split of src: ms when it was made from these very bytes, else a new one.
func (ms *members) of(src []byte) *members {
	if ms.isOf(src) {
		return ms
	}
	return splitMembers(src)
}

// isOf reports whether ms was split from these very bytes (the same slice, not merely equal
// bytes): a Result replaced after decoding is split afresh.
func (ms *members) isOf(src []byte) bool {
	return ms != nil && len(ms.src) == len(src) && (len(src) == 0 || &ms.src[0] == &src[0])
}

// resultMemo is the split of a Result that DecodeMessage did not split (a message built by hand,
// or one whose Result was replaced), made once on first use for every accessor after it: a
// large tools/list result would otherwise be tokenised again by each of them.
type resultMemo struct {
	mu sync.Mutex
	ms *members
}

// resultMembers is the split of Result: DecodeMessage's when Result is still what it split (no
// lock: that split is never written after decoding), else the memo's, made once per Result.
func (m *Message) resultMembers() *members {
	if m.result.isOf(m.Result) {
		return m.result
	}
	m.res.mu.Lock()
	defer m.res.mu.Unlock()
	if !m.res.ms.isOf(m.Result) {
		m.res.ms = splitMembers(m.Result)
	}
	return m.res.ms
}

// ParamsMembers returns the members of params, each a slice of the message's bytes; nil when params is
// absent or not a valid object. A key present twice keeps its last value (use ParamField for the
// exact reading). The split is made once, when the message is decoded.
func (m *Message) ParamsMembers() map[string]json.RawMessage {
	if m == nil || m.Params == nil {
		return nil
	}
	return m.params.of(m.Params).fields
}

// ResultMembers is ParamsMembers for result.
func (m *Message) ResultMembers() map[string]json.RawMessage {
	if m == nil || m.Result == nil {
		return nil
	}
	return m.resultMembers().fields
}

// exact returns the members of src read exactly (nil when a key appears twice or in two cases).
func exact(ms *members) map[string]json.RawMessage {
	if ms.err != nil || ms.strict != nil {
		return nil
	}
	return ms.fields
}

// Meta returns the members of params._meta (for a request or notification) or result._meta (for
// a result), with exact keys; nil when there is none or it is not an object.
func (m *Message) Meta() map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if m.IsResponse() {
		obj = exact(m.resultMembers())
	} else {
		obj = exact(m.params.of(m.Params))
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
	return String(v)
}

// ParamField returns one member of params (exact key); nil when absent.
func (m *Message) ParamField(name string) json.RawMessage {
	if m == nil {
		return nil
	}
	return exact(m.params.of(m.Params))[name]
}

// ResultField returns one member of result (exact key); nil when absent or not an object.
func (m *Message) ResultField(name string) json.RawMessage {
	if m == nil {
		return nil
	}
	return exact(m.resultMembers())[name]
}

// ResultString returns a string member of result and whether it was one.
func (m *Message) ResultString(name string) (string, bool) {
	if v := m.ResultField(name); v != nil {
		return String(v)
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
	obj := exact(m.resultMembers())
	if obj == nil {
		return false
	}
	raw, present := obj["resultType"]
	if !present {
		return true
	}
	rt, ok := String(raw)
	return ok && rt == "complete"
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
