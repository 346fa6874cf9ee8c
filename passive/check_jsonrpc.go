package passive

import (
	"fmt"
	"unicode/utf8"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// checkEnvelope enforces the JSON-RPC 2.0 envelope and the encoding of every message the server
// sent on a JSON or event-stream body.
//
//	"All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."
//	"JSON-RPC messages MUST be UTF-8 encoded."
func checkEnvelope(v *view, _ *History) []rules.Outcome {
	r := v.ex.Response
	if r == nil || len(r.Body) == 0 {
		return nil
	}
	mt := mediaType(r.Header)
	if v.ex.Stdio() {
		mt = "stdio" // the server's lines for the request: every one a message (stdio checks judge the rest)
	} else if mt != "application/json" && mt != "text/event-stream" {
		return nil
	}
	var out []rules.Outcome
	if utf8.Valid(r.Body) {
		out = append(out, pass("utf8-messages", "the response body is valid UTF-8"))
	} else {
		out = append(out, fail("utf8-messages", "the %s response body is not valid UTF-8", mt))
	}
	var bad []string
	if mt == "application/json" && len(v.msgs) == 0 {
		why := ""
		if len(v.parseErrors) > 0 {
			why = " (" + clip(v.parseErrors[0]) + ")"
		}
		bad = append(bad, fmt.Sprintf("an application/json body that is not one JSON-RPC message%s: %q", why, clip(string(r.Body))))
	}
	for _, e := range v.sseEvents() {
		if _, err := wire.DecodeMessage([]byte(e.Data)); e.Data != "" && err != nil {
			bad = append(bad, fmt.Sprintf("an SSE event whose data is not a JSON-RPC message (%s): %q", clip(err.Error()), clip(e.Data)))
		}
	}
	for _, m := range v.msgs {
		if why := envelopeProblem(m); why != "" {
			bad = append(bad, why)
		}
	}
	if len(bad) > 0 {
		out = append(out, fail("jsonrpc-envelope", "the server sent %s", bad[0]))
	} else if len(v.msgs) > 0 {
		out = append(out, pass("jsonrpc-envelope", fmt.Sprintf("%d message(s), each a well-formed JSON-RPC 2.0 message", len(v.msgs))))
	}
	return out
}

// envelopeProblem says what makes m not a JSON-RPC 2.0 message, or "".
func envelopeProblem(m *wire.Message) string {
	switch {
	case m.JSONRPC != "2.0":
		return fmt.Sprintf("a message with jsonrpc %q instead of \"2.0\"", m.JSONRPC)
	case m.Result != nil && m.Error != nil:
		return "a response with both result and error"
	case m.Method != "" && (m.Result != nil || m.Error != nil):
		return "a message with both a method and a result or error"
	case m.Method == "" && m.Result == nil && m.Error == nil:
		return "a message with neither a method nor a result nor an error"
	case m.Method == "" && m.ID == nil && m.Error == nil:
		// An error may lack the id when the server could not read it (a rejection before the
		// body was parsed, such as a 403 for a bad Origin); a result never may.
		return "a result without an id member"
	}
	return ""
}

// checkIDEcho enforces that a response names the request it answers.
//
//	"Responses MUST include the same ID as the request they correspond to."
//	Error responses: "the id MUST be the same as the request, unless it could not be read."
func checkIDEcho(v *view, _ *History) []rules.Outcome {
	if !v.isRequest() || v.final == nil {
		return nil
	}
	rule := "result-id-echo"
	if v.final.Error != nil {
		rule = "error-id-echo"
		// A gate that answers before reading the body (auth, Origin, method, size) could not read
		// the id, and neither could a parser that failed; the rule then says nothing.
		if authStatus(v.status) || v.final.Error.Code == codeParseError || v.final.Error.Code == codeInvalidRequest {
			return nil
		}
	}
	if sameID(v.final.ID, v.req.ID) {
		return []rules.Outcome{pass(rule, fmt.Sprintf("the response echoes id %s", clip(string(v.req.ID))))}
	}
	return []rules.Outcome{fail(rule, "the client sent id %s; the response carries id %s", clip(string(v.req.ID)), clip(idText(v.final.ID)))}
}

func idText(id []byte) string {
	if id == nil {
		return "(absent)"
	}
	return string(id)
}

// checkResultMember enforces the shape of a success response's result.
//
//	"A successful response MUST contain a result object."
//	"Every result MUST include a resultType field."
//	resultType is "complete", "input_required", or a value defined by an extension that both
//	sides negotiated; clients treat unknown values as invalid. "Without a client declaration, the
//	server MUST fall back to core behaviour or return an error" rather than an extension shape.
func checkResultMember(v *view, _ *History) []rules.Outcome {
	if v.final == nil || v.final.Error != nil {
		return nil
	}
	r := v.result()
	if r == nil {
		return []rules.Outcome{fail("result-member-present", "the success response's result is %s, not an object", clip(string(v.final.Result)))}
	}
	out := []rules.Outcome{pass("result-member-present", "the response carries a result object")}
	if v.removedMethod() {
		// A result to a method this revision removed is graded as such (removed-methods-absent);
		// its 2025 shape says nothing about the shape of this revision's results.
		return out
	}
	rt, ok := v.resultType()
	if !ok {
		return append(out, fail("result-type-present", "the result to %s has no resultType", v.methodLabel()))
	}
	out = append(out, pass("result-type-present", fmt.Sprintf("resultType %q", rt)))
	switch {
	case rt == "complete" || rt == "input_required":
		out = append(out, pass("result-type-known", fmt.Sprintf("resultType %q", rt)))
	case rt == "task" && v.clientDeclaredExtension(tasksExtension):
		out = append(out, pass("result-type-known", "resultType \"task\" with the tasks extension declared by the client"))
		out = append(out, pass("extension-fallback", "an extension result shape after the client declared the extension"))
	case rt == "task":
		out = append(out, fail("result-type-known", "resultType \"task\" on %s, but the client did not declare the tasks extension", v.methodLabel()))
		out = append(out, fail("extension-fallback", "the server answered %s with the tasks extension's resultType \"task\" although the client did not declare %s", v.methodLabel(), tasksExtension))
	default:
		out = append(out, fail("result-type-known", "resultType %q on %s is neither complete nor input_required nor a value of an extension the client declared", clip(rt), v.methodLabel()))
	}
	return out
}

// tasksExtension is the extension that reserves resultType "task".
const tasksExtension = "io.modelcontextprotocol/tasks"

// clientDeclaredExtension reports whether the request's clientCapabilities.extensions names ext.
func (v *view) clientDeclaredExtension(ext string) bool {
	caps := v.clientCapabilities()
	_, ok := decodeObject(caps["extensions"])[ext]
	return ok
}

// methodLabel names the request's method for evidence, "the request" when unknown.
func (v *view) methodLabel() string {
	if m := v.method(); m != "" {
		return m
	}
	return "the request"
}

// checkErrorShape enforces the error object's members.
//
//	"Errors MUST include an error code and an error message." The code is an integer.
func checkErrorShape(v *view, _ *History) []rules.Outcome {
	var out []rules.Outcome
	for _, m := range v.msgs {
		if m.Error == nil {
			continue
		}
		if m.Error.Problem != "" {
			out = append(out, fail("error-object-shape", "the error member is malformed (%s): %s", m.Error.Problem, clip(string(errorRaw(m)))))
			continue
		}
		out = append(out, pass("error-object-shape", fmt.Sprintf("error %d with a message", m.Error.Code)))
	}
	return out
}

// errorRaw returns the raw error member of m.
func errorRaw(m *wire.Message) []byte {
	return decodeObject(m.Raw)["error"]
}

// checkServerMessages enforces what kinds of message a server may put on a stream.
//
//	Notifications: "The receiver MUST NOT send a response" and notifications "MUST NOT include
//	an ID". Servers "MUST NOT send JSON-RPC requests" on any stream: server-to-client needs go
//	through MRTR.
func checkServerMessages(v *view, _ *History) []rules.Outcome {
	var out []rules.Outcome
	notes, requests := 0, 0
	for _, m := range v.msgs {
		if m.Method == "" {
			continue
		}
		if m.ID == nil {
			notes++
			continue
		}
		if isNotificationMethod(m.Method) {
			out = append(out, fail("notification-no-id", "the server sent %s with id %s", clip(m.Method), clip(string(m.ID))))
			continue
		}
		requests++
		out = append(out, fail("no-server-initiated-requests", "the server sent a JSON-RPC request %s (id %s) on the %s stream", clip(m.Method), clip(string(m.ID)), v.methodLabel()))
	}
	if notes > 0 && len(out) == 0 {
		out = append(out, pass("notification-no-id", fmt.Sprintf("%d notification(s), none with an id", notes)))
	}
	if requests == 0 && len(v.msgs) > 0 {
		out = append(out, pass("no-server-initiated-requests", "no JSON-RPC request among the server's messages"))
	}
	return out
}

// isNotificationMethod reports whether a method name is in the notifications/ namespace.
func isNotificationMethod(m string) bool { return len(m) > 14 && m[:14] == "notifications/" }

// checkNotificationReply enforces the HTTP answer to a client notification.
//
//	"If the input is a JSON-RPC notification: If the server accepts the input, the server MUST
//	return HTTP status code 202 Accepted with no body." The receiver MUST NOT send a response.
func checkNotificationReply(v *view, _ *History) []rules.Outcome {
	if v.req == nil || !v.req.IsNotification() || v.ex.Response == nil {
		return nil
	}
	r := v.ex.Response
	var out []rules.Outcome
	responded := false
	for _, m := range v.msgs {
		if m.IsResponse() && m.Error == nil {
			responded = true
		}
	}
	if responded {
		out = append(out, fail("no-response-to-notification", "the client sent notification %s; the server answered it with a JSON-RPC result", clip(v.req.Method)))
	} else {
		out = append(out, pass("no-response-to-notification", "no JSON-RPC result answered the notification"))
	}
	switch {
	case r.Status == 202 && len(r.Body) == 0:
		out = append(out, pass("notification-202", "202 with no body"))
	case r.Status >= 200 && r.Status < 300:
		out = append(out, fail("notification-202", "the server accepted notification %s with HTTP %d and %d body byte(s) instead of 202 with no body", clip(v.req.Method), r.Status, len(r.Body)))
	}
	return out
}
