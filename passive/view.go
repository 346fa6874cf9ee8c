package passive

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/mcp-sentinel/sentinel/wire"
)

// view is one exchange decoded once for all checks: the request message and its _meta, the
// response messages in order, and which of them answers the request. Checks read the view, never
// the raw bytes, so a body is parsed once per Run whatever the number of checks.
type view struct {
	ex *wire.Exchange
	// req is the request's JSON-RPC message; nil when the body was not one JSON object.
	req *wire.Message
	// reqParams are the request's params members (exact, case-sensitive keys); nil when absent.
	reqParams map[string]json.RawMessage
	// reqMeta is params._meta; nil when absent or not an object.
	reqMeta map[string]json.RawMessage
	// msgs are the JSON-RPC messages the response carried, in order.
	msgs []*wire.Message
	// sse is true when the response was an event stream.
	sse bool
	// status is the HTTP status, 0 when no response arrived.
	status int
	// final is the response message answering req (same id), or the only response message.
	final *wire.Message
	// finalIndex is final's index in msgs, -1 when there is none.
	finalIndex int
	// res and caps memoise result() and clientCapabilities(): most checks read them.
	res, caps       map[string]json.RawMessage
	resDone, capsOK bool
	// toolRaws and toolObjs memoise tools(): four checks read a tools/list result.
	toolRaws  []json.RawMessage
	toolObjs  []map[string]json.RawMessage
	toolsDone bool
	// contentRaws and contentObjs memoise content(): two checks read a tools/call result's
	// content blocks.
	contentRaws []json.RawMessage
	contentObjs []map[string]json.RawMessage
	contentDone bool
	// events are the SSE events, framed once (by wire).
	events []wire.Event
	// parseErrors are what wire could not parse in the response, in order.
	parseErrors []string
}

// newView decodes ex. It never fails: what cannot be parsed is simply absent from the view.
func newView(ex *wire.Exchange) *view {
	v := &view{ex: ex, finalIndex: -1}
	if ex == nil {
		return v
	}
	v.req = ex.Request.Message
	if v.req == nil && len(bytes.TrimSpace(ex.Request.Body)) > 0 {
		if m, err := wire.DecodeMessage(bytes.TrimSpace(ex.Request.Body)); err == nil {
			v.req = m
		}
	}
	if v.req != nil && len(v.req.Params) > 0 {
		// wire split params when it decoded the message; the view shares that split.
		v.reqParams = v.req.ParamsMembers()
		if m, ok := v.reqParams["_meta"]; ok {
			v.reqMeta = decodeObject(m)
		}
	}
	if ex.Response == nil {
		return v
	}
	v.status = ex.Response.Status
	// One decoder: the events and messages are wire's, parsed once by the prober or the proxy,
	// or here through wire for an exchange built by hand. A reply wire rejects (a key twice) is
	// not graded as if it said something.
	v.events, v.msgs, v.parseErrors = ex.Response.Decoded(wire.Limits{})
	v.sse = isEventStream(ex.Response.Header) || len(v.events) > 0
	for i, m := range v.msgs {
		if !m.IsResponse() {
			continue
		}
		if v.req != nil && sameID(m.ID, v.req.ID) {
			v.final, v.finalIndex = m, i
			break
		}
		if v.final == nil {
			v.final, v.finalIndex = m, i
		}
	}
	return v
}

// method is the request's JSON-RPC method, "" when the request was not a JSON-RPC message.
func (v *view) method() string {
	if v.req == nil {
		return ""
	}
	return v.req.Method
}

// isRequest reports whether the client sent a JSON-RPC request (method and id).
func (v *view) isRequest() bool { return v.req.IsRequest() }

// result decodes the final response's result object; nil when there is none or it is not an object.
func (v *view) result() map[string]json.RawMessage {
	if v.resDone {
		return v.res
	}
	v.resDone = true
	if v.final != nil && v.final.Result != nil {
		v.res = v.final.ResultMembers()
	}
	return v.res
}

// tools decodes result.tools once for every check that reads it: the elements as they were
// (nil when tools is not an array) and each decoded as an object (nil for one that is not).
// Checks read the maps and never modify them.
func (v *view) tools() ([]json.RawMessage, []map[string]json.RawMessage) {
	if !v.toolsDone {
		v.toolsDone = true
		v.toolRaws = decodeArray(v.result()["tools"])
		v.toolObjs = make([]map[string]json.RawMessage, len(v.toolRaws))
		for i, raw := range v.toolRaws {
			v.toolObjs[i] = decodeObject(raw)
		}
	}
	return v.toolRaws, v.toolObjs
}

// content decodes result.content once for every check that reads it, as tools does for
// result.tools: the elements (nil when content is not an array) and each decoded as an object
// (nil for one that is not). Checks read the maps and never modify them.
func (v *view) content() ([]json.RawMessage, []map[string]json.RawMessage) {
	if !v.contentDone {
		v.contentDone = true
		v.contentRaws = decodeArray(v.result()["content"])
		v.contentObjs = make([]map[string]json.RawMessage, len(v.contentRaws))
		for i, raw := range v.contentRaws {
			v.contentObjs[i] = decodeObject(raw)
		}
	}
	return v.contentRaws, v.contentObjs
}

// resultType returns the final result's resultType string and whether it was present.
func (v *view) resultType() (string, bool) {
	r := v.result()
	if r == nil {
		return "", false
	}
	raw, ok := r["resultType"]
	if !ok {
		return "", false
	}
	s, _ := wire.String(raw)
	return s, true
}

// complete reports whether the exchange ended in a final result: resultType "complete", or a
// result with no resultType at all. The latter is what a 2025-era server returns (its results
// are always final); result-type-present fails it on its own, and the content, caching and list
// rules still grade what it carries instead of letting the omission hide every other failure.
func (v *view) complete() bool { return v.final.Completed() }

// errorCode returns the final response's JSON-RPC error code and whether there was an error.
func (v *view) errorCode() (int, bool) {
	if v.final == nil || v.final.Error == nil {
		return 0, false
	}
	return v.final.Error.Code, true
}

// notifications returns the response's notifications, in order.
func (v *view) notifications() []*wire.Message {
	var out []*wire.Message
	for _, m := range v.msgs {
		if m.IsNotification() {
			out = append(out, m)
		}
	}
	return out
}

// clientCapabilities decodes the request's declared client capabilities; nil when undeclared.
func (v *view) clientCapabilities() map[string]json.RawMessage {
	if !v.capsOK {
		v.capsOK = true
		v.caps = decodeObject(v.reqMeta[metaClientCapabilities])
	}
	return v.caps
}

// reqParamString returns a string member of the request's params.
func (v *view) reqParamString(key string) (string, bool) {
	return stringOf(v.reqParams[key])
}

// sseEvents returns the response's events, as wire framed them.
func (v *view) sseEvents() []wire.Event { return v.events }

// memoMinBytes is the size from which decodeObject and decodeArray memoise: a tools/list result
// and its tool definitions are decoded by many checks on every copy of the list a scan or a
// proxy sees, while small values cost less to decode than to look up.
const memoMinBytes = 128

// objectMemo and arrayMemo remember the decodings of large values. The maps and slices they hand
// out are shared: checks read them and never modify them.
var (
	objectMemo = newMemo[map[string]json.RawMessage](16384, 32<<20)
	arrayMemo  = newMemo[[]json.RawMessage](1024, 32<<20)
)

// decodeObject returns the members of a JSON object, read by wire's scanner (one pass, values
// are slices of the bytes read); nil when b is not an object. A key twice keeps its last value.
// The map of a large value is shared with other callers (memoised): never modify it.
func decodeObject(b []byte) map[string]json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	if len(b) >= memoMinBytes {
		return objectMemo.getBytes(b, wire.Object)
	}
	return wire.Object(b)
}

// decodeArray returns the elements of a JSON array (wire's scanner, slices of the bytes read);
// nil when b is not an array. The slice of a large value is shared (memoised): never modify it.
func decodeArray(b []byte) []json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		return nil
	}
	if len(b) >= memoMinBytes {
		// Clipped, so that a caller's append copies instead of writing into a shared array.
		return arrayMemo.getBytes(b, func(b []byte) []json.RawMessage { return slices.Clip(wire.Array(b)) })
	}
	return wire.Array(b)
}

// stringOf decodes a JSON string.
func stringOf(b json.RawMessage) (string, bool) { return wire.String(b) }

// intOf decodes a JSON integer (no fraction, no exponent; null is not one).
func intOf(b json.RawMessage) (int, bool) { return wire.Int(b) }

// sameID compares two raw JSON-RPC ids by value: 1 and 1 match, "1" and 1 do not.
func sameID(a, b json.RawMessage) bool { return wire.SameID(a, b) }

// isEventStream reports whether the header's Content-Type is text/event-stream.
func isEventStream(h http.Header) bool { return mediaType(h) == "text/event-stream" }

// mediaType is the Content-Type's media type, lower-cased, without parameters.
func mediaType(h http.Header) string { return wire.MediaType(h.Get("Content-Type")) }

// clip shortens evidence quoted in an outcome so a hostile peer cannot flood a report.
func clip(s string) string {
	const max = 160
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// clipBytes is clip(string(b)) without converting more of b than clip keeps: a body of
// megabytes quoted in an Observed text costs its first bytes, not a copy of it all.
func clipBytes(b []byte) string {
	const max = 160
	if len(b) > max+1 {
		b = b[:max+1] // clip looks no further than b[max]
	}
	return clip(string(b))
}

// utf8Start reports whether b can begin a UTF-8 sequence.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
