package active

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"

	"github.com/mcp-sentinel/sentinel/internal/lazyre"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// mrtrProbes exercise multi round-trip requests on a tool and on a prompt that answer
// input_required (a prompts/get is as much an MRTR request as a tools/call, and has no side
// effects): the requestState round trip, tampering and replay, missing, malformed, extra and
// declined input responses, what the server does when the client declares no capability or only
// one elicitation mode, and the elicitations themselves.
func mrtrProbes() []Probe {
	return []Probe{
		{Name: "mrtr", Requires: rules.FeatureCallableTool, Run: probeMRTR, RuleIDs: ids(mrtrRules...)},
		{Name: "mrtr-elicitation", Requires: rules.FeatureCallableTool, Run: probeMRTRElicitation, RuleIDs: ids(mrtrElicitationRules...)},
		{Name: "mrtr-prompt", Requires: rules.FeaturePrompts, Run: probeMRTRPrompt, RuleIDs: ids(mrtrRules...)},
		{Name: "mrtr-prompt-elicitation", Requires: rules.FeaturePrompts, Run: probeMRTRPromptElicitation, RuleIDs: ids(mrtrElicitationRules...)},
	}
}

// mrtrRules are the rules the MRTR round trips settle, on a tool or on a prompt.
var mrtrRules = []string{
	"request-state-integrity", "request-state-untrusted", "request-state-anti-replay",
	"mrtr-rerequest-missing", "mrtr-validate-input-responses", "mrtr-ignore-extra-responses",
	"elicitation-decline-handled", "missing-capability-error", "missing-capability-http-400",
	"no-capability-inference", "no-connection-derived-context", "sampling-tool-results-paired",
}

// mrtrElicitationRules are the rules the elicitations of an MRTR target settle.
var mrtrElicitationRules = []string{
	"elicitation-url-https", "form-no-clickable-urls", "elicitation-response-validated", "elicitation-declared-modes",
}

// allCapabilities is what the probe declares to coax a tool into asking: every input kind.
var allCapabilities = map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}, "sampling": map[string]any{}, "roots": map[string]any{}}

// interim is a tools/call or a prompts/get answered with an InputRequiredResult: the MRTR
// target every round trip of the probes retries.
type interim struct {
	// method is the request that answered input_required: tools/call or prompts/get.
	method string
	// name is the tool's or the prompt's name.
	name string
	// schema is a JSON Schema of the arguments, for the replay: a tool's inputSchema, or a
	// prompt's listed arguments as string properties.
	schema        json.RawMessage
	args          map[string]any
	requests      map[string]json.RawMessage // inputRequests, by key
	state         string
	hasState      bool
	firstExchange *wire.Exchange
	// genuine is the retry with the issued state and well-formed answers (the control every
	// altered retry is compared with); nil until accepted first needs it.
	genuine *wire.Exchange
}

// what labels a request to the target: `tools/call "book"` and then rest.
func (it *interim) what(rest string, a ...any) string {
	return fmt.Sprintf("%s %q ", it.method, it.name) + fmt.Sprintf(rest, a...)
}

// kind is "tool" or "prompt", for the prose of outcomes.
func (it *interim) kind() string {
	if it.method == "prompts/get" {
		return "prompt"
	}
	return "tool"
}

// spec builds a request to the target with arguments, declared capabilities and extra params
// (inputResponses, requestState); every round is a new request with a new id.
func (it *interim) spec(label string, args, caps, extra map[string]any) wire.RequestSpec {
	params := map[string]any{"name": it.name, "arguments": args, "_meta": map[string]any{wire.MetaClientCapabilities: caps}}
	for k, v := range extra {
		params[k] = v
	}
	return wire.NewCall(it.method, params, wire.WithLabel(label))
}

// call sends spec's request on the shared client.
func (it *interim) call(ctx context.Context, t *Target, label string, args, caps, extra map[string]any) *wire.Exchange {
	return t.Send(ctx, it.spec(label, args, caps, extra))
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
// (a target of several rounds) it asked for the next round's input, other keys than the first
// round asked for and the same the genuine retry asks for. A target that refuses, or asks again
// for the same input, did not accept what it was sent.
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
		it.genuine = it.call(ctx, t, it.what("retried with its requestState and the input it asked for (control)"), it.args, allCapabilities, extra)
	}
	return strings.Join(next, "\x00") == strings.Join(inputKeys(it.genuine), "\x00")
}

// mrtrCandidate is a request that might answer input_required: a callable tool or a listed
// prompt, with the arguments the scan built for it.
type mrtrCandidate struct {
	method, name string
	schema       json.RawMessage
	args         map[string]any
}

// triedCandidate is a candidate and what its first round got.
type triedCandidate struct {
	mrtrCandidate
	ex *wire.Exchange
}

// interimFinder finds the target of the MRTR probes. When there is none, absent says whether the
// server is known to have no such target (n/a) or the scan only could not find one
// (indeterminate), and why says which.
type interimFinder func(ctx context.Context, t *Target) (it *interim, absent bool, why string)

// findToolInterim returns a callable tool that answers input_required, trying t.MRTRTool first.
func findToolInterim(ctx context.Context, t *Target) (*interim, bool, string) {
	defs := callableDefs(t)
	for i, d := range defs {
		if d.Name == t.MRTRTool && i > 0 {
			defs[0], defs[i] = defs[i], defs[0]
		}
	}
	cands := make([]mrtrCandidate, 0, len(defs))
	for _, d := range defs {
		cands = append(cands, mrtrCandidate{method: "tools/call", name: d.Name, schema: d.InputSchema, args: sampleArguments(d.InputSchema)})
	}
	if it, _ := bestInterim(ctx, t, cands); it != nil {
		return it, false, ""
	}
	return nil, false, "no callable tool answered input_required (name one with --allow-call)"
}

// bestInterim calls each candidate (at most maxMRTRCandidates) with every capability declared
// and returns the one whose InputRequiredResult exercises the most rules: requestState and
// inputRequests both, then requestState, then inputRequests; the first of equals. The
// candidates tried that did not answer input_required are returned too, with their answers, for
// the reason a caller gives when there is none.
func bestInterim(ctx context.Context, t *Target, cands []mrtrCandidate) (*interim, []triedCandidate) {
	var best *interim
	var others []triedCandidate
	bestScore := -1
	for n, c := range cands {
		if n >= maxMRTRCandidates || bestScore == 3 {
			break
		}
		it := &interim{method: c.method, name: c.name, schema: c.schema, args: c.args}
		ex := firstRound(ctx, t, it, c)
		r := resultOf(ex)
		if r == nil || ex.Reply().ResultType() != "input_required" {
			others = append(others, triedCandidate{c, ex})
			continue
		}
		it.firstExchange = ex
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
	return best, others
}

// firstRound sends a candidate's first round, declaring every capability. A prompt's is sent once
// per scan (sendShared): getting a prompt has no side effects, and both prompt MRTR probes search
// the same list with the same requests, so each prompt that does not ask for input is got once.
// An answer that asks for input is not handed on: its requestState and input requests were
// issued for that one request, and each probe goes on to tamper with, replay and complete its
// own (a server may accept a state once only), so a probe handed one sends its own first round,
// as it would have without the sharing. A tool's first round is a tools/call, which may act, and
// is each probe's own.
func firstRound(ctx context.Context, t *Target, it *interim, c mrtrCandidate) *wire.Exchange {
	label := it.what("declaring every client capability")
	send := func(ctx context.Context) *wire.Exchange { return it.call(ctx, t, label, c.args, allCapabilities, nil) }
	args, err := json.Marshal(c.args)
	if c.method != "prompts/get" || err != nil {
		return send(ctx)
	}
	ex, sent := t.sendShared(ctx, c.method+"\x00"+c.name+"\x00"+string(args), send)
	if !sent && resultOf(ex) != nil && ex.Reply().ResultType() == "input_required" {
		return send(ctx)
	}
	return ex
}

// missed is every rule of a probe that found no MRTR target: n/a when the server is known to
// have none, else indeterminate.
func missed(names []string, absent bool, why string) []rules.Outcome {
	out := make([]rules.Outcome, 0, len(names))
	for _, id := range ids(names...) {
		if absent {
			out = append(out, rules.Absent(id, why))
		} else {
			out = append(out, rules.Undecided(id, why))
		}
	}
	return out
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

// probeMRTR runs the MRTR checks on the callable tool that answers input_required.
func probeMRTR(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	return mrtrProbe(ctx, t, findToolInterim), nil
}

// mrtrProbe runs the MRTR checks on the target find returns.
//
//	requestState is attacker-controlled: if it drives logic the server MUST integrity-protect it
//	and reject state that fails verification, and SHOULD bind it to the originating request.
//	Missing input SHOULD get a new InputRequiredResult; malformed inputResponses SHOULD get a
//	JSON-RPC error; extra responses SHOULD be ignored; a declined elicitation MUST be handled. A
//	request lacking a needed capability gets -32021 with requiredCapabilities (HTTP 400), and
//	capabilities are never inferred from earlier requests.
func mrtrProbe(ctx context.Context, t *Target, find interimFinder) []rules.Outcome {
	it, absent, why := find(ctx, t)
	if it == nil {
		return missed(mrtrRules, absent, why)
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

	// Tampered and replayed state.
	integrity, untrusted, replay := rules.IDOf("request-state-integrity"), rules.IDOf("request-state-untrusted"), rules.IDOf("request-state-anti-replay")
	if it.hasState {
		out = append(out, tamperOutcomes(ctx, t, it, good, withState)...)
		out = append(out, replayOutcome(ctx, t, it, good, withState))
	} else {
		why := fmt.Sprintf("the %s's InputRequiredResult carried no requestState", it.kind())
		out = append(out, rules.Absent(integrity, why), rules.Absent(untrusted, why), rules.Absent(replay, why))
	}

	if len(it.requests) > 0 {
		label := it.what("retried without the input it asked for")
		ex := it.call(ctx, t, label, it.args, allCapabilities, withState(it.state, nil))
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
		label = it.what("retried with malformed inputResponses")
		ex = it.call(ctx, t, label, it.args, allCapabilities, withState(it.state, bad))
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
		label = it.what("retried with its input plus an unrequested response key")
		ex = it.call(ctx, t, label, it.args, allCapabilities, withState(it.state, extra))
		id = rules.IDOf("mrtr-ignore-extra-responses")
		if c, again, _, _ := verdict(ex); c || again {
			out = append(out, stamp(rules.Passed(id, observed(label, ex)+"; the extra key was ignored"), ex))
		} else {
			out = append(out, stamp(rules.Failed(id, observed(label, ex)+"; an unrecognised inputResponses key SHOULD be ignored"), ex))
		}

		out = append(out, declineOutcome(ctx, t, it, withState(it.state, responsesFor(it.requests, true)))...)
	} else {
		why := fmt.Sprintf("the %s's InputRequiredResult carried no inputRequests", it.kind())
		for _, id := range ids("mrtr-rerequest-missing", "mrtr-validate-input-responses", "mrtr-ignore-extra-responses", "elicitation-decline-handled") {
			out = append(out, rules.Absent(id, why))
		}
	}
	return append(out, capabilityOutcomes(ctx, t, it)...)
}

// tamperOutcomes retries the call with two different tamperings of the issued requestState: if
// either completes the call, state that fails verification was accepted.
func tamperOutcomes(ctx context.Context, t *Target, it *interim, good map[string]any, withState func(string, map[string]any) map[string]any) []rules.Outcome {
	integrity, untrusted := rules.IDOf("request-state-integrity"), rules.IDOf("request-state-untrusted")
	var refused []string
	var last *wire.Exchange
	for i, forged := range tamperings(it.state) {
		label := it.what("retried with a tampered requestState (change %d of 2: one character altered inside it)", i+1)
		ex := it.call(ctx, t, label, it.args, allCapabilities, withState(forged, good))
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
	obs := "sent " + it.what("twice with a tampered requestState; got %s", strings.Join(refused, " and "))
	return []rules.Outcome{stamp(rules.Passed(integrity, obs+"; neither tampered state was accepted"), last), stamp(rules.Passed(untrusted, obs), last)}
}

// replayOutcome replays the issued requestState on a different request to the same target: one
// declared argument changed. The changed call is first sent without state as a control: if the
// server refuses those arguments anyway, the replay's refusal would prove nothing, and the next
// declared argument is tried. A completed replay means the state is not bound to its request.
func replayOutcome(ctx context.Context, t *Target, it *interim, good map[string]any, withState func(string, map[string]any) map[string]any) rules.Outcome {
	replay := rules.IDOf("request-state-anti-replay")
	tried := map[string]bool{}
	for range 4 {
		other, prop, ok := replayArguments(it.schema, it.args, tried)
		if !ok {
			break
		}
		tried[prop] = true
		ctlLabel := it.what("with %s=%v and no requestState (control for the replay)", prop, other[prop])
		ctl := it.call(ctx, t, ctlLabel, other, allCapabilities, nil)
		if c, again, _, _ := verdict(ctl); !c && !again {
			continue // these arguments are refused on their own: a refused replay would prove nothing
		}
		issued := fmt.Sprintf("%s=%v", prop, it.args[prop])
		if _, ok := it.args[prop]; !ok {
			issued = "the request without " + prop
		}
		label := it.what("with %s=%v, replaying the requestState issued for %s", prop, other[prop], issued)
		ex := it.call(ctx, t, label, other, allCapabilities, withState(it.state, good))
		if cut(ex) {
			return undecidedCut(replay, label, ex)
		}
		if it.accepted(ctx, t, ex) {
			return stamp(rules.Failed(replay, observed(label, ex)+"; state issued for one request was accepted for another (no binding to the originating request's parameters)"), ex)
		}
		return stamp(rules.Passed(replay, observed(label, ex)+"; the replayed state was not accepted for a different request"), ex)
	}
	if len(tried) == 0 {
		return rules.Undecided(replay, fmt.Sprintf("%s %q declares no argument of a plain type, so no different request could be built to replay its requestState on (an undeclared argument is not a salient parameter)", it.kind(), it.name))
	}
	return rules.Undecided(replay, fmt.Sprintf("%s %q refused every alternative value of its declared arguments even without requestState, so a refused replay would prove nothing", it.kind(), it.name))
}

// declineOutcome answers every elicitation with decline: the server MUST handle it (a result or
// a JSON-RPC error, never a crash).
func declineOutcome(ctx context.Context, t *Target, it *interim, extra map[string]any) []rules.Outcome {
	id := rules.IDOf("elicitation-decline-handled")
	if len(elicitations(it)) == 0 {
		return []rules.Outcome{rules.Absent(id, fmt.Sprintf("the %s asked for no elicitation", it.kind()))}
	}
	label := it.what("retried with every elicitation declined")
	ex := it.call(ctx, t, label, it.args, allCapabilities, extra)
	if _, _, _, broken := verdict(ex); broken {
		return []rules.Outcome{stamp(rules.Failed(id, observed(label, ex)+"; a declined elicitation was not handled"), ex)}
	}
	return []rules.Outcome{stamp(rules.Passed(id, observed(label, ex)), ex)}
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
var urlRE = lazyre.New(`(?i)\b(?:https?|ftp)://[^\s"'<>]+`)

// probeMRTRElicitation grades the elicitations an MRTR tool sends.
//
//	URL-mode elicitations SHOULD use https (loopback http is development). Form-mode requests
//	SHOULD NOT carry URLs meant to be clicked. The server SHOULD check that form data matches
//	the requestedSchema: a response that violates it gets an error or a new InputRequiredResult,
//	never a completion with the bad data.
func probeMRTRElicitation(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	return mrtrElicitation(ctx, t, findToolInterim), nil
}

// mrtrElicitation grades the elicitations of the target find returns, and the modes it uses.
func mrtrElicitation(ctx context.Context, t *Target, find interimFinder) []rules.Outcome {
	https, noURLs, validated := rules.IDOf("elicitation-url-https"), rules.IDOf("form-no-clickable-urls"), rules.IDOf("elicitation-response-validated")
	it, absent, why := find(ctx, t)
	if it == nil {
		return missed(mrtrElicitationRules, absent, why)
	}
	ex := it.firstExchange
	label := it.what("declaring every client capability")
	out := modeOutcomes(ctx, t, it)
	urlSeen, formSeen := false, false
	var formKey string
	var formSchema json.RawMessage
	asked := elicitations(it)
	for _, k := range sortedKeys(asked) {
		params := asked[k]
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
		out = append(out, rules.Absent(https, fmt.Sprintf("the %s asked for no URL-mode elicitation", it.kind())))
	}
	if !formSeen {
		why := fmt.Sprintf("the %s asked for no form-mode elicitation", it.kind())
		return append(out, rules.Absent(noURLs, why), rules.Absent(validated, why))
	}
	bad, prop, ok := wrongTypedArguments(formSchema)
	if !ok {
		return append(out, rules.Undecided(validated, "the form's requestedSchema declares no typed property to violate"))
	}
	responses := responsesFor(it.requests, false)
	responses[formKey] = map[string]any{"action": "accept", "content": bad}
	extra := map[string]any{"inputResponses": responses}
	if it.hasState {
		extra["requestState"] = it.state
	}
	label = it.what("retried with a form response whose %q violates the requestedSchema", prop)
	retry := it.call(ctx, t, label, it.args, allCapabilities, extra)
	if it.accepted(ctx, t, retry) {
		return append(out, stamp(rules.Failed(validated, observed(label, retry)+"; the call went on with data that violates the requestedSchema"), retry))
	}
	return append(out, stamp(rules.Passed(validated, observed(label, retry)+"; the invalid response was not accepted"), retry))
}

// isLoopbackHost reports whether h names the local machine.
func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
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
			return stamp(rules.Undecided(id, fmt.Sprintf("the %s asks for sampling with tools; grading the follow-ups needs a model that answers with tool calls, which the scan does not play", it.kind())), it.firstExchange)
		}
	}
	return stamp(rules.Absent(id, fmt.Sprintf("%s %q asks for no tool-enabled sampling, so it runs no sampling loop with tools", it.kind(), it.name)), it.firstExchange)
}
