package passive

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// mrtrMethods are the only methods that may answer with an InputRequiredResult.
var mrtrMethods = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true}

// inputKinds maps an input request method to the client capability it needs.
var inputKinds = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// inputRequired returns the final result when it is an InputRequiredResult, else nil.
func (v *view) inputRequired() map[string]json.RawMessage {
	if rt, _ := v.resultType(); rt != "input_required" {
		return nil
	}
	return v.result()
}

// checkMRTRShape enforces the shape of an InputRequiredResult.
//
//	Servers "MUST NOT" return InputRequiredResult for anything but tools/call, resources/read and
//	prompts/get. It "MUST include at least one of inputRequests or requestState"; inputRequests
//	keys "MUST be unique"; each value "MUST be" an elicitation/create, sampling/createMessage or
//	roots/list request.
func checkMRTRShape(v *view, _ *History) []rules.Outcome {
	r := v.inputRequired()
	if r == nil {
		return nil
	}
	var out []rules.Outcome
	if mrtrMethods[v.method()] {
		out = append(out, pass("mrtr-allowed-methods", "InputRequiredResult on "+v.method()))
	} else {
		out = append(out, fail("mrtr-allowed-methods", "the server answered %s with an InputRequiredResult", v.methodLabel()))
	}
	reqs, hasReqs := r["inputRequests"]
	_, hasState := r["requestState"]
	if !hasReqs && !hasState {
		out = append(out, fail("mrtr-nonempty", "the InputRequiredResult has neither inputRequests nor requestState"))
	} else {
		out = append(out, pass("mrtr-nonempty", "inputRequests or requestState present"))
	}
	if !hasReqs {
		return out
	}
	if dup := duplicateKey(reqs); dup != "" {
		out = append(out, fail("mrtr-keys-unique", "inputRequests repeats key %q", clip(dup)))
	} else {
		out = append(out, pass("mrtr-keys-unique", "inputRequests keys are unique"))
	}
	obj := decodeObject(reqs)
	bad := ""
	for _, k := range sortedKeys(obj) {
		ir := decodeObject(obj[k])
		m, _ := stringOf(ir["method"])
		_, hasID := ir["id"]
		_, hasRPC := ir["jsonrpc"]
		switch {
		case ir == nil:
			bad = fmt.Sprintf("inputRequests[%q] is not an object", k)
		case inputKinds[m] == "":
			bad = fmt.Sprintf("inputRequests[%q] has method %q", k, clip(m))
		case hasID || hasRPC:
			bad = fmt.Sprintf("inputRequests[%q] carries a JSON-RPC id or jsonrpc member", k)
		}
		if bad != "" {
			break
		}
	}
	if obj == nil {
		bad = "inputRequests is not an object"
	}
	if bad != "" {
		out = append(out, fail("mrtr-request-kinds", "%s", bad))
	} else {
		out = append(out, pass("mrtr-request-kinds", fmt.Sprintf("%d input request(s) of the three kinds", len(obj))))
	}
	return out
}

// sortedKeys returns an object's keys in order, so evidence is deterministic.
func sortedKeys(m map[string]json.RawMessage) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// duplicateKey returns the first key repeated at the top level of a JSON object, "" when none
// is (encoding/json silently keeps the last); wire reads the keys.
func duplicateKey(b []byte) string { return wire.DuplicateKey(b) }

// checkMRTRCapabilities enforces that input requests use only what this request declared.
//
//	Servers "MUST NOT include an input request whose type the client has not declared support for
//	in this request's clientCapabilities"; elicitation modes must be declared (`{}` is form only;
//	a request declaring both modes says nothing about it);
//	tool-enabled sampling needs sampling.tools; includeContext thisServer/allServers "SHOULD NOT"
//	be used, and not at all without sampling.context.
func checkMRTRCapabilities(v *view, _ *History) []rules.Outcome {
	r := v.inputRequired()
	if r == nil {
		return nil
	}
	obj := decodeObject(r["inputRequests"])
	if len(obj) == 0 {
		return nil
	}
	caps := v.clientCapabilities()
	var out []rules.Outcome
	undeclared := 0
	for _, k := range sortedKeys(obj) {
		ir := decodeObject(obj[k])
		m, _ := stringOf(ir["method"])
		params := decodeObject(ir["params"])
		need := inputKinds[m]
		if need == "" {
			continue
		}
		declared := decodeObject(caps[need])
		if declared == nil {
			undeclared++
			out = append(out, fail("mrtr-declared-capabilities", "inputRequests[%q] is %s, but this request declared no %s capability", clip(k), m, need),
				fail("no-undeclared-capability-use", "the server relied on the %s capability, which this request did not declare", need))
			continue
		}
		switch m {
		case "elicitation/create":
			mode, _ := stringOf(params["mode"])
			if mode == "" {
				mode = "form"
			}
			ok := declared[mode] != nil || (mode == "form" && len(declared) == 0)
			if ok && declared["form"] != nil && declared["url"] != nil {
				// Both modes declared: no mode could have been undeclared, so the request
				// shows nothing about the rule (a pass needs a mode the server could misuse).
				continue
			}
			if ok {
				out = append(out, pass("elicitation-declared-modes", "elicitation mode "+mode+" was declared"))
			} else {
				out = append(out, fail("elicitation-declared-modes", "inputRequests[%q] uses elicitation mode %q, which the client did not declare", clip(k), clip(mode)))
			}
		case "sampling/createMessage":
			if tools := decodeArray(params["tools"]); len(tools) > 0 {
				if declared["tools"] != nil {
					out = append(out, pass("sampling-tools-declared", "tool-enabled sampling with sampling.tools declared"))
				} else {
					out = append(out, fail("sampling-tools-declared", "inputRequests[%q] asks for sampling with tools, but the client did not declare sampling.tools", clip(k)))
				}
			} else {
				out = append(out, pass("sampling-tools-declared", "the sampling request carries no tools, so sampling.tools is not needed"))
			}
			if ic, _ := stringOf(params["includeContext"]); ic == "thisServer" || ic == "allServers" {
				why := "sampling.context was declared, but the value is deprecated"
				if declared["context"] == nil {
					why = "and the client did not declare sampling.context"
				}
				out = append(out, fail("include-context-declared", "inputRequests[%q] uses includeContext %q (%s)", clip(k), ic, why))
			} else {
				out = append(out, pass("include-context-declared", "no includeContext thisServer/allServers"))
			}
		}
	}
	if undeclared == 0 {
		out = append(out, pass("mrtr-declared-capabilities", "every input request's capability was declared in this request"),
			pass("no-undeclared-capability-use", "only declared client capabilities were relied on"))
	}
	return out
}

// checkRequestState records the requestState values the server issues and judges what the
// server does with one the client altered (a near copy of an issued state: a few bytes changed,
// added or cut). An altered state is the client's doing; serving it as if it were genuine is the
// server's failure. A state unlike any issued one says nothing: it may come from elsewhere.
//
//	"If requestState influences authorization, resource access, or business logic, servers MUST
//	integrity-protect it ... and MUST reject state that fails verification."
func checkRequestState(v *view, h *History) []rules.Outcome {
	if h == nil {
		return nil
	}
	h.init()
	if r := v.inputRequired(); r != nil {
		if s, ok := stringOf(r["requestState"]); ok && len(h.RequestStates) < maxHistoryEntries {
			h.RequestStates[s] = v.method()
		}
	}
	sent, ok := v.reqParamString("requestState")
	if !ok || v.final == nil {
		return nil
	}
	if _, issued := h.RequestStates[sent]; issued {
		return nil
	}
	altered := ""
	for issued, m := range h.RequestStates {
		if m == v.method() && nearVariant(sent, issued) {
			altered = issued
			break
		}
	}
	if altered == "" {
		// A state unlike any issued one may come from a replica or a time this history did not
		// see; only a near copy of an issued state is evidence of tampering.
		return nil
	}
	if _, isErr := v.errorCode(); isErr {
		return []rules.Outcome{pass("request-state-integrity", "the client sent a requestState the server never issued (client fault); the server rejected it with an error")}
	}
	if v.complete() {
		return []rules.Outcome{fail("request-state-integrity", "the client sent a requestState the server never issued for %s (client fault); the server accepted it and answered complete", v.methodLabel())}
	}
	return nil
}

// nearVariant reports whether sent looks like issued altered by hand: the same length with at
// most a few bytes changed, or one extending or cutting the other by a few bytes.
//
// A variant that decodes to the same bytes as the issued state (base64 whose last character
// differs only in bits a decoder ignores) is the same state written differently, not an
// alteration: a server that accepts it accepted what it issued.
func nearVariant(sent, issued string) bool {
	if sent == issued || len(issued) < 8 || sameDecoded(sent, issued) {
		return false
	}
	if len(sent) == len(issued) {
		diff := 0
		for i := 0; i < len(sent); i++ {
			if sent[i] != issued[i] {
				diff++
			}
		}
		return diff <= 4
	}
	short, long := sent, issued
	if len(short) > len(long) {
		short, long = long, short
	}
	return len(long)-len(short) <= 4 && strings.HasPrefix(long, short)
}

// sameDecoded reports whether two states made of "."-separated base64 segments (any of the four
// common alphabets, padded or not) decode segment by segment to the same bytes.
func sameDecoded(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		x, okx := decodeBase64(as[i])
		y, oky := decodeBase64(bs[i])
		if !okx || !oky || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

func decodeBase64(s string) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}
