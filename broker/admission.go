package broker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/internal/strictjson"
)

// Admission limits: one message on either transport (an HTTP body, a stdio line).
const (
	// MaxMessageBytes bounds one JSON-RPC message. The largest call the tools' schemas allow (a
	// 262,144-character response and 1,048,576 characters of context, 4 bytes each at worst, plus
	// ids and sources) is about 5.5 MB as UTF-8, so every schema-valid call fits; text escaped as
	// \uXXXX can exceed it before reaching the character limits, and is then refused here.
	MaxMessageBytes = 8 << 20
	// MaxMessageDepth bounds nesting; no valid broker request is nested more than a few levels.
	MaxMessageDepth = 64
	// maxIDBytes bounds a request id: it is echoed in the reply, so it must not carry a payload.
	maxIDBytes = 256
	// maxNameBytes bounds a method or tool name.
	maxNameBytes = 128
)

// ProtocolVersion is the only revision the broker serves, on both transports.
const ProtocolVersion = "2026-07-28"

// admissionError is a message the broker refuses before the SDK sees it, with the JSON-RPC error
// to send and (on HTTP) the status. Messages name what is wrong and its size, never the content.
type admissionError struct {
	id      json.RawMessage // the request's id when it could be read, else null
	code    int64
	message string
	data    json.RawMessage
	status  int
}

func (e *admissionError) Error() string { return e.message }

// reply is the JSON-RPC error response, one line of JSON.
func (e *admissionError) reply() []byte {
	id := e.id
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: e.code, Message: e.message, Data: e.data}})
	return b
}

func refuse(id json.RawMessage, code int64, format string, a ...any) *admissionError {
	status := http.StatusBadRequest
	return &admissionError{id: id, code: code, message: fmt.Sprintf(format, a...), status: status}
}

// admission is where a message came from: HTTP carries the MCP-Protocol-Version header, which a
// version mismatch is reported against before an unsupported version (as the conformance suite
// requires); stdio has no header.
type admission struct {
	http          bool
	headerVersion string
}

// admit is the broker's one admission check for a message off either transport, run before the
// SDK decodes it: size, text (UTF-8, no lone surrogates, bounded nesting), exactly one JSON-RPC
// request or notification (no batch, no response, a string or integer id, a method name), and for
// a request the 2026-07-28 envelope (params._meta with protocolVersion and clientCapabilities, the
// one version served). tools/call params are checked for shape too, so that no SDK error message
// ever has to quote what the caller sent. It returns nil or why the message is refused; stdio then
// decodes the message itself (decode), HTTP hands the bytes to the SDK, which decodes them anyway.
func (a admission) admit(raw []byte) *admissionError {
	if len(raw) > MaxMessageBytes {
		e := refuse(nil, jsonrpc.CodeInvalidRequest, "the message is %d bytes; the limit is %d", len(raw), MaxMessageBytes)
		e.status = http.StatusRequestEntityTooLarge
		return e
	}
	if err := strictjson.CheckText(raw, MaxMessageDepth); err != nil {
		var te *strictjson.TextError
		if errors.As(err, &te) && bytes.HasPrefix([]byte(te.Problem), []byte("nesting")) {
			return refuse(nil, jsonrpc.CodeInvalidRequest, "the message is not acceptable: %v", err)
		}
		return refuse(nil, jsonrpc.CodeParseError, "the message is not valid JSON text: %v", err)
	}
	if kind := strictjson.KindOf(raw); kind != "an object" {
		switch {
		case !json.Valid(raw):
			return refuse(nil, jsonrpc.CodeParseError, "the message is not valid JSON (%d bytes)", len(raw))
		case kind == "an array":
			return refuse(nil, jsonrpc.CodeInvalidRequest, "batches are not part of %s: send one request per message", ProtocolVersion)
		}
		return refuse(nil, jsonrpc.CodeInvalidRequest, "a message must be a JSON-RPC request object, not %s", kind)
	}
	env, err := strictjson.ParseObject(raw)
	switch {
	case errors.Is(err, strictjson.ErrSyntax):
		return refuse(nil, jsonrpc.CodeParseError, "the message is not valid JSON (%d bytes)", len(raw))
	case err != nil:
		return refuse(nil, jsonrpc.CodeInvalidRequest, "the message is not a JSON-RPC object: %v", err)
	}
	id, idErr := requestID(env)
	if idErr != nil {
		return idErr
	}
	return a.checkEnvelope(env, id)
}

// decode turns an admitted message into the SDK's message.
func decode(raw []byte) (jsonrpc.Message, *admissionError) {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, refuse(nil, jsonrpc.CodeInvalidRequest, "the message is not a JSON-RPC request")
	}
	return msg, nil
}

// requestID reads the id member: absent (a notification), a string of at most maxIDBytes, or an
// integer. Anything else is refused with a null id, since it cannot be echoed.
func requestID(env *strictjson.Object) (json.RawMessage, *admissionError) {
	raw, ok := env.Get("id")
	if !ok {
		return nil, nil
	}
	switch strictjson.KindOf(raw) {
	case "a string":
		if len(raw) > maxIDBytes+2 {
			return nil, refuse(nil, jsonrpc.CodeInvalidRequest, "the id is a string of %d bytes; the limit is %d", len(raw)-2, maxIDBytes)
		}
		return raw, nil
	case "a number":
		var n json.Number
		if err := json.Unmarshal(raw, &n); err == nil {
			if _, err := n.Int64(); err == nil {
				return raw, nil
			}
		}
		return nil, refuse(nil, jsonrpc.CodeInvalidRequest, "the id must be a string or an integer, not a fractional or out-of-range number")
	}
	return nil, refuse(nil, jsonrpc.CodeInvalidRequest, "the id must be a string or an integer, not %s", strictjson.KindOf(raw))
}

var envelopeKeys = []string{"jsonrpc", "id", "method", "params"}

func (a admission) checkEnvelope(env *strictjson.Object, id json.RawMessage) *admissionError {
	if _, isResult := env.Get("result"); isResult {
		return refuse(id, jsonrpc.CodeInvalidRequest, "this server sends no requests, so it accepts no responses")
	}
	if _, isError := env.Get("error"); isError {
		return refuse(id, jsonrpc.CodeInvalidRequest, "this server sends no requests, so it accepts no responses")
	}
	if u := env.Unknown(envelopeKeys...); len(u) > 0 {
		return refuse(id, jsonrpc.CodeInvalidRequest, "the message has a member %s that JSON-RPC 2.0 does not define", strictjson.Name(u[0]))
	}
	if v, _ := env.Get("jsonrpc"); string(v) != `"2.0"` {
		return refuse(id, jsonrpc.CodeInvalidRequest, `"jsonrpc" must be "2.0"`)
	}
	method, err := shortString(env, "method")
	if err != "" {
		return refuse(id, jsonrpc.CodeInvalidRequest, "\"method\" %s", err)
	}
	rawParams, hasParams := env.Get("params")
	var params *strictjson.Object
	if hasParams {
		p, perr := strictjson.ParseObject(rawParams)
		if perr != nil {
			return refuse(id, jsonrpc.CodeInvalidParams, "\"params\" must be an object, not %s", strictjson.KindOf(rawParams))
		}
		params = p
	}
	if id == nil {
		return nil // a notification: no envelope to check, and no reply to give
	}
	if e := a.checkMeta(id, method, params); e != nil {
		return e
	}
	if method == "tools/call" {
		return checkCallParams(id, params)
	}
	return nil
}

// checkMeta requires the 2026-07-28 request envelope and the one version the broker serves.
func (a admission) checkMeta(id json.RawMessage, method string, params *strictjson.Object) *admissionError {
	var meta *strictjson.Object
	if params != nil {
		if raw, ok := params.Get("_meta"); ok {
			meta, _ = strictjson.ParseObject(raw)
		}
	}
	version := ""
	if meta != nil {
		if raw, ok := meta.Get(mcp.MetaKeyProtocolVersion); ok && strictjson.KindOf(raw) == "a string" {
			_ = json.Unmarshal(raw, &version)
		}
	}
	if version == "" {
		if method == "initialize" {
			return unsupported(id, legacyVersion(params), "this server speaks only %s, which has no initialize: send server/discover with params._meta", ProtocolVersion)
		}
		return refuse(id, jsonrpc.CodeInvalidParams, "missing or invalid _meta field %q: every %s request carries params._meta with %q and %q",
			mcp.MetaKeyProtocolVersion, ProtocolVersion, mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities)
	}
	if raw, ok := meta.Get(mcp.MetaKeyClientCapabilities); !ok || strictjson.KindOf(raw) != "an object" {
		return refuse(id, jsonrpc.CodeInvalidParams, "missing or invalid _meta field %q: send the client's capabilities ({} for none)", mcp.MetaKeyClientCapabilities)
	}
	if version == ProtocolVersion {
		return nil
	}
	if a.http {
		switch {
		case a.headerVersion == "":
			return refuse(id, mcp.CodeHeaderMismatch, "the MCP-Protocol-Version header is missing")
		case a.headerVersion != version:
			return refuse(id, mcp.CodeHeaderMismatch, "the MCP-Protocol-Version header does not match params._meta")
		}
	}
	return unsupported(id, version, "protocol version not supported: this server speaks only %s", ProtocolVersion)
}

// unsupported is -32022 with the versions the broker supports, which a legacy client shows its
// user: it is all they will see.
func unsupported(id json.RawMessage, requested, format string, a ...any) *admissionError {
	if len(requested) > 32 {
		requested = ""
	}
	data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: []string{ProtocolVersion}, Requested: requested})
	e := refuse(id, mcp.CodeUnsupportedProtocolVersion, format, a...)
	e.data = data
	return e
}

func legacyVersion(params *strictjson.Object) string {
	if params == nil {
		return ""
	}
	raw, ok := params.Get("protocolVersion")
	if !ok {
		return ""
	}
	var v string
	_ = json.Unmarshal(raw, &v)
	return v
}

// checkCallParams checks the shape of tools/call params, so that refusals of a malformed call are
// the broker's content-free messages, not ones quoting what was sent.
func checkCallParams(id json.RawMessage, params *strictjson.Object) *admissionError {
	if params == nil {
		return refuse(id, jsonrpc.CodeInvalidParams, "tools/call needs params with a tool name")
	}
	if _, err := shortString(params, "name"); err != "" {
		return refuse(id, jsonrpc.CodeInvalidParams, "params.name %s", err)
	}
	for _, m := range []struct{ name, kind string }{{"arguments", "an object"}, {"inputResponses", "an object"}, {"requestState", "a string"}} {
		if raw, ok := params.Get(m.name); ok && strictjson.KindOf(raw) != m.kind && strictjson.KindOf(raw) != "null" {
			return refuse(id, jsonrpc.CodeInvalidParams, "params.%s must be %s, not %s", m.name, m.kind, strictjson.KindOf(raw))
		}
	}
	return nil
}

// shortString reads a required string member of at most maxNameBytes made of name characters,
// returning what is wrong with it (without its content) or "".
func shortString(o *strictjson.Object, name string) (string, string) {
	raw, ok := o.Get(name)
	if !ok {
		return "", "is missing"
	}
	if strictjson.KindOf(raw) != "a string" {
		return "", "must be a string, not " + strictjson.KindOf(raw)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", "must be a string"
	}
	if len(s) == 0 || len(s) > maxNameBytes {
		return "", fmt.Sprintf("must be a name of 1 to %d bytes, not %d", maxNameBytes, len(s))
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '/' && !strictjson.IsNameByte(c) {
			return "", fmt.Sprintf("must be a name (letters, digits and _ - . /), not a string of %d bytes", len(s))
		}
	}
	return s, ""
}
