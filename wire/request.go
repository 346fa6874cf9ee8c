package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
)

// RequestSpec is one raw HTTP request the prober sends. Nothing in it is validated: Body may be
// malformed JSON, a batch, or empty, and Header may lack or duplicate any header, because
// negative probes need exactly that.
type RequestSpec struct {
	// Method is the HTTP method; empty means POST.
	Method string
	// URL is the endpoint; empty means "the target's endpoint" (filled in by the sender).
	URL string
	// Header is sent as is; a Host entry replaces the Host taken from URL (DNS-rebinding probes).
	Header http.Header
	// Body is sent verbatim; nil sends no body.
	Body []byte
	// Close asks for a connection used for this request only (no reuse after it).
	Close bool
	// Label names the request in Observed texts ("tools/call without Mcp-Name"); optional.
	Label string
	// Until, when set, ends the read of an event stream as soon as it returns true for a
	// message parsed from the stream, instead of reading until the stream closes or the
	// deadline: a subscriptions/listen stream never closes by itself, and a probe that has
	// what it came for should not hold the scan. The response is then marked truncated by
	// TruncatedUntil.
	Until func(*Message) bool
}

// Clone returns a deep copy, so a probe can derive a broken variant from a well-formed request.
func (s RequestSpec) Clone() RequestSpec {
	s.Header = s.Header.Clone()
	if s.Body != nil {
		s.Body = append([]byte(nil), s.Body...)
	}
	return s
}

// ClientName and ClientVersion are what the prober reports as clientInfo.
const (
	ClientName    = "sentinel"
	ClientVersion = "0.1.0"
)

var nextID atomic.Int64

// callBuilder holds a request under construction; CallOptions edit it before it is serialised.
type callBuilder struct {
	method   string
	params   map[string]any
	meta     map[string]any
	noMeta   bool
	id       any
	noID     bool
	batch    bool
	rawBody  []byte
	httpVerb string
	header   http.Header
	drop     []string
	closeC   bool
	label    string
	until    func(*Message) bool
}

// CallOption alters one part of a request built by NewCall; each exists to break exactly one
// thing a server must validate.
type CallOption func(*callBuilder)

// WithID sets the JSON-RPC id (a string or an integer; anything else to test a server's
// handling of bad ids).
func WithID(id any) CallOption { return func(b *callBuilder) { b.id = id } }

// AsNotification drops the id, making the message a notification.
func AsNotification() CallOption { return func(b *callBuilder) { b.noID = true } }

// WithVersion sets the protocol version in both the header and _meta.
func WithVersion(v string) CallOption {
	return func(b *callBuilder) {
		b.meta[MetaProtocolVersion] = v
		b.header.Set(HeaderProtocolVersion, v)
	}
}

// WithHeader sets (replaces) a header; use it to alter a mirrored header so it no longer
// matches the body.
func WithHeader(name, value string) CallOption {
	return func(b *callBuilder) { b.header.Set(name, value) }
}

// WithRawHeader sets a header without canonicalising its name, so a probe can send e.g.
// "mcp-method" in lower case.
func WithRawHeader(name, value string) CallOption {
	return func(b *callBuilder) {
		for k := range b.header {
			if strings.EqualFold(k, name) {
				delete(b.header, k)
			}
		}
		b.header[name] = []string{value}
	}
}

// WithoutHeader removes a header (case-insensitively).
func WithoutHeader(name string) CallOption {
	return func(b *callBuilder) { b.drop = append(b.drop, name) }
}

// WithMeta sets one _meta key (any value, including a wrong type).
func WithMeta(key string, v any) CallOption { return func(b *callBuilder) { b.meta[key] = v } }

// WithoutMetaKey removes one _meta key.
func WithoutMetaKey(key string) CallOption { return func(b *callBuilder) { delete(b.meta, key) } }

// WithoutMeta sends params with no _meta object at all.
func WithoutMeta() CallOption { return func(b *callBuilder) { b.noMeta = true } }

// AsBatch wraps the message in a one-element JSON array.
func AsBatch() CallOption { return func(b *callBuilder) { b.batch = true } }

// WithRawBody replaces the serialised body with raw bytes (malformed JSON, a response, ...),
// keeping the headers of the well-formed request.
func WithRawBody(raw []byte) CallOption { return func(b *callBuilder) { b.rawBody = raw } }

// WithHTTPMethod sends the request with another HTTP method (GET, DELETE, ...). GET and DELETE
// send no body.
func WithHTTPMethod(m string) CallOption { return func(b *callBuilder) { b.httpVerb = m } }

// WithOrigin sends an Origin header.
func WithOrigin(origin string) CallOption {
	return func(b *callBuilder) { b.header.Set(HeaderOrigin, origin) }
}

// WithFreshConnection asks for a connection used by this request only.
func WithFreshConnection() CallOption { return func(b *callBuilder) { b.closeC = true } }

// ReadUntil ends the read of the answer's event stream once f returns true for a message on it
// (RequestSpec.Until), so a probe waiting for one message does not sit out its deadline.
func ReadUntil(f func(*Message) bool) CallOption { return func(b *callBuilder) { b.until = f } }

// WithLabel names the request for Observed texts.
func WithLabel(l string) CallOption { return func(b *callBuilder) { b.label = l } }

// NewCall builds a well-formed 2026-07-28 request: jsonrpc 2.0, a fresh integer id, params with
// _meta carrying protocolVersion, clientCapabilities ({}) and clientInfo, and the headers a
// conforming client sends (Content-Type, Accept listing both types, MCP-Protocol-Version,
// Mcp-Method, and Mcp-Name for tools/call, prompts/get and resources/read, base64-wrapped when
// the value needs it). opts then break whichever part a probe is testing. params is not modified.
func NewCall(method string, params map[string]any, opts ...CallOption) RequestSpec {
	b := &callBuilder{
		method: method,
		params: make(map[string]any, len(params)+1),
		meta: map[string]any{
			MetaProtocolVersion:    ProtocolVersion,
			MetaClientCapabilities: map[string]any{},
			MetaClientInfo:         map[string]any{"name": ClientName, "version": ClientVersion},
		},
		id:     nextID.Add(1),
		header: http.Header{},
	}
	for k, v := range params {
		if k == "_meta" {
			if m, ok := v.(map[string]any); ok {
				for mk, mv := range m {
					b.meta[mk] = mv
				}
				continue
			}
		}
		b.params[k] = v
	}
	b.header.Set(HeaderContentType, ContentTypeJSON)
	b.header.Set(HeaderAccept, AcceptBoth)
	b.header.Set(HeaderProtocolVersion, ProtocolVersion)
	b.header.Set(HeaderMethod, method)
	if name, ok := NameFor(method, params); ok {
		b.header.Set(HeaderName, EncodeHeaderValue(name))
	}
	for _, o := range opts {
		o(b)
	}
	return b.build()
}

// NewNotification builds a well-formed notification POST (no id).
func NewNotification(method string, params map[string]any, opts ...CallOption) RequestSpec {
	return NewCall(method, params, append([]CallOption{AsNotification()}, opts...)...)
}

// NameFor returns the value Mcp-Name mirrors for method: params.name for tools/call and
// prompts/get, params.uri for resources/read.
func NameFor(method string, params map[string]any) (string, bool) {
	key := ""
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	default:
		return "", false
	}
	s, ok := params[key].(string)
	return s, ok
}

func (b *callBuilder) build() RequestSpec {
	for _, d := range b.drop {
		for k := range b.header {
			if strings.EqualFold(k, d) {
				delete(b.header, k)
			}
		}
	}
	spec := RequestSpec{Method: http.MethodPost, Header: b.header, Close: b.closeC, Label: b.label, Until: b.until}
	if b.httpVerb != "" {
		spec.Method = b.httpVerb
	}
	if spec.Method == http.MethodGet || spec.Method == http.MethodDelete {
		return spec
	}
	if b.rawBody != nil {
		spec.Body = b.rawBody
		return spec
	}
	msg := map[string]any{"jsonrpc": JSONRPCVersion, "method": b.method}
	if !b.noID {
		msg["id"] = b.id
	}
	params := b.params
	if !b.noMeta {
		params["_meta"] = b.meta
	}
	msg["params"] = params
	var v any = msg
	if b.batch {
		v = []any{msg}
	}
	spec.Body = marshal(v)
	return spec
}

// marshal encodes without HTML escaping, so "<" in a tool argument is sent as typed.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only unsupported Go values (channels, funcs) fail; probes build plain maps.
		return []byte("null")
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}
