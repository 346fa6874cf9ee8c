package passive

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
)

// Names the checks read, fixed once.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"

	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerSessionID       = "Mcp-Session-Id"
	headerLastEventID     = "Last-Event-Id"
	headerAccelBuffering  = "X-Accel-Buffering"
)

// headerValue returns a header's first value with surrounding whitespace removed (RFC 9110:
// optional whitespace is not part of the value), matching the name case-insensitively.
func headerValue(h http.Header, name string) string {
	v, _ := lookupHeader(h, name)
	return v
}

// lookupHeader is headerValue that also says whether the header was present.
func lookupHeader(h http.Header, name string) (string, bool) {
	if vs, ok := h[http.CanonicalHeaderKey(name)]; ok && len(vs) > 0 {
		return strings.Trim(vs[0], " \t"), true
	}
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return strings.Trim(vs[0], " \t"), true
		}
	}
	return "", false
}

// decodeHeaderValue undoes the =?base64?...?= wrapper; markers are case-sensitive and a value
// without both markers is a literal. ok is false when the wrapper holds invalid Base64.
func decodeHeaderValue(s string) (string, bool) {
	if !strings.HasPrefix(s, "=?base64?") || !strings.HasSuffix(s, "?=") || len(s) < len("=?base64??=") {
		return s, true
	}
	b, err := base64.StdEncoding.DecodeString(s[len("=?base64?") : len(s)-2])
	if err != nil {
		return s, false
	}
	return string(b), true
}

// nameParam is the params member Mcp-Name mirrors, per method; "" when the method carries none.
func nameParam(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	}
	return ""
}

// checkHeaderBody enforces the server's cross-check of the mirrored headers against the body.
// A mismatch is the client's fault; serving it anyway, instead of 400 with -32020, is the
// server's. The outcome is the server's, and its evidence records both sides.
//
//	"Servers MUST reject requests with a 400 Bad Request and a -32020 (HeaderMismatch) error if
//	a required header is missing or its value does not match the corresponding request body value."
//	The MCP-Protocol-Version header "MUST match the protocol version in _meta".
func checkHeaderBody(v *view, _ *History) []rules.Outcome {
	if !v.isRequest() || v.ex.Response == nil || !v.claimsModern() || v.missingMeta() != "" {
		return nil
	}
	h := v.ex.Request.Header
	var out []rules.Outcome
	if pv, ok := lookupHeader(h, headerProtocolVersion); !ok {
		out = append(out, v.judgeReject("pv-header-required", "the client sent no MCP-Protocol-Version header"))
	} else if body, _ := stringOf(v.reqMeta[metaProtocolVersion]); pv != body {
		out = append(out, v.judgeReject("pv-header-body-match", fmt.Sprintf("the client sent MCP-Protocol-Version %q with _meta protocolVersion %q", clip(pv), clip(body))))
	}
	if mm, ok := lookupHeader(h, headerMethod); !ok {
		out = append(out, v.judgeReject("mcp-method-required", "the client sent no Mcp-Method header"))
	} else if mm != v.method() {
		out = append(out, v.judgeReject("mcp-method-match", fmt.Sprintf("the client sent Mcp-Method %q for body method %q", clip(mm), clip(v.method()))))
	}
	if p := nameParam(v.method()); p != "" {
		body, _ := v.reqParamString(p)
		if mn, ok := lookupHeader(h, headerName); !ok {
			out = append(out, v.judgeReject("mcp-name-required", fmt.Sprintf("the client sent %s with no Mcp-Name header", v.method())))
		} else if dec, valid := decodeHeaderValue(mn); !valid || dec != body {
			out = append(out, v.judgeReject("mcp-name-match", fmt.Sprintf("the client sent Mcp-Name %q for params.%s %q", clip(mn), p, clip(body))))
		}
	}
	var kept []rules.Outcome
	for _, o := range out {
		if o.RuleID != "" {
			kept = append(kept, o)
		}
	}
	return kept
}

// judgeReject grades the server's answer to a request the client got wrong: 400 with -32020 is a
// pass; serving it, or another code or status, is a fail. Answers from gates that run before
// header validation (auth, origin) say nothing and yield a zero Outcome, dropped by the caller.
func (v *view) judgeReject(rule, clientSide string) rules.Outcome {
	if authStatus(v.status) || v.final == nil {
		return rules.Outcome{}
	}
	code, isErr := v.errorCode()
	switch {
	case !isErr:
		return fail(rule, "%s (client fault); the server served it (HTTP %d) instead of answering 400 with -32020", clientSide, v.status)
	case code == codeHeaderMismatch && v.status == 400:
		return pass(rule, clientSide+" (client fault); the server rejected it with 400 and -32020")
	default:
		return fail(rule, "%s (client fault); the server answered HTTP %d with error %d instead of 400 with -32020", clientSide, v.status, code)
	}
}
