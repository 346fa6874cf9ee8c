package passive

import (
	"fmt"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// checkReplyContentType enforces the media type of a reply to a request.
//
//	"If the input is a JSON-RPC request, the server MUST either return Content-Type:
//	text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return
//	one JSON object."
func checkReplyContentType(v *view, _ *History) []rules.Outcome {
	if !v.isRequest() || v.ex.Response == nil {
		return nil
	}
	// Judge successful replies, and error replies that carry a JSON-RPC message: a bare 401 or
	// 405 from a gateway is not a reply in the JSON-RPC sense.
	if v.status != 200 && len(v.msgs) == 0 {
		return nil
	}
	mt := mediaType(v.ex.Response.Header)
	if mt == "application/json" || mt == "text/event-stream" {
		return []rules.Outcome{pass("request-reply-content-type", "Content-Type "+mt)}
	}
	return []rules.Outcome{fail("request-reply-content-type", "the reply to %s (HTTP %d) has Content-Type %q, neither application/json nor text/event-stream", v.methodLabel(), v.status, clip(v.ex.Response.Header.Get("Content-Type")))}
}

// checkSSEStream enforces how an SSE response is framed and ended.
//
//	Servers "SHOULD send X-Accel-Buffering: no" on SSE responses. "After the JSON-RPC response
//	has been sent, the server SHOULD terminate the SSE stream." Nothing may follow an
//	InputRequiredResult on the stream (SEP-2322).
func checkSSEStream(v *view, _ *History) []rules.Outcome {
	if !v.sse || v.ex.Response == nil {
		return nil
	}
	var out []rules.Outcome
	if strings.EqualFold(headerValue(v.ex.Response.Header, headerAccelBuffering), "no") {
		out = append(out, pass("sse-x-accel-buffering", "X-Accel-Buffering: no"))
	} else {
		out = append(out, fail("sse-x-accel-buffering", "the SSE reply to %s has no X-Accel-Buffering: no header", v.methodLabel()))
	}
	if v.final == nil || v.method() == "subscriptions/listen" {
		return out
	}
	after := len(v.msgs) - 1 - v.finalIndex
	if rt, _ := v.resultType(); rt == "input_required" {
		if after > 0 {
			out = append(out, fail("mrtr-nothing-after-interim", "%d message(s) followed the InputRequiredResult on the stream (first: %s)", after, describe(v.msgs[v.finalIndex+1])))
		} else {
			out = append(out, pass("mrtr-nothing-after-interim", "the InputRequiredResult was the last message"))
		}
	}
	switch {
	case after > 0:
		out = append(out, fail("sse-final-response-terminates", "%d message(s) followed the final response on the stream (first: %s)", after, describe(v.msgs[v.finalIndex+1])))
	case v.ex.Response.Truncated && v.ex.Response.TruncatedBy == "deadline":
		out = append(out, fail("sse-final-response-terminates", "the stream stayed open after the final response until the read deadline"))
	default:
		out = append(out, pass("sse-final-response-terminates", "the final response was the last message"))
	}
	return out
}

// describe names a message for evidence.
func describe(m *wire.Message) string {
	switch {
	case m.Method != "":
		return m.Method
	case m.Error != nil:
		return fmt.Sprintf("error %d", m.Error.Code)
	default:
		return "a result"
	}
}

// requestScoped reports notifications that belong to one request's stream.
func requestScoped(method string) bool {
	return method == "notifications/message" || method == "notifications/progress"
}

// listenOnly reports notifications that belong only on a subscriptions/listen stream.
func listenOnly(method string) bool {
	switch method {
	case "notifications/subscriptions/acknowledged", "notifications/tools/list_changed",
		"notifications/prompts/list_changed", "notifications/resources/list_changed",
		"notifications/resources/updated":
		return true
	}
	return false
}

// checkSSERelated enforces which notifications may travel on which stream.
//
//	Notifications on a request's SSE stream "MUST relate to the originating client request".
//	Log messages and progress "MUST NOT" be sent on a listen stream. notifications/cancelled from
//	the server is used for nothing except ending a subscriptions/listen stream.
func checkSSERelated(v *view, _ *History) []rules.Outcome {
	notes := v.notifications()
	if len(notes) == 0 {
		return nil
	}
	listen := v.method() == "subscriptions/listen"
	var out []rules.Outcome
	unrelated, scoped, cancels := 0, 0, 0
	for _, n := range notes {
		switch {
		case n.Method == "notifications/cancelled":
			cancels++
			if !listen {
				out = append(out, fail("server-cancelled-listen-only", "the server sent notifications/cancelled on the %s stream, not a subscriptions/listen stream", v.methodLabel()))
			}
		case listen && requestScoped(n.Method):
			scoped++
			out = append(out, fail("request-scoped-off-listen", "the server sent %s on a subscriptions/listen stream", n.Method))
		case !listen && listenOnly(n.Method):
			unrelated++
			out = append(out, fail("sse-notifications-related", "the server sent %s on the %s stream; it belongs only on a subscriptions/listen stream", n.Method, v.methodLabel()))
		case !listen && n.Method == "notifications/progress" && !v.progressTokenMatches(n):
			unrelated++
			out = append(out, fail("sse-notifications-related", "a progress notification on the %s stream names a token the request did not send", v.methodLabel()))
		}
	}
	if listen && scoped == 0 {
		out = append(out, pass("request-scoped-off-listen", "no log or progress notification on the listen stream"))
	}
	if !listen && unrelated == 0 {
		out = append(out, pass("sse-notifications-related", fmt.Sprintf("%d notification(s), all about this request", len(notes))))
	}
	if listen && cancels > 0 {
		out = append(out, pass("server-cancelled-listen-only", "notifications/cancelled only on a listen stream"))
	}
	if !listen && cancels == 0 && v.final != nil {
		// The server was talking on this request's stream and ended it by answering, not by
		// cancelling: the behaviour the rule forbids had its chance and did not happen.
		out = append(out, pass("server-cancelled-listen-only", fmt.Sprintf("the %s stream carried %d notification(s) and ended with the response, not notifications/cancelled", v.methodLabel(), len(notes))))
	}
	return out
}

// progressTokenMatches reports whether a progress notification names the request's token.
func (v *view) progressTokenMatches(n *wire.Message) bool {
	want, ok := v.reqMeta["progressToken"]
	if !ok {
		return false
	}
	return sameID(n.ParamsMembers()["progressToken"], want)
}

// logLevels orders the syslog severities MCP uses, least severe first.
var logLevels = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// checkLogging enforces the per-request log opt-in.
//
//	Servers "MUST NOT send notifications/message for a request that does not include
//	io.modelcontextprotocol/logLevel"; when present they emit at or above it. "Servers that emit
//	log message notifications MUST declare the logging capability."
func checkLogging(v *view, h *History) []rules.Outcome {
	var logs []*wire.Message
	for _, n := range v.notifications() {
		if n.Method == "notifications/message" {
			logs = append(logs, n)
		}
	}
	if v.method() == "subscriptions/listen" {
		return nil
	}
	if len(logs) == 0 {
		// A request stream that carried other notifications (progress) but no log message,
		// for a request that asked for no level, is the opt-in kept where the server was
		// already talking; a stream with nothing on it says nothing.
		if _, asked := v.reqMeta[metaLogLevel]; !asked && len(v.notifications()) > 0 {
			return []rules.Outcome{pass("no-log-without-loglevel", fmt.Sprintf("%d notification(s) on the %s stream, none a log message, and the request asked for no level", len(v.notifications()), v.methodLabel()))}
		}
		return nil
	}
	var out []rules.Outcome
	if declared, known := h.capability("logging"); known {
		if declared {
			out = append(out, pass("declare-logging", "the server emits log messages and declares logging"))
		} else {
			out = append(out, fail("declare-logging", "the server sent notifications/message but its DiscoverResult declares no logging capability"))
		}
	}
	raw, asked := v.reqMeta[metaLogLevel]
	if !asked {
		return append(out, fail("no-log-without-loglevel", "the server sent %d notifications/message for %s, which carried no %s", len(logs), v.methodLabel(), metaLogLevel))
	}
	out = append(out, pass("no-log-without-loglevel", "log messages only after the request asked for a level"))
	want, _ := stringOf(raw)
	min, ok := logLevels[want]
	if !ok {
		return out
	}
	for _, l := range logs {
		lvl, _ := stringOf(l.ParamsMembers()["level"])
		if got, ok := logLevels[lvl]; ok && got < min {
			return append(out, fail("log-at-or-above-level", "the request asked for %q; the server sent a %q message", want, lvl))
		}
	}
	return append(out, pass("log-at-or-above-level", "every log message at or above "+want))
}

// checkProgress enforces progress notifications on a request's stream.
//
//	"Progress notifications MUST only reference tokens that were provided in an active request",
//	"The progress value MUST increase with each notification", and no progress is sent after the
//	request completed.
func checkProgress(v *view, _ *History) []rules.Outcome {
	if v.method() == "subscriptions/listen" {
		return nil
	}
	var out []rules.Outcome
	last, seen, bad, after, foreign := 0.0, 0, false, false, false
	for i, m := range v.msgs {
		if m.Method != "notifications/progress" {
			continue
		}
		p := m.ParamsMembers()
		if !v.progressTokenMatches(m) {
			foreign = true
			out = append(out, fail("progress-token-scope", "a progress notification names token %s; the request sent %s", clip(idText(p["progressToken"])), clip(idText(v.reqMeta["progressToken"]))))
			continue
		}
		var cur float64
		if _, err := fmt.Sscan(string(p["progress"]), &cur); err != nil {
			bad = true
			out = append(out, fail("progress-increases", "progress value %s is not a number", clipBytes(p["progress"])))
			continue
		}
		if seen > 0 && cur <= last && !bad {
			bad = true
			out = append(out, fail("progress-increases", "progress went from %g to %g", last, cur))
		}
		if v.finalIndex >= 0 && i > v.finalIndex && !after {
			after = true
			out = append(out, fail("progress-stops", "a progress notification followed the final response"))
		}
		last = cur
		seen++
	}
	if seen > 0 {
		if !foreign {
			out = append(out, pass("progress-token-scope", fmt.Sprintf("%d progress notification(s) with the request's token", seen)))
		}
		if !bad {
			out = append(out, pass("progress-increases", "progress strictly increased"))
		}
		if !after && v.finalIndex >= 0 {
			out = append(out, pass("progress-stops", "no progress after the final response"))
		}
	}
	return out
}
