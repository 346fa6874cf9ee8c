// Package wire is Sentinel's model of MCP on the wire: one observed request and its response, kept
// as the bytes that crossed the wire and parsed forgivingly (bad JSON, SSE framing, base64 header
// values, stdio lines) so checks can judge exactly what a peer said. Over Streamable HTTP an
// exchange is an HTTP request and its response; over stdio it is a request line and the lines the
// server sent for it (stdio_*.go frame, decode and pair them). It is used by the active prober,
// the proxy and the stdio shim alike.
//
// wire is a leaf: it imports nothing of Sentinel's. It never re-marshals captured bytes onto the
// wire, every read has a byte cap, an event cap and a deadline, and hitting a cap is recorded
// (Truncated) rather than failing silently.
package wire

import (
	"encoding/json"
	"net/http"
	"time"
)

// TransportStdio is Exchange.Transport for an exchange that travelled over the stdio binding.
const TransportStdio = "stdio"

// Exchange is one request to an MCP server and what came back. Passive checks are pure functions
// over an Exchange; the prober, the proxy and the shim build them.
type Exchange struct {
	// Transport is empty for Streamable HTTP and TransportStdio for stdio. A stdio exchange has
	// no HTTP method, URL, headers or status: Request.Body is the request line, Response.Body the
	// server's lines for it joined by newlines, Response.Messages their messages.
	Transport string `json:"transport,omitempty"`
	// ID identifies the exchange within one scan or one proxy run (stable, human-readable).
	ID string `json:"id"`
	// Target is the endpoint URL the request was sent to (no credentials).
	Target string `json:"target"`
	// Started is when the request was sent; Duration is until the response body was read or cut.
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNs"`
	// Request is what the client sent.
	Request Request `json:"request"`
	// Response is what the server answered; nil when no response arrived (see Err).
	Response *Response `json:"response,omitempty"`
	// Err describes a transport failure (refused, reset, timeout) when Response is nil or cut.
	Err string `json:"error,omitempty"`
}

// Request is the client side of an exchange.
type Request struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header http.Header `json:"header"`
	// Body is the request body verbatim (possibly truncated when captured by the proxy).
	Body json.RawMessage `json:"body,omitempty"`
	// Truncated is true when Body holds only a prefix of what was sent.
	Truncated bool `json:"truncated,omitempty"`
	// Message is the parsed JSON-RPC message when Body is one JSON object; nil otherwise.
	Message *Message `json:"-"`
}

// Response is the server side of an exchange.
type Response struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	// Body is the response body verbatim up to the byte cap.
	Body []byte `json:"body,omitempty"`
	// Truncated is true when a cap (bytes, events or the deadline) cut the body short.
	Truncated bool `json:"truncated,omitempty"`
	// TruncatedBy names the cap that cut the body: "bytes", "events" or "deadline".
	TruncatedBy string `json:"truncatedBy,omitempty"`
	// Events are the SSE events, in order, when the body was an event stream.
	Events []Event `json:"events,omitempty"`
	// Messages are the JSON-RPC messages the body carried: the one JSON object, or each SSE
	// event's data that parsed as JSON-RPC, in order.
	Messages []*Message `json:"-"`
	// ParseErrors lists what could not be parsed (invalid JSON, a bad SSE line), in order.
	ParseErrors []string `json:"parseErrors,omitempty"`
	// parsed is set once Parse has filled Messages, so Parse stays idempotent.
	parsed bool
}

// Event is one Server-Sent Event as framed on the wire.
type Event struct {
	ID    string `json:"id,omitempty"`
	Event string `json:"event,omitempty"`
	Data  string `json:"data"`
	Retry string `json:"retry,omitempty"`
}

// Message is a JSON-RPC 2.0 message decoded case-sensitively, with the raw bytes kept. Which of
// the fields are set tells the kind: a request has Method and ID, a notification Method and no ID,
// a response Result or Error and an ID.
type Message struct {
	Raw     json.RawMessage `json:"-"`
	JSONRPC string          `json:"jsonrpc"`
	// ID is the raw id (a JSON string or number); nil when absent, "null" when explicitly null.
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Problem says what is wrong with the error member's shape (no integer code, no string
	// message, not an object); empty for a well-formed error object. Code is then only what
	// could be read, 0 when none.
	Problem string `json:"-"`
}

// IsRequest reports whether m is a request (a method and an id).
func (m *Message) IsRequest() bool { return m != nil && m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification (a method and no id).
func (m *Message) IsNotification() bool { return m != nil && m.Method != "" && m.ID == nil }

// IsResponse reports whether m is a response (a result or an error, no method).
func (m *Message) IsResponse() bool {
	return m != nil && m.Method == "" && (m.Result != nil || m.Error != nil)
}
