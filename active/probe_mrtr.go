package active

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// mrtrProbes exercise multi round-trip requests on a tool that answers input_required: the
// requestState round trip, tampering and replay, missing, malformed, extra and declined input
// responses, and what the server does when the client declares no capability.
func mrtrProbes() []Probe {
	return []Probe{
		{Name: "mrtr", Requires: rules.FeatureCallableTool, Run: probeMRTR, RuleIDs: ids(
			"request-state-integrity", "request-state-untrusted", "request-state-anti-replay",
			"mrtr-rerequest-missing", "mrtr-validate-input-responses", "mrtr-ignore-extra-responses",
			"elicitation-decline-handled", "missing-capability-error", "missing-capability-http-400",
			"no-capability-inference", "no-connection-derived-context", "sampling-tool-results-paired")},
		{Name: "mrtr-elicitation", Requires: rules.FeatureCallableTool, Run: probeMRTRElicitation, RuleIDs: ids(
			"elicitation-url-https", "form-no-clickable-urls", "elicitation-response-validated")},
	}
}

// allCapabilities is what the probe declares to coax a tool into asking: every input kind.
var allCapabilities = map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}, "sampling": map[string]any{}, "roots": map[string]any{}}

// interim is a tool call answered with an InputRequiredResult.
type interim struct {
	tool          toolDef
	args          map[string]any
	requests      map[string]json.RawMessage // inputRequests, by key
	state         string
	hasState      bool
	firstExchange *wire.Exchange
	// genuine is the retry with the issued state and well-formed answers (the control every
	// altered retry is compared with); nil until accepted first needs it.
	genuine *wire.Exchange
}

// inputKeys returns the sorted inputRequests keys of an InputRequiredResult, nil for anything else.
func inputKeys(ex *wire.Exchange) []string {
	r := resultOf(ex)
	if r == nil || ex.Reply().ResultType() != "input_required" {
		return nil
	}
	var reqs map[string]json.RawMessage
	_ = wire.Decode(r["inputRequests"], &reqs)
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// accepted reports whether ex moved the call on the way the genuine retry does: it completed, or
// (a tool of several rounds) it asked for the next round's input, other keys than the first round
// asked for and the same the genuine retry asks for. A tool that refuses, or asks again for the
// same input, did not accept what it was sent.
func (it *interim) accepted(ctx context.Context, t *Target, ex *wire.Exchange) bool {
	if c, _, _, _ := verdict(ex); c {
		return true
	}
	next := inputKeys(ex)
	if next == nil || strings.Join(next, "\x00") == strings.Join(inputKeys(it.firstExchange), "\x00") {
		return false
	}
	if it.genuine == nil {
		extra := map[string]any{"inputResponses": responsesFor(it.requests, false)}
		if it.hasState {
			extra["requestState"] = it.state
		}
		it.genuine = callWith(ctx, t, fmt.Sprintf("tools/call %q retried with its requestState and the input it asked for (control)", it.tool.Name),
			it.tool.Name, it.args, allCapabilities, extra)
	}
	return strings.Join(next, "\x00") == strings.Join(inputKeys(it.genuine), "\x00")
}

// callWith calls tool with arguments, declared capabilities and extra params (inputResponses,
// requestState); every round is a new request with a new id.
func callWith(ctx context.Context, t *Target, label, tool string, args, caps map[string]any, extra map[string]any) *wire.Exchange {
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{wire.MetaClientCapabilities: caps}}
	for k, v := range extra {
		params[k] = v
	}
	return t.Call(ctx, "tools/call", params, wire.WithLabel(label))
}

// findInterim returns a callable tool that answers input_required, trying t.MRTRTool first,
// each with every capability declared. It prefers a tool whose interim result carries both
// requestState and inputRequests, since that exercises the most rules.
func findInterim(ctx context.Context, t *Target) (*interim, bool) {
	defs := callableDefs(t)
	for i, d := range defs {
		if d.Name == t.MRTRTool && i > 0 {
			defs[0], defs[i] = defs[i], defs[0]
		}
	}
	var best *interim
	bestScore := -1
	for n, d := range defs {
		if n >= maxMRTRCandidates || bestScore == 3 {
			break
		}
		args := sampleArguments(d.InputSchema)
		ex := callWith(ctx, t, fmt.Sprintf("tools/call %q declaring every client capability", d.Name), d.Name, args, allCapabilities, nil)
		r := resultOf(ex)
		if r == nil || ex.Reply().ResultType() != "input_required" {
			continue
		}
		it := &interim{tool: d, args: args, firstExchange: ex}
		_ = wire.Decode(r["inputRequests"], &it.requests)
		it.hasState = wire.Decode(r["requestState"], &it.state) == nil && r["requestState"] != nil
		score := 0
		if it.hasState {
			score += 2
		}
		if len(it.requests) > 0 {
			score++
		}
		if score > bestScore {
			best, bestScore = it, score
		}
	}
	return best, best != nil
}

// responsesFor fulfils input requests: an accepted elicitation with sample content (or a
// decline), a plain sampling answer, an empty roots list.
func responsesFor(reqs map[string]json.RawMessage, decline bool) map[string]any {
	out := map[string]any{}
	for k, raw := range reqs {
		var ir struct {
			Method string `json:"method"`
			Params struct {
				RequestedSchema json.RawMessage `json:"requestedSchema"`
			} `json:"params"`
		}
		_ = wire.Decode(raw, &ir)
		switch ir.Method {
		case "elicitation/create":
			if decline {
				out[k] = map[string]any{"action": "decline"}
			} else {
				out[k] = map[string]any{"action": "accept", "content": sampleArguments(ir.Params.RequestedSchema)}
			}
		case "sampling/createMessage":
			out[k] = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "sentinel"}, "model": "sentinel", "stopReason": "endTurn"}
		case "roots/list":
			out[k] = map[string]any{"roots": []any{}}
		}
	}
	return out
}

// verdict classifies a retry's answer: complete (the call completed, wire's one meaning: a result
// whose resultType is "complete" or absent, not a tool error), again (a new InputRequiredResult),
// isErr (a JSON-RPC error or a tool result with isError), broken (no JSON-RPC answer, or a 5xx).
func verdict(ex *wire.Exchange) (complete, again, isErr, broken bool) {
	if ex.Response == nil || ex.Status() >= 500 || ex.Reply() == nil {
		return false, false, false, true
	}
	if _, e := ex.ErrorCode(); e {
		return false, false, true, false
	}
	r := resultOf(ex)
	if string(r["isError"]) == "true" {
		return false, false, true, false
	}
	return ex.Reply().Completed(), ex.Reply().ResultType() == "input_required", false, false
}

// tamperings returns two altered copies of an issued requestState, each with one character
// changed at a different place inside it, never the last: in unpadded base64 the last character
// may carry bits a decoder ignores (a 32-byte MAC ends in a character of which only 4 bits
// count, so 4 of 64 final characters decode to the same bytes), and a "tamper" there may be no
// tamper at all. A letter becomes its neighbour in the alphabet and a digit its neighbour, never
// the other case (a hex decoder ignores case), so the decoded bytes change in every common
// encoding. A state too short to hold two inner places is extended instead.
func tamperings(s string) []string {
	if s == "" {
		return []string{"sentinel-forged-state", "c2VudGluZWwtZm9yZ2VkLXN0YXRl"}
	}
	if len(s) < 4 {
		return []string{s + "x", "x" + s}
	}
	var out []string
	used := -1
	for _, at := range []int{len(s) / 3, 2 * len(s) / 3} {
		i := flippable(s, at, used)
		if i < 0 {
			out = append(out, s[:at]+"~"+s[at:])
			continue
		}
		used = i
		b := []byte(s)
		b[i] = neighbour(b[i])
		out = append(out, string(b))
	}
	return out
}

// flippable returns the index of the first letter or digit at or after at (then before it),
// excluding the last character and the index skip; -1 when there is none.
func flippable(s string, at, skip int) int {
	ok := func(i int) bool {
		c := s[i]
		return i != skip && i < len(s)-1 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	}
	for i := at; i < len(s)-1; i++ {
		if ok(i) {
			return i
		}
	}
	for i := at - 1; i >= 0; i-- {
		if ok(i) {
			return i
		}
	}
	return -1
}

// neighbour is the next letter or digit of the same kind and case (z, Z and 9 go back one).
func neighbour(c byte) byte {
	switch c {
	case 'z', 'Z', '9':
		return c - 1
	}
	return c + 1
}

// replayArguments returns arguments for a different request to the same tool: one argument the
// tool's inputSchema declares (required ones first, then optional ones, each in name order) given
// another value of its type. The spec asks servers to bind requestState to "the method name and a
// digest of its salient parameters": an argument the schema does not declare is not salient, and
// a server rightly ignores it. tried lists properties already tried; ok is false when no declared
// argument of a plain type (string, number, integer, boolean, enum) is left.
func replayArguments(schema json.RawMessage, args map[string]any, tried map[string]bool) (other map[string]any, prop string, ok bool) {
	var s struct {
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if wire.Decode(schema, &s) != nil {
		return nil, "", false
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		if tried[n] {
			continue
		}
		p := s.Properties[n]
		cur, has := args[n]
		var v any
		switch ty, _ := p.Type.(string); {
		case len(p.Enum) > 0:
			for _, e := range p.Enum {
				if !has || fmt.Sprint(e) != fmt.Sprint(cur) {
					v = e
					break
				}
			}
		case ty == "string":
			v = "sentinel-replay"
			if c, ok := cur.(string); ok && c == "sentinel-replay" {
				v = "sentinel-replay-2"
			}
		case ty == "integer" || ty == "number":
			v = 2
			if c, ok := cur.(int); ok && c == 2 {
				v = 3
			}
		case ty == "boolean":
			b, _ := cur.(bool)
			v = !b
		}
		if v == nil {
			continue
		}
		other = map[string]any{}
		for k, a := range args {
			other[k] = a
		}
		other[n] = v
		return other, n, true
	}
	return nil, "", false
}

// probeMRTR runs the MRTR checks on the first tool that answers input_required.
//
//	requestState is attacker-controlled: if it drives logic the server MUST integrity-protect it
//	and reject state that fails verification, and SHOULD bind it to the originating request.
//	Missing input SHOULD get a new InputRequiredResult; malformed inputResponses SHOULD get a
//	JSON-RPC error; extra responses SHOULD be ignored; a declined elicitation MUST be handled. A
//	request lacking a needed capability gets -32021 with requiredCapabilities (HTTP 400), and
//	capabilities are never inferred from earlier requests.
func probeMRTR(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	it, ok := findInterim(ctx, t)
	if !ok {
		why := "no callable tool answered input_required (name one with --allow-call)"
		var out []rules.Outcome
		for _, id := range ids("request-state-integrity", "request-state-untrusted", "request-state-anti-replay",
			"mrtr-rerequest-missing", "mrtr-validate-input-responses", "mrtr-ignore-extra-responses",
			"elicitation-decline-handled", "missing-capability-error", "missing-capability-http-400", "no-capability-inference",
			"no-connection-derived-context", "sampling-tool-results-paired") {
			out = append(out, rules.Undecided(id, why))
		}
		return out, nil
	}
	out := []rules.Outcome{toolSamplingOutcome(it)}
	good := responsesFor(it.requests, false)
	withState := func(state string, responses map[string]any) map[string]any {
		extra := map[string]any{}
		if responses != nil {
			extra["inputResponses"] = responses
		}
		if it.hasState {
			extra["requestState"] = state
		}
		return extra
	}
	name := it.tool.Name

	// Tampered and replayed state.
	integrity, untrusted, replay := rules.IDOf("request-state-integrity"), rules.IDOf("request-state-untrusted"), rules.IDOf("request-state-anti-replay")
	if it.hasState {
		out = append(out, tamperOutcomes(ctx, t, it, good, withState)...)
		out = append(out, replayOutcome(ctx, t, it, good, withState))
	} else {
		why := "the tool's InputRequiredResult carried no requestState"
		out = append(out, rules.Absent(integrity, why), rules.Absent(untrusted, why), rules.Absent(replay, why))
	}

	if len(it.requests) > 0 {
		label := fmt.Sprintf("tools/call %q retried without the input it asked for", name)
		ex := callWith(ctx, t, label, name, it.args, allCapabilities, withState(it.state, nil))
		id := rules.IDOf("mrtr-rerequest-missing")
		switch c, again, isErr, _ := verdict(ex); {
		case again || c:
			out = append(out, stamp(rules.Passed(id, observed(label, ex)), ex))
		case isErr:
			out = append(out, stamp(rules.Failed(id, observed(label, ex)+"; missing input SHOULD get a new InputRequiredResult, not an error"), ex))
		default:
			out = append(out, stamp(rules.Failed(id, observed(label, ex)+"; expected a new InputRequiredResult"), ex))
		}

		bad := map[string]any{}
		for k := range it.requests {
			bad[k] = "sentinel: not a response object"
		}
		label = fmt.Sprintf("tools/call %q retried with malformed inputResponses", name)
		ex = callWith(ctx, t, label, name, it.args, allCapabilities, withState(it.state, bad))
		id = rules.IDOf("mrtr-validate-input-responses")
		if ex.Reply() != nil && ex.Reply().Error != nil {
			out = append(out, stamp(rules.Passed(id, observed(label, ex)+"; refused with a JSON-RPC error"), ex))
		} else {
			out = append(out, stamp(rules.Failed(id, observed(label, ex)+"; malformed inputResponses SHOULD get a JSON-RPC error"), ex))
		}

		extra := map[string]any{"sentinel-extra-response": map[string]any{"action": "accept", "content": map[string]any{}}}
		for k, v := range good {
			extra[k] = v
		}
		label = fmt.Sprintf("tools/call %q retried with its input plus an unrequested response key", name)
		ex = callWith(ctx, t, label, name, it.args, allCapabilities, withState(it.state, extra))
		id = rules.IDOf("mrtr-ignore-extra-responses")
		if c, again, _, _ := verdict(ex); c || again {
			out = append(out, stamp(rules.Passed(id, observed(label, ex)+"; the extra key was ignored"), ex))
		} else {
			out = append(out, stamp(rules.Failed(id, observed(label, ex)+"; an unrecognised inputResponses key SHOULD be ignored"), ex))
		}

		out = append(out, declineOutcome(ctx, t, it, withState(it.state, responsesFor(it.requests, true)))...)
	} else {
		why := "the tool's InputRequiredResult carried no inputRequests"
		for _, id := range ids("mrtr-rerequest-missing", "mrtr-validate-input-responses", "mrtr-ignore-extra-responses", "elicitation-decline-handled") {
			out = append(out, rules.Absent(id, why))
		}
	}
	return append(out, capabilityOutcomes(ctx, t, it)...), nil
}

// tamperOutcomes retries the call with two different tamperings of the issued requestState: if
// either completes the call, state that fails verification was accepted.
func tamperOutcomes(ctx context.Context, t *Target, it *interim, good map[string]any, withState func(string, map[string]any) map[string]any) []rules.Outcome {
	integrity, untrusted := rules.IDOf("request-state-integrity"), rules.IDOf("request-state-untrusted")
	name := it.tool.Name
	var refused []string
	var last *wire.Exchange
	for i, forged := range tamperings(it.state) {
		label := fmt.Sprintf("tools/call %q retried with a tampered requestState (change %d of 2: one character altered inside it)", name, i+1)
		ex := callWith(ctx, t, label, name, it.args, allCapabilities, withState(forged, good))
		last = ex
		if cut(ex) {
			return []rules.Outcome{undecidedCut(integrity, label, ex), undecidedCut(untrusted, label, ex)}
		}
		_, _, _, broken := verdict(ex)
		switch {
		case it.accepted(ctx, t, ex):
			return []rules.Outcome{stamp(rules.Failed(integrity, observed(label, ex)+"; state that fails verification was accepted: the call went on as with the genuine state"), ex),
				stamp(rules.Failed(untrusted, observed(label, ex)+"; altered requestState was trusted"), ex)}
		case broken:
			return []rules.Outcome{stamp(rules.Failed(untrusted, observed(label, ex)+"; altered requestState broke the handler instead of being refused"), ex)}
		}
		refused = append(refused, ex.Summary())
	}
	obs := fmt.Sprintf("sent tools/call %q twice with a tampered requestState; got %s", name, strings.Join(refused, " and "))
	return []rules.Outcome{stamp(rules.Passed(integrity, obs+"; neither tampered state was accepted"), last), stamp(rules.Passed(untrusted, obs), last)}
}

// replayOutcome replays the issued requestState on a different request to the same tool: one
// declared argument changed. The changed call is first sent without state as a control: if the
// server refuses those arguments anyway, the replay's refusal would prove nothing, and the next
// declared argument is tried. A completed replay means the state is not bound to its request.
func replayOutcome(ctx context.Context, t *Target, it *interim, good map[string]any, withState func(string, map[string]any) map[string]any) rules.Outcome {
	replay := rules.IDOf("request-state-anti-replay")
	name := it.tool.Name
	tried := map[string]bool{}
	for range 4 {
		other, prop, ok := replayArguments(it.tool.InputSchema, it.args, tried)
		if !ok {
			break
		}
		tried[prop] = true
		ctlLabel := fmt.Sprintf("tools/call %q with %s=%v and no requestState (control for the replay)", name, prop, other[prop])
		ctl := callWith(ctx, t, ctlLabel, name, other, allCapabilities, nil)
		if c, again, _, _ := verdict(ctl); !c && !again {
			continue // these arguments are refused on their own: a refused replay would prove nothing
		}
		label := fmt.Sprintf("tools/call %q with %s=%v, replaying the requestState issued for %s=%v", name, prop, other[prop], prop, it.args[prop])
		ex := callWith(ctx, t, label, name, other, allCapabilities, withState(it.state, good))
		if cut(ex) {
			return undecidedCut(replay, label, ex)
		}
		if it.accepted(ctx, t, ex) {
			return stamp(rules.Failed(replay, observed(label, ex)+"; state issued for one request was accepted for another (no binding to the originating request's parameters)"), ex)
		}
		return stamp(rules.Passed(replay, observed(label, ex)+"; the replayed state was not accepted for a different request"), ex)
	}
	if len(tried) == 0 {
		return rules.Undecided(replay, fmt.Sprintf("tool %q declares no argument of a plain type in its inputSchema, so no different request could be built to replay its requestState on (an undeclared argument is not a salient parameter)", name))
	}
	return rules.Undecided(replay, fmt.Sprintf("tool %q refused every alternative value of its declared arguments even without requestState, so a refused replay would prove nothing", name))
}

// declineOutcome answers every elicitation with decline: the server MUST handle it (a result or
// a JSON-RPC error, never a crash).
func declineOutcome(ctx context.Context, t *Target, it *interim, extra map[string]any) []rules.Outcome {
	id := rules.IDOf("elicitation-decline-handled")
	hasElicit := false
	for _, raw := range it.requests {
		var ir struct {
			Method string `json:"method"`
		}
		if wire.Decode(raw, &ir) == nil && ir.Method == "elicitation/create" {
			hasElicit = true
		}
	}
	if !hasElicit {
		return []rules.Outcome{rules.Absent(id, "the tool asked for no elicitation")}
	}
	label := fmt.Sprintf("tools/call %q retried with every elicitation declined", it.tool.Name)
	ex := callWith(ctx, t, label, it.tool.Name, it.args, allCapabilities, extra)
	if _, _, _, broken := verdict(ex); broken {
		return []rules.Outcome{stamp(rules.Failed(id, observed(label, ex)+"; a declined elicitation was not handled"), ex)}
	}
	return []rules.Outcome{stamp(rules.Passed(id, observed(label, ex)), ex)}
}

// capabilityOutcomes calls the tool again declaring no capability: the server must not infer
// the capabilities of the earlier call, and if it cannot proceed it answers -32021 with
// requiredCapabilities and HTTP 400.
func capabilityOutcomes(ctx context.Context, t *Target, it *interim) []rules.Outcome {
	label := fmt.Sprintf("tools/call %q declaring no client capability (after a call that declared all)", it.tool.Name)
	ex := callWith(ctx, t, label, it.tool.Name, it.args, map[string]any{}, nil)
	inference, capErr, capStatus := rules.IDOf("no-capability-inference"), rules.IDOf("missing-capability-error"), rules.IDOf("missing-capability-http-400")
	connection := rules.IDOf("no-connection-derived-context")
	if cut(ex) {
		return []rules.Outcome{undecidedCut(inference, label, ex), undecidedCut(connection, label, ex)}
	}
	var out []rules.Outcome
	undeclared := undeclaredInputRequests(ex)
	if undeclared != "" {
		out = append(out, stamp(rules.Failed(inference, fmt.Sprintf("%s; the server asked for %s although this request declared {} (no capability)", observed(label, ex), undeclared)), ex))
	} else {
		out = append(out, stamp(rules.Passed(inference, observed(label, ex)+"; no input request relied on an undeclared capability"), ex))
	}
	out = append(out, connectionOutcome(ctx, t, it, label, ex, undeclared))
	code, isErr := ex.ErrorCode()
	if !isErr || code != wire.CodeMissingCapability {
		why := "the tool did not refuse for a missing capability, so the -32021 path was not reached"
		return append(out, rules.Undecided(capErr, why), rules.Undecided(capStatus, why))
	}
	var data struct {
		Required map[string]any `json:"requiredCapabilities"`
	}
	if ex.Reply().Error.Data != nil && wire.Decode(ex.Reply().Error.Data, &data) == nil && data.Required != nil {
		out = append(out, stamp(rules.Passed(capErr, observed(label, ex)), ex))
	} else {
		out = append(out, stamp(rules.Failed(capErr, observed(label, ex)+"; -32021 without data.requiredCapabilities"), ex))
	}
	if ex.Status() == http.StatusBadRequest || ex.ContentType() == "text/event-stream" {
		out = append(out, stamp(rules.Passed(capStatus, observed(label, ex)), ex))
	} else {
		out = append(out, stamp(rules.Failed(capStatus, observed(label, ex)+"; expected HTTP 400"), ex))
	}
	return out
}

// undeclaredInputRequests names the first input request kind in ex's InputRequiredResult (the
// request declared nothing, so any is undeclared); "" when there is none.
func undeclaredInputRequests(ex *wire.Exchange) string {
	r := resultOf(ex)
	if r == nil || ex.Reply().ResultType() != "input_required" {
		return ""
	}
	var reqs map[string]struct {
		Method string `json:"method"`
	}
	_ = wire.Decode(r["inputRequests"], &reqs)
	for _, ir := range reqs {
		if ir.Method != "" {
			return ir.Method
		}
	}
	return ""
}

// elicitations returns the elicitation/create input requests of an interim result, by key.
func elicitations(it *interim) map[string]map[string]json.RawMessage {
	out := map[string]map[string]json.RawMessage{}
	for k, raw := range it.requests {
		var ir struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if wire.Decode(raw, &ir) == nil && ir.Method == "elicitation/create" {
			out[k] = ir.Params
		}
	}
	return out
}

// urlRE finds URLs a user could click.
var urlRE = lazyRegexp(`(?i)\b(?:https?|ftp)://[^\s"'<>]+`)

// probeMRTRElicitation grades the elicitations an MRTR tool sends.
//
//	URL-mode elicitations SHOULD use https (loopback http is development). Form-mode requests
//	SHOULD NOT carry URLs meant to be clicked. The server SHOULD check that form data matches
//	the requestedSchema: a response that violates it gets an error or a new InputRequiredResult,
//	never a completion with the bad data.
func probeMRTRElicitation(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	https, noURLs, validated := rules.IDOf("elicitation-url-https"), rules.IDOf("form-no-clickable-urls"), rules.IDOf("elicitation-response-validated")
	it, ok := findInterim(ctx, t)
	if !ok {
		why := "no callable tool answered input_required (name one with --allow-call)"
		return []rules.Outcome{rules.Undecided(https, why), rules.Undecided(noURLs, why), rules.Undecided(validated, why)}, nil
	}
	ex := it.firstExchange
	label := fmt.Sprintf("tools/call %q declaring every client capability", it.tool.Name)
	var out []rules.Outcome
	urlSeen, formSeen := false, false
	var formKey string
	var formSchema json.RawMessage
	for k, params := range elicitations(it) {
		var mode, link string
		_ = wire.Decode(params["mode"], &mode)
		if mode == "url" {
			urlSeen = true
			_ = wire.Decode(params["url"], &link)
			u, err := url.Parse(link)
			switch {
			case err == nil && u.Scheme == "https":
				out = append(out, stamp(rules.Passed(https, observed(label, ex)+"; url "+link), ex))
			case err == nil && u.Scheme == "http" && isLoopbackHost(u.Hostname()):
				out = append(out, stamp(rules.Passed(https, observed(label, ex)+"; loopback development url "+link), ex))
			default:
				out = append(out, stamp(rules.Failed(https, fmt.Sprintf("%s; inputRequests[%q] sends the user to %q, not an https URL", observed(label, ex), k, link)), ex))
			}
			continue
		}
		formSeen, formKey, formSchema = true, k, params["requestedSchema"]
		raw, _ := json.Marshal(params)
		if m := urlRE().FindString(string(raw)); m != "" {
			out = append(out, stamp(rules.Failed(noURLs, fmt.Sprintf("%s; form elicitation inputRequests[%q] carries the URL %q", observed(label, ex), k, m)), ex))
		} else {
			out = append(out, stamp(rules.Passed(noURLs, observed(label, ex)+"; no URL in the form elicitation"), ex))
		}
	}
	if !urlSeen {
		out = append(out, rules.Absent(https, "the tool asked for no URL-mode elicitation"))
	}
	if !formSeen {
		why := "the tool asked for no form-mode elicitation"
		return append(out, rules.Absent(noURLs, why), rules.Absent(validated, why)), nil
	}
	bad, prop, ok := wrongTypedArguments(formSchema)
	if !ok {
		return append(out, rules.Undecided(validated, "the form's requestedSchema declares no typed property to violate")), nil
	}
	responses := responsesFor(it.requests, false)
	responses[formKey] = map[string]any{"action": "accept", "content": bad}
	extra := map[string]any{"inputResponses": responses}
	if it.hasState {
		extra["requestState"] = it.state
	}
	label = fmt.Sprintf("tools/call %q retried with a form response whose %q violates the requestedSchema", it.tool.Name, prop)
	retry := callWith(ctx, t, label, it.tool.Name, it.args, allCapabilities, extra)
	if it.accepted(ctx, t, retry) {
		return append(out, stamp(rules.Failed(validated, observed(label, retry)+"; the call went on with data that violates the requestedSchema"), retry)), nil
	}
	return append(out, stamp(rules.Passed(validated, observed(label, retry)+"; the invalid response was not accepted"), retry)), nil
}

// isLoopbackHost reports whether h names the local machine.
func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// connectionOutcome separates "derived from the connection" from "ignores capabilities": the
// capability-less call is repeated on a fresh connection. Only a server that asks for an
// undeclared input on the reused connection but not on a fresh one derives context from the
// connection; one that asks on both ignores the declaration altogether (mrtr-declared-capabilities).
func connectionOutcome(ctx context.Context, t *Target, it *interim, label string, reused *wire.Exchange, undeclaredReused string) rules.Outcome {
	id := rules.IDOf("no-connection-derived-context")
	params := map[string]any{"name": it.tool.Name, "arguments": it.args, "_meta": map[string]any{wire.MetaClientCapabilities: map[string]any{}}}
	freshLabel := label + ", on a fresh connection"
	fresh := t.SendFresh(ctx, wire.NewCall("tools/call", params, wire.WithLabel(freshLabel)))
	if cut(fresh) {
		return undecidedCut(id, freshLabel, fresh)
	}
	undeclaredFresh := undeclaredInputRequests(fresh)
	switch {
	case undeclaredReused != "" && undeclaredFresh == "":
		return stamp(rules.Failed(id, fmt.Sprintf("%s; on the connection that had declared every capability the server asked for %s, on a fresh one it did not", observed(label, reused), undeclaredReused)), reused)
	case undeclaredReused != "":
		o := rules.Undecided(id, "the server asks for undeclared input on fresh connections too: it ignores the declaration altogether (see mrtr-declared-capabilities), so a connection-derived context cannot be told apart")
		o.Observed = observed(freshLabel, fresh)
		return stamp(o, fresh)
	}
	return stamp(rules.Passed(id, observed(label, reused)+"; the capability-less call was judged on its own declaration on a reused connection"), reused)
}

// toolSamplingOutcome: follow-ups of a tool-enabled sampling loop pair every ToolUseContent with a
// ToolResultContent. Only a server that asks for sampling with tools runs such a loop (n/a
// otherwise); driving one takes a model answering with tool calls, which the scan does not
// play.
func toolSamplingOutcome(it *interim) rules.Outcome {
	id := rules.IDOf("sampling-tool-results-paired")
	for _, raw := range it.requests {
		var ir struct {
			Method string `json:"method"`
			Params struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"params"`
		}
		if wire.Decode(raw, &ir) == nil && ir.Method == "sampling/createMessage" && len(ir.Params.Tools) > 0 {
			return stamp(rules.Undecided(id, "the tool asks for sampling with tools; grading the follow-ups needs a model that answers with tool calls, which the scan does not play"), it.firstExchange)
		}
	}
	return stamp(rules.Absent(id, fmt.Sprintf("tool %q asks for no tool-enabled sampling, so it runs no sampling loop with tools", it.tool.Name)), it.firstExchange)
}
