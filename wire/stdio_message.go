package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

// Direction says which way a stdio line travelled.
type Direction string

// The two directions of a stdio connection.
const (
	// ToServer is a line the client wrote to the server's stdin.
	ToServer Direction = "client→server"
	// ToClient is a line the server wrote to its stdout.
	ToClient Direction = "server→client"
)

// LineProblem classifies why a stdio line is not one valid MCP message. Checks and reports branch
// on the kind, never on the prose of Frame.Detail.
type LineProblem string

// The ways a stdio line can fail to be one MCP message. The empty LineProblem means it is one.
const (
	// ProblemNone: the line is one JSON-RPC 2.0 request, notification or response.
	ProblemNone LineProblem = ""
	// ProblemEmpty: a blank line (nothing, or only whitespace, between two newlines).
	ProblemEmpty LineProblem = "empty"
	// ProblemTooLong: the line passed the reader's byte cap and was not decoded.
	ProblemTooLong LineProblem = "too-long"
	// ProblemNotUTF8: the line is not valid UTF-8.
	ProblemNotUTF8 LineProblem = "not-utf8"
	// ProblemSplit: the line is the start of a JSON value that the newline cut short, or the
	// continuation of one — a message with an embedded newline (pretty-printed JSON, say).
	ProblemSplit LineProblem = "split"
	// ProblemNotJSON: the line is not JSON at all (a log line on stdout, a banner).
	ProblemNotJSON LineProblem = "not-json"
	// ProblemBatch: a JSON array; stdio carries exactly one message per line, and 2026-07-28 has
	// no batches.
	ProblemBatch LineProblem = "batch"
	// ProblemNotObject: JSON, but a string, number, literal — not a message object.
	ProblemNotObject LineProblem = "not-object"
	// ProblemNotJSONRPC: an object that is not a JSON-RPC 2.0 message (no "jsonrpc":"2.0", no
	// method and no result or error, a member of the wrong type, a duplicate member).
	ProblemNotJSONRPC LineProblem = "not-jsonrpc"
)

// Frame is one stdio line, decoded once, with where and when it was seen. The prober, the shim
// and the passive checks all read stdio traffic as Frames.
type Frame struct {
	// Seq numbers the frames of one connection in the order they were read, both directions
	// together, from 1.
	Seq int64 `json:"seq"`
	// Dir is which way the line travelled.
	Dir Direction `json:"dir"`
	// At is when the line's newline was read (the zero time when the reader keeps no clock).
	At time.Time `json:"at"`
	// Line is the line as framed (a prefix when it was too long).
	Line Line `json:"-"`
	// Message is the decoded JSON-RPC message; nil when Problem is set.
	Message *Message `json:"-"`
	// Problem classifies why the line is not one message; empty when it is.
	Problem LineProblem `json:"problem,omitempty"`
	// Detail says what the decoder found, in a sentence fit for a finding.
	Detail string `json:"detail,omitempty"`
}

// DecodeFrame decodes one stdio line into a Frame (without Seq, Dir and At, which the reader
// sets). It is the one decoder of stdio lines: a line is a message only if DecodeMessage accepts
// it as a JSON-RPC 2.0 request, notification or response. A trailing carriage return (a CRLF line
// ending) is JSON whitespace and accepted.
func DecodeFrame(l Line) Frame {
	f := Frame{Line: l}
	problem := func(p LineProblem, format string, args ...any) Frame {
		f.Problem, f.Detail = p, fmt.Sprintf(format, args...)
		return f
	}
	if l.TooLong {
		return problem(ProblemTooLong, "a %d-byte line, over the %d-byte limit of one message", l.Size, len(l.Bytes))
	}
	b := bytes.TrimSpace(l.Bytes)
	if len(b) == 0 {
		return problem(ProblemEmpty, "an empty line where a message was due")
	}
	if !utf8.Valid(l.Bytes) {
		return problem(ProblemNotUTF8, "a %d-byte line that is not valid UTF-8", l.Size)
	}
	// The common case first: one object that decodes. Only a line that does not is classified
	// further, so a well-behaved stream is parsed once.
	m, err := DecodeMessage(b)
	if err != nil {
		if !json.Valid(b) {
			if splitFragment(b) {
				return problem(ProblemSplit, "an incomplete JSON value, %s: a message with an embedded newline reaches the peer as several lines", quoteStart(b))
			}
			return problem(ProblemNotJSON, "a line that is not JSON: %s", quoteStart(b))
		}
		switch b[0] {
		case '[':
			return problem(ProblemBatch, "a JSON array (a batch); stdio carries exactly one JSON-RPC message per line")
		case '{':
			return problem(ProblemNotJSONRPC, "an object that is not a JSON-RPC message: %v", err)
		}
		return problem(ProblemNotObject, "JSON that is not an object: %s", quoteStart(b))
	}
	if m.JSONRPC != JSONRPCVersion {
		return problem(ProblemNotJSONRPC, "an object whose jsonrpc member is %q, not %q", m.JSONRPC, JSONRPCVersion)
	}
	if !m.IsRequest() && !m.IsNotification() && !m.IsResponse() {
		return problem(ProblemNotJSONRPC, "an object that is neither a request, a notification nor a response")
	}
	f.Message = m
	return f
}

// splitFragment reports whether b looks like a piece of a JSON value that a newline cut: it opens
// an object or array that it does not close, or it is the tail of one (a member line such as
// `"id": 1,` or a lone closing brace). Either way the peer wrote one value across several lines.
func splitFragment(b []byte) bool {
	switch b[0] {
	case '{', '[':
		return incompleteJSON(b)
	case '}', ']':
		return true
	case '"':
		// `"key": value,` — a member of an object whose braces are on other lines.
		rest := b[1:]
		for i := 0; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				tail := bytes.TrimSpace(rest[i+1:])
				return len(tail) > 0 && tail[0] == ':'
			}
		}
	}
	return false
}

// incompleteJSON reports whether b is a prefix of a JSON value: decoding it fails only because it
// ends too soon.
func incompleteJSON(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			// The decoder reports the end of input inside a value as io.EOF or
			// io.ErrUnexpectedEOF, and anything malformed before the end as a *json.SyntaxError.
			return depth > 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF))
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
			if depth == 0 {
				return false // a whole value, then more: two values on a line, not a cut one
			}
		}
	}
}

// quoteStart quotes the first bytes of b for a finding, so a hostile line cannot flood a report.
func quoteStart(b []byte) string {
	const max = 80
	if len(b) <= max {
		return fmt.Sprintf("%q", b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", b[:cut])
}
