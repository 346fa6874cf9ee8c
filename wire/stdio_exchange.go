package wire

import (
	"bytes"
	"fmt"
	"strings"
)

// Exchange turns a correlated stdio exchange into the Exchange model the checks read: Transport
// stdio, Request.Body the request line, and — once the server sent anything for it, or when
// nothing was due (a notification) — a Response whose Body is the server's lines joined by
// newlines and whose Messages are their decoded messages, already parsed by DecodeFrame. A
// request that ended without any line from the server has no Response, and Err says why (the
// server closed stdout, the deadline passed), as a request without an answer does over HTTP.
func (x *StdioExchange) Exchange(id, target string) *Exchange {
	ex := &Exchange{
		ID: id, Target: target, Transport: TransportStdio,
		Request: Request{Body: append([]byte(nil), x.Request.Line.Bytes...), Truncated: x.Request.Line.TooLong, Message: x.Request.Message},
	}
	if !x.Request.At.IsZero() {
		ex.Started = x.Request.At
		if n := len(x.Replies); n > 0 && !x.Replies[n-1].At.IsZero() {
			ex.Duration = x.Replies[n-1].At.Sub(x.Request.At)
		}
	}
	if len(x.Replies) == 0 && x.End != EndNotification && x.End != EndResponse {
		ex.Err = stdioEndReason(x.End)
		return ex
	}
	r := &Response{parsed: true}
	lines := make([][]byte, 0, len(x.Replies))
	for _, f := range x.Replies {
		lines = append(lines, f.Line.Bytes)
		if f.Message != nil {
			r.Messages = append(r.Messages, f.Message)
		}
	}
	r.Body = bytes.Join(lines, []byte("\n"))
	if x.Truncated > 0 {
		r.Truncated, r.TruncatedBy = true, TruncatedEvents
	}
	if x.End != EndResponse && x.End != EndNotification {
		ex.Err = stdioEndReason(x.End)
	}
	if x.End == EndUntil {
		r.Truncated, r.TruncatedBy = true, TruncatedUntil
	}
	ex.Response = r
	return ex
}

// stdioEndReason says, for Exchange.Err, why a stdio exchange ended without its response.
func stdioEndReason(end string) string {
	switch end {
	case EndCancelled:
		return "the client cancelled the request"
	case EndTornDown:
		return "the server ended the subscription (notifications/cancelled)"
	case EndClosed:
		return "the server closed its stdout before answering"
	case EndEvicted:
		return "too many requests were in flight, or the id was reused, so the answer could not be attributed"
	case EndAbandoned:
		return "no answer before the deadline"
	case EndUntil:
		return ""
	}
	return "the exchange ended without a response (" + end + ")"
}

// stdioSummary is Summary for a stdio exchange: "tools/list over stdio → error -32601".
func (ex *Exchange) stdioSummary() string {
	var b strings.Builder
	if m := ex.Request.Message; m != nil && m.Method != "" {
		b.WriteString(m.Method)
	} else {
		fmt.Fprintf(&b, "a %d-byte line", len(ex.Request.Body))
	}
	b.WriteString(" over stdio → ")
	if ex.Response == nil {
		b.WriteString("no response")
		if ex.Err != "" {
			b.WriteString(" (" + ex.Err + ")")
		}
		return b.String()
	}
	switch m := ex.Reply(); {
	case m != nil && m.Error != nil:
		fmt.Fprintf(&b, "error %d", m.Error.Code)
	case m != nil && m.ResultType() != "":
		b.WriteString("result " + m.ResultType())
	case m != nil:
		b.WriteString("result")
	case ex.Request.Message != nil && ex.Request.Message.IsNotification():
		b.WriteString("nothing (a notification)")
	default:
		fmt.Fprintf(&b, "%d line(s), no response", len(ex.Response.Messages))
		if ex.Err != "" {
			b.WriteString(" (" + ex.Err + ")")
		}
	}
	if ex.Response.Truncated {
		b.WriteString(" (lines past the cap not kept)")
	}
	return b.String()
}

// parseStdioBody decodes a stored stdio response body (the server's lines for one request, joined
// by newlines, as Exchange writes it) back into its messages, through the one frame decoder; a
// line that is not a message is a parse error.
func parseStdioBody(body []byte) (msgs []*Message, parseErrors []string) {
	if len(body) == 0 {
		return nil, nil
	}
	for i, l := range bytes.Split(body, []byte("\n")) {
		f := DecodeFrame(Line{Bytes: l, Size: int64(len(l))})
		if f.Message == nil {
			parseErrors = append(parseErrors, fmt.Sprintf("line %d: %s", i+1, f.Detail))
			continue
		}
		msgs = append(msgs, f.Message)
	}
	return msgs, parseErrors
}
