package passive

import (
	"fmt"

	"github.com/mcp-sentinel/sentinel/rules"
)

// JSON-RPC and MCP error codes the checks name.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeHeaderMismatch   = -32020
	codeMissingCapab     = -32021
	codeUnsupportedVers  = -32022
	codeRetiredNotFound  = -32002
	codeRetiredURLElicit = -32042
)

// checkErrorCodes enforces the allocation policy of the error-code ranges on every error the
// server sent.
//
//	"-32002 and -32042 are retired and MUST NOT be emitted."
//	Codes in -32020..-32099 are reserved for the spec: implementations MUST NOT emit any there
//	other than the defined -32020, -32021 and -32022.
//	New implementations SHOULD NOT use the legacy range -32000..-32019.
//	Application-defined codes SHOULD lie outside -32768..-32000.
func checkErrorCodes(v *view, _ *History) []rules.Outcome {
	var out []rules.Outcome
	for _, m := range v.msgs {
		if m.Error == nil || m.Error.Problem != "" && m.Error.Code == 0 {
			continue
		}
		c := m.Error.Code
		if c == codeRetiredNotFound || c == codeRetiredURLElicit {
			out = append(out, fail("retired-codes", "the server emitted retired code %d (%q)", c, clip(m.Error.Message)))
		} else {
			out = append(out, pass("retired-codes", fmt.Sprintf("code %d", c)))
		}
		switch {
		case c <= -32020 && c >= -32099 && c != codeHeaderMismatch && c != codeMissingCapab && c != codeUnsupportedVers:
			out = append(out, fail("spec-reserved-codes", "the server emitted %d, a code reserved for the specification with no defined meaning", c))
		default:
			out = append(out, pass("spec-reserved-codes", fmt.Sprintf("code %d", c)))
		}
		if c <= -32000 && c >= -32019 {
			note := ""
			switch c {
			case -32001, -32003, -32004:
				note = " (a pre-release number of a code that is now in -32020..-32022)"
			}
			out = append(out, fail("legacy-range-codes", "the server emitted %d from the legacy range -32000..-32019%s", c, note))
		} else {
			out = append(out, pass("legacy-range-codes", fmt.Sprintf("code %d", c)))
		}
		if c >= -32768 && c <= -32000 && !definedCode(c) {
			out = append(out, fail("app-codes-outside-reserved", "the server emitted %d, inside -32768..-32000, which is not a code JSON-RPC or MCP defines", c))
		} else {
			out = append(out, pass("app-codes-outside-reserved", fmt.Sprintf("code %d", c)))
		}
	}
	return out
}

// definedCode reports whether c is one JSON-RPC 2.0 or MCP 2026-07-28 defines.
func definedCode(c int) bool {
	switch c {
	case codeParseError, codeInvalidRequest, codeMethodNotFound, codeInvalidParams, codeInternalError,
		codeHeaderMismatch, codeMissingCapab, codeUnsupportedVers:
		return true
	}
	return false
}

// checkErrorStatus enforces the HTTP status and data that go with the errors the spec ties to
// one, on a plain JSON reply (an error inside an already started SSE stream has no status).
//
//	Method not found: "the server MUST respond with HTTP 404 and a -32601 error".
//	Missing client capability: "-32021 ... data.requiredCapabilities", sent with HTTP 400.
//	Unsupported version: "-32022 ... data.supported and data.requested", with HTTP 400.
func checkErrorStatus(v *view, _ *History) []rules.Outcome {
	code, ok := v.errorCode()
	if !ok {
		return nil
	}
	var out []rules.Outcome
	status := func(rule string, want int) {
		if v.sse {
			return
		}
		if v.status == want {
			out = append(out, pass(rule, fmt.Sprintf("error %d with HTTP %d", code, want)))
		} else {
			out = append(out, fail(rule, "error %d came with HTTP %d, not %d", code, v.status, want))
		}
	}
	data := decodeObject(v.final.Error.Data)
	switch code {
	case codeMethodNotFound:
		status("unknown-method-404", 404)
	case codeMissingCapab:
		if decodeObject(data["requiredCapabilities"]) != nil {
			out = append(out, pass("missing-capability-error", "-32021 names data.requiredCapabilities"))
		} else {
			out = append(out, fail("missing-capability-error", "-32021 without a data.requiredCapabilities object (data: %s)", clipBytes(v.final.Error.Data)))
		}
		status("missing-capability-http-400", 400)
	case codeUnsupportedVers:
		supported := decodeArray(data["supported"])
		_, reqOK := stringOf(data["requested"])
		allStrings := supported != nil
		for _, s := range supported {
			if _, ok := stringOf(s); !ok {
				allStrings = false
			}
		}
		if allStrings && reqOK {
			out = append(out, pass("unsupported-version-error", "-32022 with data.supported and data.requested"))
		} else {
			out = append(out, fail("unsupported-version-error", "-32022 without data.supported (a list of strings) and data.requested (a string); data: %s", clipBytes(v.final.Error.Data)))
		}
		status("unsupported-version-http-400", 400)
	}
	return out
}

// checkMetaRequired enforces the rejection of a modern request whose _meta lacks the required
// keys. It judges only requests that claim the 2026-07-28 era (a _meta object, or the
// MCP-Protocol-Version header naming it): a dual-era server may serve a legacy request.
//
//	"Requests missing _meta, io.modelcontextprotocol/protocolVersion or
//	io.modelcontextprotocol/clientCapabilities MUST be rejected with -32602 (Invalid params)",
//	sent with HTTP 400.
func checkMetaRequired(v *view, _ *History) []rules.Outcome {
	if !v.isRequest() || v.method() == "initialize" || v.ex.Response == nil {
		return nil
	}
	missing := v.missingMeta()
	if missing == "" || (v.reqMeta == nil && !v.claimsModern()) {
		return nil
	}
	if authStatus(v.status) {
		return nil
	}
	code, isErr := v.errorCode()
	switch {
	case v.final != nil && !isErr:
		return []rules.Outcome{
			fail("meta-required-reject", "the client sent %s without %s (client fault); the server served it instead of rejecting it with -32602", v.methodLabel(), missing),
		}
	case isErr && code == codeInvalidParams:
		out := []rules.Outcome{pass("meta-required-reject", fmt.Sprintf("%s without %s was rejected with -32602", v.methodLabel(), missing))}
		if v.status == 400 {
			return append(out, pass("meta-required-http-400", "rejected with HTTP 400"))
		}
		return append(out, fail("meta-required-http-400", "the -32602 rejection of a request without %s came with HTTP %d, not 400", missing, v.status))
	}
	return nil
}

// missingMeta names the first required _meta member the request lacks, "" when none is missing.
func (v *view) missingMeta() string {
	switch {
	case v.reqMeta == nil:
		return "params._meta"
	case v.reqMeta[metaProtocolVersion] == nil:
		return metaProtocolVersion
	case decodeObject(v.reqMeta[metaClientCapabilities]) == nil:
		return metaClientCapabilities
	}
	return ""
}

// claimsModern reports whether the request says it speaks 2026-07-28 or later, by _meta or header.
func (v *view) claimsModern() bool {
	if v.reqMeta != nil && v.reqMeta[metaProtocolVersion] != nil {
		return true
	}
	pv := headerValue(v.ex.Request.Header, headerProtocolVersion)
	return pv >= "2026-07-28"
}

// authStatus reports statuses that an earlier gate (authorization, origin, method) produces before
// any body validation, so they say nothing about body rules.
func authStatus(s int) bool {
	return s == 401 || s == 403 || s == 405 || s == 413 || s == 415 || s == 431
}
