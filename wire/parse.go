package wire

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// MediaType returns the lower-cased media type of a Content-Type value without parameters; the
// raw value lower-cased and trimmed when it does not parse. It is what mime.ParseMediaType
// returns as the media type, computed as that function computes it, without parsing the
// parameters: the proxy's tap asks it of every request and response it forwards, and the
// parameters' map and strings were all a call allocated (none, now, for a lower-case type).
func MediaType(contentType string) string {
	base, _, _ := strings.Cut(contentType, ";")
	return strings.TrimSpace(strings.ToLower(base))
}

// ParseBody parses a captured body by its Content-Type: an event stream into events and the
// JSON-RPC messages their data carry, a JSON body into its one message (or each element of an
// array, noted as a batch). It never fails: what does not parse is listed in parseErrors, in
// order, and a body of another type that looks like JSON is parsed as JSON. The proxy calls it
// on tapped bodies; Exchange.Parse calls it on the prober's.
func ParseBody(contentType string, body []byte, lim Limits) (events []Event, msgs []*Message, parseErrors []string) {
	lim = lim.WithDefaults()
	if int64(len(body)) > lim.MaxBodyBytes {
		body = body[:lim.MaxBodyBytes]
		parseErrors = append(parseErrors, fmt.Sprintf("body longer than %d bytes: parsed a prefix", lim.MaxBodyBytes))
	}
	if MediaType(contentType) == ContentTypeSSE {
		evs, cut, err := ParseSSE(bytes.NewReader(body), lim)
		if cut != "" {
			parseErrors = append(parseErrors, "event stream cut by the "+cut+" limit")
		}
		if err != nil {
			parseErrors = append(parseErrors, err.Error())
		}
		for i, ev := range evs {
			m, err := DecodeMessage([]byte(ev.Data))
			if err != nil {
				parseErrors = append(parseErrors, eventError(i, err))
				continue
			}
			msgs = append(msgs, m)
		}
		return evs, msgs, parseErrors
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, nil, parseErrors
	}
	switch trimmed[0] {
	case '[':
		ms, errs := decodeBatch(trimmed)
		return nil, ms, append(parseErrors, errs...)
	default:
		m, err := DecodeMessage(trimmed)
		if err != nil {
			return nil, nil, append(parseErrors, err.Error())
		}
		return nil, []*Message{m}, parseErrors
	}
}

// eventError is the parse error recorded for an SSE event whose data is not a JSON-RPC message.
func eventError(i int, err error) string { return fmt.Sprintf("event %d: %v", i, err) }

// EventError returns why event i of a response did not decode as a JSON-RPC message, from the
// parse errors Parse or Decoded recorded, so a check that grades events reads wire's verdict
// instead of decoding the data again; false when event i decoded.
func EventError(parseErrors []string, i int) (string, bool) {
	prefix := "event " + strconv.Itoa(i) + ": "
	for _, e := range parseErrors {
		if why, ok := strings.CutPrefix(e, prefix); ok {
			return why, true
		}
	}
	return "", false
}

// BatchNote is the parse error recorded for a body that is a JSON array: the revision forbids
// batches, so a check must be able to see one.
const BatchNote = "body is a JSON array (a batch)"

func decodeBatch(body []byte) ([]*Message, []string) {
	var elems [][]byte
	i := skipSpace(body, 0)
	end, err := scanArray(body, i, 1, func(v []byte) { elems = append(elems, v) })
	if err == nil && skipSpace(body, end) != len(body) {
		err = errors.New("data after the JSON array")
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("decoding batch: %v", err)}
	}
	errs := []string{BatchNote}
	var out []*Message
	for i, e := range elems {
		m, err := DecodeMessage(e)
		if err != nil {
			errs = append(errs, fmt.Sprintf("batch element %d: %v", i, err))
			continue
		}
		out = append(out, m)
	}
	return out, errs
}

// IsBatch reports whether parseErrors record a batch body.
func IsBatch(parseErrors []string) bool {
	for _, e := range parseErrors {
		if e == BatchNote {
			return true
		}
	}
	return false
}

// Parse fills the parsed views of an exchange from its verbatim bytes: Request.Message (when
// the request body is one JSON object) and Response.Events, Messages and ParseErrors. Events
// already framed while streaming are kept and only their messages are decoded. Parse is
// idempotent; the limits bound the work on a captured body.
func (ex *Exchange) Parse(lim Limits) {
	if ex == nil {
		return
	}
	if ex.Request.Message == nil && len(bytes.TrimSpace(ex.Request.Body)) > 0 {
		if m, err := DecodeMessage(bytes.TrimSpace(ex.Request.Body)); err == nil {
			ex.Request.Message = m
		}
	}
	r := ex.Response
	if r == nil || r.parsed {
		return
	}
	r.parsed = true
	if ex.Stdio() {
		r.Messages, r.ParseErrors = parseStdioBody(r.Body)
		return
	}
	if r.Events != nil {
		for i, ev := range r.Events {
			m, err := DecodeMessage([]byte(ev.Data))
			if err != nil {
				r.ParseErrors = append(r.ParseErrors, eventError(i, err))
				continue
			}
			r.Messages = append(r.Messages, m)
		}
		return
	}
	evs, msgs, errs := ParseBody(r.Header.Get(HeaderContentType), r.Body, lim)
	r.Events, r.Messages = evs, msgs
	r.ParseErrors = append(r.ParseErrors, errs...)
}

// Decoded returns the parsed views of the response without changing it: Events, Messages and
// ParseErrors as Parse filled them, or, for a response that was never parsed (built by hand,
// replayed from a store), what Parse would fill. Checks read every response through it or
// through Parse, so no byte is decoded by anything but this package.
func (r *Response) Decoded(lim Limits) (events []Event, msgs []*Message, parseErrors []string) {
	if r == nil {
		return nil, nil, nil
	}
	if r.parsed || len(r.Messages) > 0 {
		return r.Events, r.Messages, r.ParseErrors
	}
	if r.Events != nil {
		for i, ev := range r.Events {
			m, err := DecodeMessage([]byte(ev.Data))
			if err != nil {
				parseErrors = append(parseErrors, eventError(i, err))
				continue
			}
			msgs = append(msgs, m)
		}
		return r.Events, msgs, append(append([]string(nil), r.ParseErrors...), parseErrors...)
	}
	events, msgs, parseErrors = ParseBody(r.Header.Get(HeaderContentType), r.Body, lim)
	return events, msgs, append(append([]string(nil), r.ParseErrors...), parseErrors...)
}

// ContentType is the response's media type (lower case, no parameters); empty without a response.
func (ex *Exchange) ContentType() string {
	if ex == nil || ex.Response == nil {
		return ""
	}
	return MediaType(ex.Response.Header.Get(HeaderContentType))
}

// Status is the response status, 0 when no response arrived.
func (ex *Exchange) Status() int {
	if ex == nil || ex.Response == nil {
		return 0
	}
	return ex.Response.Status
}

// Stdio reports whether the exchange travelled over the stdio binding.
func (ex *Exchange) Stdio() bool { return ex != nil && ex.Transport == TransportStdio }

// Delivered reports whether the transport delivered an answer the ordinary way, which is what a
// check means by "the request was served at the transport level": HTTP 200 over Streamable HTTP;
// over stdio, which has no status, a response message for the request. Whether that answer is a
// result or an error is the JSON-RPC layer's question (Reply).
func (ex *Exchange) Delivered() bool {
	if ex.Stdio() {
		return ex.Reply() != nil
	}
	return ex.Status() == http.StatusOK
}

// Reply returns the JSON-RPC response to the request (the message whose id equals the
// request's), else the first response message, else nil.
func (ex *Exchange) Reply() *Message {
	if ex == nil || ex.Response == nil {
		return nil
	}
	var first *Message
	var want string
	if ex.Request.Message != nil {
		want = ex.Request.Message.IDString()
	}
	for _, m := range ex.Response.Messages {
		if !m.IsResponse() {
			continue
		}
		if want != "" && m.IDString() == want {
			return m
		}
		if first == nil {
			first = m
		}
	}
	return first
}

// ErrorCode returns the JSON-RPC error code of the reply and true when the reply is an error.
func (ex *Exchange) ErrorCode() (int, bool) { return ex.Reply().ErrorCode() }

// Summary describes the exchange in one line for an outcome's Observed text: what was sent and
// what came back, e.g. `POST tools/call → 400 application/json error -32020`.
func (ex *Exchange) Summary() string {
	if ex == nil {
		return "no exchange"
	}
	if ex.Stdio() {
		return ex.stdioSummary()
	}
	var b strings.Builder
	b.WriteString(ex.Request.Method)
	if m := ex.Request.Message; m != nil && m.Method != "" {
		b.WriteString(" " + m.Method)
	} else if len(ex.Request.Body) > 0 {
		fmt.Fprintf(&b, " (%d-byte body)", len(ex.Request.Body))
	}
	b.WriteString(" → ")
	if ex.Response == nil {
		b.WriteString("no response")
		if ex.Err != "" {
			b.WriteString(" (" + ex.Err + ")")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%d", ex.Response.Status)
	if ct := ex.ContentType(); ct != "" {
		b.WriteString(" " + ct)
	}
	if m := ex.Reply(); m != nil {
		if m.Error != nil {
			fmt.Fprintf(&b, " error %d", m.Error.Code)
		} else if rt := m.ResultType(); rt != "" {
			b.WriteString(" result " + rt)
		} else {
			b.WriteString(" result")
		}
	} else if len(ex.Response.Body) == 0 {
		b.WriteString(" empty body")
	}
	switch {
	case ex.Response.Truncated && ex.Response.TruncatedBy == TruncatedUntil:
		b.WriteString(" (read until the awaited message)")
	case ex.Response.Truncated:
		b.WriteString(" (cut by " + ex.Response.TruncatedBy + " limit)")
	}
	return b.String()
}
