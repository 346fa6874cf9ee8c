package active

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/internal/jsonschema"
	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// toolProbes cover tools/list (shape, order, currency), unknown tools, and calling the tools the
// scan may call: output schemas, the text mirror of structured output, and input validation.
func toolProbes() []Probe {
	return []Probe{
		{Name: "tools-list", Requires: rules.FeatureTools, Run: probeToolsList, RuleIDs: ids(
			"tools-list-current", "tools-deterministic-order", "tool-name-syntax", "tool-name-unique",
			"input-schema-object", "schemas-valid-dialect", "json-schema-2020-12")},
		{Name: "unknown-tool", Requires: rules.FeatureTools, RuleIDs: ids("unknown-tool-protocol-error"), Run: probeUnknownTool},
		{Name: "tool-call", Requires: rules.FeatureCallableTool, Run: probeToolCall, RuleIDs: ids(
			"output-schema-conformance", "structured-text-mirror")},
		{Name: "tool-bad-arguments", Requires: rules.FeatureCallableTool, Run: probeToolBadArguments, RuleIDs: ids(
			"validate-tool-inputs", "tool-errors-as-results")},
		{Name: "tool-progress", Requires: rules.FeatureProgress, Run: probeToolProgress, RuleIDs: ids(
			"progress-token-scope", "progress-increases", "progress-stops")},
	}
}

// maxProgressCalls bounds the tools probeToolProgress calls.
const maxProgressCalls = 16

// probeToolProgress calls the callable tools with a progressToken, each its own, so whatever
// progress they report is graded by the passive checks: tokens MUST be the request's, values
// MUST increase, and nothing follows the final response. A tool that reported progress is
// called again without a token, where no progress may appear. Which tool reports progress is not
// declared anywhere, hence every callable tool, up to a bound, concurrently.
func probeToolProgress(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	defs := callableDefs(t)
	if len(defs) > maxProgressCalls {
		defs = defs[:maxProgressCalls]
	}
	var wg sync.WaitGroup
	for _, d := range defs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args, how := t.toolArguments(d.Name, d.InputSchema)
			ex := t.Call(ctx, "tools/call", map[string]any{"name": d.Name, "arguments": args},
				wire.WithMeta("progressToken", "sentinel-progress-"+d.Name), wire.WithLabel(fmt.Sprintf("tools/call %q with %s and a progressToken", d.Name, how)))
			if !reportsProgress(ex) {
				return
			}
			if t.stdio != nil {
				t.stdio.cancelMidway(ctx, t, d.Name, args, how, progressGap(ex))
			}
			if ex.Reply() == nil {
				return
			}
			// A tool that reports progress is called once more without a token: progress
			// MUST only name tokens an active request provided, so none may come back. Not
			// after a call that got no answer: the server may still be working on it, so the
			// second call would wait as long, on a busier server, and prove nothing more.
			t.Call(ctx, "tools/call", map[string]any{"name": d.Name, "arguments": args},
				wire.WithLabel(fmt.Sprintf("tools/call %q with %s and no progressToken", d.Name, how)))
		}()
	}
	wg.Wait()
	return nil, nil
}

// progressGap estimates how far apart a call's progress notifications came: the time from the
// request to its last message, over the number of progress notifications.
func progressGap(ex *wire.Exchange) time.Duration {
	n := 0
	for _, m := range ex.Response.Messages {
		if m.Method == "notifications/progress" {
			n++
		}
	}
	return ex.Duration / time.Duration(max(n, 1))
}

// reportsProgress reports whether ex carried a notifications/progress message.
func reportsProgress(ex *wire.Exchange) bool {
	if ex.Response == nil {
		return false
	}
	for _, m := range ex.Response.Messages {
		if m.Method == "notifications/progress" {
			return true
		}
	}
	return false
}

// passiveFor runs the passive checks of the named rules on ex with history h and keeps their
// outcomes: probes of "both"-mode rules judge their own exchanges the same way live traffic is.
// Only those rules' checks run (passive.RunFor): the exchange was already graded in full when it
// was sent.
func passiveFor(ex *wire.Exchange, h *passive.History, names ...string) []rules.Outcome {
	out := passive.RunFor(ex, h, names...)
	for i := range out {
		out[i] = withRequest(out[i], ex)
	}
	return out
}

// withRequest prefixes a failed passive outcome's Observed with the request it was seen in and
// the answer's summary, so every failure says what was sent and what came back.
func withRequest(o rules.Outcome, ex *wire.Exchange) rules.Outcome {
	if o.Status != rules.Fail || o.Observed == "" || ex == nil || strings.HasPrefix(o.Observed, "sent ") || strings.HasPrefix(o.Observed, "on ") {
		return o
	}
	o.Observed = fmt.Sprintf("on %s: %s", ex.Summary(), o.Observed)
	return o
}

// resultOf decodes the reply's result object; nil when the reply is not a result.
func resultOf(ex *wire.Exchange) map[string]json.RawMessage {
	r := ex.Reply()
	if r == nil || r.Error != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if wire.Decode(r.Result, &m) != nil {
		return nil
	}
	return m
}

// complete reports whether ex ended in a final result (wire.Message.Completed: resultType
// "complete", or none at all), the one meaning of "the call completed" checks and probes share.
func complete(ex *wire.Exchange) bool { return ex.Reply().Completed() }

// probeToolsList: with tools declared, tools/list MUST return the current set; names SHOULD be
// well-formed and unique; inputSchema MUST be an object schema valid in its dialect; the order
// SHOULD be deterministic, so the list is fetched again and the orders compared (sampleToolOrder).
func probeToolsList(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	h := passive.NewHistory()
	label := "tools/list"
	first := t.firstPage(ctx, "tools/list", label)
	if cut(first) {
		return []rules.Outcome{undecidedCut(rules.IDOf("tools-list-current"), label, first)}, nil
	}
	var out []rules.Outcome
	id := rules.IDOf("tools-list-current")
	var tools []json.RawMessage
	if r := resultOf(first); r != nil && wire.Decode(r["tools"], &tools) == nil && r["tools"] != nil {
		out = append(out, stamp(rules.Passed(id, fmt.Sprintf("%s; %d tool(s) listed", observed(label, first), len(tools))), first))
	} else {
		out = append(out, stamp(rules.Failed(id, observed(label, first)+"; expected a result with a tools array although the tools capability is declared"), first))
		return out, nil
	}
	out = append(out, passiveFor(first, h, "tool-name-syntax", "tool-name-unique", "input-schema-object", "schemas-valid-dialect")...)
	out = append(out, defaultDialectOutcome(label, first, tools))
	return append(out, sampleToolOrder(ctx, t, first)...), nil
}

// orderSamples is how many more times probeToolsList asks for the list to judge its order. A
// server that lists in hash-map order repeats one order by chance, so a single second request let
// the unmigrated fixture pass (or, when its set changed in between, go unjudged) about one scan in
// ten; more samples make a lucky pass rare and a flip between verdicts rarer still.
const orderSamples = 4

// sampleToolOrder asks for tools/list up to orderSamples more times and judges
// tools-deterministic-order on every pair of results (the first page included), each pair through
// passive's own check on a fresh history: a pair with the same set in a different order fails the
// rule (no more requests are sent), a pass needs at least one pair with the same set and none that
// differed, and when no two results had the same set the rule is indeterminate with that reason.
// Every pair, not only consecutive ones: a list that grows once mid-scan (a tool unlocked by
// another probe) still leaves pairs with one set among five results.
func sampleToolOrder(ctx context.Context, t *Target, first *wire.Exchange) []rules.Outcome {
	id := rules.IDOf("tools-deterministic-order")
	samples := []*wire.Exchange{first}
	var pass *rules.Outcome
	for i := range orderSamples {
		ex := t.Call(ctx, "tools/list", nil, wire.WithLabel(fmt.Sprintf("tools/list, again (%d of %d)", i+1, orderSamples)))
		if cut(ex) {
			break
		}
		for _, earlier := range samples {
			h := passive.NewHistory()
			passiveFor(earlier, h, "tools-deterministic-order")
			for _, o := range passiveFor(ex, h, "tools-deterministic-order") {
				if o.Status == rules.Fail {
					return []rules.Outcome{o}
				}
				if o.Status == rules.Pass && pass == nil {
					o := o
					pass = &o
				}
			}
		}
		samples = append(samples, ex)
	}
	if pass != nil {
		return []rules.Outcome{*pass}
	}
	if len(samples) < 2 {
		return []rules.Outcome{rules.Undecided(id, "no second tools/list result arrived whole, so there was no order to compare")}
	}
	return []rules.Outcome{rules.Undecided(id, fmt.Sprintf("no two of %d tools/list results had the same set of tools, so their order could not be compared", len(samples)))}
}

// probeUnknownTool: calling a tool that does not exist SHOULD get a JSON-RPC error (-32602), a
// protocol error, not a tool result.
func probeUnknownTool(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	name := "sentinel-no-such-tool-7f3a"
	label := fmt.Sprintf("tools/call for unknown tool %q", name)
	ex := t.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, wire.WithLabel(label))
	id := rules.IDOf("unknown-tool-protocol-error")
	if cut(ex) {
		return []rules.Outcome{undecidedCut(id, label, ex)}, nil
	}
	obs := observed(label, ex)
	code, isErr := ex.ErrorCode()
	switch {
	case isErr && code == wire.CodeInvalidParams:
		return []rules.Outcome{stamp(rules.Passed(id, obs), ex)}, nil
	case isErr:
		return []rules.Outcome{stamp(rules.Failed(id, fmt.Sprintf("%s; expected JSON-RPC error -32602, got %d", obs, code)), ex)}, nil
	case ex.Reply() != nil:
		return []rules.Outcome{stamp(rules.Failed(id, obs+"; an unknown tool is a protocol error (JSON-RPC -32602), not a tool result"), ex)}, nil
	}
	return []rules.Outcome{stamp(rules.Failed(id, obs+"; expected a JSON-RPC error"), ex)}, nil
}

// toolDef is what the tool probes read from a tool definition.
type toolDef struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// callableDefs returns the definitions of the tools the scan may call, in listing order.
func callableDefs(t *Target) []toolDef {
	allowed := map[string]bool{}
	for _, n := range t.Callable {
		allowed[n] = true
	}
	var out []toolDef
	for _, tl := range t.Tools {
		var d toolDef
		if allowed[tl.Name] && wire.Decode(tl.Raw, &d) == nil {
			out = append(out, d)
		}
	}
	return out
}

// sampleArguments builds arguments that satisfy the required properties of an input schema
// with plain values of their declared types; a tool needing more gets an isError or -32602,
// which the probes treat as "could not exercise".
func sampleArguments(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type    any   `json:"type"`
			Enum    []any `json:"enum"`
			Default any   `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	args := map[string]any{}
	if wire.Decode(schema, &s) != nil {
		return args
	}
	for _, name := range s.Required {
		p := s.Properties[name]
		switch {
		case p.Default != nil:
			args[name] = p.Default
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		default:
			ty, _ := p.Type.(string)
			switch ty {
			case "integer", "number":
				args[name] = 1
			case "boolean":
				args[name] = false
			case "array":
				args[name] = []any{}
			case "object":
				args[name] = map[string]any{}
			default:
				args[name] = "sentinel"
			}
		}
	}
	return args
}

// probeToolCall calls the first callable tool that answers with a complete result.
// structuredContent MUST conform to outputSchema when one is given, and SHOULD be mirrored as
// serialized JSON in a text block.
func probeToolCall(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	conf, mirror := rules.IDOf("output-schema-conformance"), rules.IDOf("structured-text-mirror")
	var out []rules.Outcome
	for _, d := range callableDefs(t) {
		args, how := t.toolArguments(d.Name, d.InputSchema)
		label := fmt.Sprintf("tools/call %q with %s and a progressToken", d.Name, how)
		ex := t.Call(ctx, "tools/call", map[string]any{"name": d.Name, "arguments": args},
			wire.WithMeta("progressToken", "sentinel-progress-"+d.Name), wire.WithLabel(label))
		r := resultOf(ex)
		if r == nil || !complete(ex) || string(r["isError"]) == "true" {
			continue
		}
		sc, hasSC := r["structuredContent"]
		if len(d.OutputSchema) > 0 && string(d.OutputSchema) != "null" {
			switch {
			case !hasSC:
				out = append(out, stamp(rules.Failed(conf, observed(label, ex)+"; the tool declares an outputSchema but the result has no structuredContent"), ex))
			default:
				if err := validateAgainst(d.OutputSchema, sc); errors.Is(err, errSchemaTooLarge) {
					out = append(out, stamp(rules.Undecided(conf, "the tool's "+err.Error()), ex))
				} else if err != nil {
					out = append(out, stamp(rules.Failed(conf, fmt.Sprintf("%s; structuredContent does not conform to outputSchema: %v", observed(label, ex), firstLineOf(err.Error()))), ex))
				} else {
					out = append(out, stamp(rules.Passed(conf, observed(label, ex)+"; structuredContent conforms to outputSchema"), ex))
				}
			}
		}
		if hasSC {
			if mirrored(r["content"], sc) {
				out = append(out, stamp(rules.Passed(mirror, observed(label, ex)+"; a text block mirrors structuredContent"), ex))
			} else {
				out = append(out, stamp(rules.Failed(mirror, observed(label, ex)+"; no text block carries the serialized structuredContent"), ex))
			}
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	why := "no callable tool returned structured output, so the output rules could not be exercised"
	return []rules.Outcome{rules.Undecided(conf, why), rules.Undecided(mirror, why)}, nil
}

// mirrored reports whether some text block parses as JSON equal to sc.
func mirrored(content, sc json.RawMessage) bool {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if wire.Decode(content, &blocks) != nil {
		return false
	}
	var want any
	if wire.Decode(sc, &want) != nil {
		return false
	}
	wantJSON, _ := json.Marshal(want)
	for _, b := range blocks {
		var got any
		if b.Type == "text" && wire.Decode([]byte(b.Text), &got) == nil {
			if gotJSON, _ := json.Marshal(got); string(gotJSON) == string(wantJSON) {
				return true
			}
		}
	}
	return false
}

// errSchemaTooLarge marks an outputSchema past the bounds the scan compiles.
var errSchemaTooLarge = errors.New("outputSchema too large or too deep to compile safely")

// validateAgainst validates instance against schema (2020-12 by default), fetching nothing. A
// schema past wire's bounds is not compiled (errSchemaTooLarge): compile time explodes on hostile
// nesting, and the compiler cannot be interrupted by the probe's deadline.
func validateAgainst(schema, instance json.RawMessage) error {
	if wire.SchemaTooLarge(schema) {
		return errSchemaTooLarge
	}
	sch, err := jsonschema.Compile(schema)
	if err != nil {
		return fmt.Errorf("compiling outputSchema: %w", err)
	}
	return sch.Validate(instance)
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// probeToolBadArguments calls a callable tool with arguments that violate its inputSchema (a
// value of the wrong type for a declared property). The server MUST validate tool inputs: it may
// refuse with -32602 or answer isError:true (the schema's preferred form for validation
// failures, SEP-1303), but must not run the tool as if the input were fine.
//
// A tool that runs on anything says nothing about how failures are reported, so the probe goes
// on (up to maxBadArgumentCalls tools) until one refuses: the first failure of each rule is
// kept, else its first pass.
func probeToolBadArguments(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	validate, asResult := rules.IDOf("validate-tool-inputs"), rules.IDOf("tool-errors-as-results")
	got := map[string]rules.Outcome{}
	keep := func(o rules.Outcome) {
		if prev, ok := got[o.RuleID]; !ok || (prev.Status != rules.Fail && o.Status == rules.Fail) {
			got[o.RuleID] = o
		}
	}
	tried := 0
	for _, d := range callableDefs(t) {
		if _, decided := got[asResult]; tried == maxBadArgumentCalls || decided {
			break
		}
		args, prop, ok := wrongTypedArguments(d.InputSchema)
		if !ok {
			continue
		}
		tried++
		label := fmt.Sprintf("tools/call %q with %q of the wrong type", d.Name, prop)
		ex := t.Call(ctx, "tools/call", map[string]any{"name": d.Name, "arguments": args}, wire.WithLabel(label))
		if cut(ex) {
			keep(undecidedCut(validate, label, ex))
			keep(undecidedCut(asResult, label, ex))
			continue
		}
		obs := observed(label, ex)
		r := resultOf(ex)
		code, isErr := ex.ErrorCode()
		switch {
		case r != nil && ex.Reply().ResultType() == "input_required":
			// An interim result neither ran the tool nor refused the input: no evidence.
		case isErr && (code == wire.CodeMissingCapability || code == wire.CodeHeaderMismatch || code == wire.CodeUnsupportedVersion || code == wire.CodeMethodNotFound):
			// Refused on a precondition of the protocol (a capability the call did not declare,
			// a header, the version): the input was never judged, so this tool says nothing; the
			// next one may.
		case r != nil && string(r["isError"]) == "true":
			keep(stamp(rules.Passed(validate, obs+"; refused with isError:true"), ex))
			keep(stamp(rules.Passed(asResult, obs+"; the validation failure came back as a tool result with isError:true"), ex))
		case isErr:
			keep(stamp(rules.Passed(validate, obs+"; refused with a JSON-RPC error"), ex))
			keep(stamp(rules.Failed(asResult, obs+"; an input-validation failure SHOULD be a result with isError:true so the model can correct itself"), ex))
		case r != nil:
			keep(stamp(rules.Failed(validate, obs+"; the tool ran on input that violates its inputSchema"), ex))
		default:
			keep(stamp(rules.Failed(validate, obs+"; expected a refusal (isError:true or -32602)"), ex))
		}
	}
	if len(got) == 0 {
		why := "no callable tool declares a typed property the scan could violate, or every one answered input_required or refused for another reason than its input"
		return []rules.Outcome{rules.Undecided(validate, why), rules.Undecided(asResult, why)}, nil
	}
	if _, ok := got[asResult]; !ok {
		got[asResult] = rules.Undecided(asResult, "every tool the scan called with wrong-typed input ran anyway, so none showed how it reports a failure")
	}
	return []rules.Outcome{got[validate], got[asResult]}, nil
}

// maxBadArgumentCalls bounds the tools probeToolBadArguments calls with wrong-typed input.
const maxBadArgumentCalls = 4

// toolArguments returns the arguments to call tool name with, and how they were chosen: the
// operator's --tool-args when given, else sample values built from its inputSchema.
func (t *Target) toolArguments(name string, schema json.RawMessage) (map[string]any, string) {
	if a, ok := t.Options.ToolArgs[name]; ok {
		return a, "the operator's --tool-args"
	}
	return sampleArguments(schema), "sample arguments"
}

// wrongTypedArguments returns sample arguments with one declared property given a value of the
// wrong type (a string where a number, boolean, array or object is due; a number for a string).
func wrongTypedArguments(schema json.RawMessage) (map[string]any, string, bool) {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if wire.Decode(schema, &s) != nil {
		return nil, "", false
	}
	args := sampleArguments(schema)
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ty, _ := s.Properties[n].Type.(string)
		switch ty {
		case "integer", "number", "boolean", "array", "object":
			args[n] = "sentinel-not-a-" + ty
			return args, n, true
		case "string":
			args[n] = map[string]any{"sentinel": "not a string"}
			return args, n, true
		}
	}
	return nil, "", false
}

// defaultDialectOutcome: schemas without $schema are JSON Schema 2020-12. Every published input
// and output schema that names no dialect must compile under 2020-12. That is the part a scan
// sees; the answer to an unsupported dialect needs a tool that takes schemas as input, which is
// rare, and a schema that does not compile is schemas-valid-dialect's failure, not this one.
func defaultDialectOutcome(label string, ex *wire.Exchange, tools []json.RawMessage) rules.Outcome {
	id := rules.IDOf("json-schema-2020-12")
	n := 0
	for _, raw := range tools {
		var d toolDef
		if wire.Decode(raw, &d) != nil {
			continue
		}
		for _, schema := range []json.RawMessage{d.InputSchema, d.OutputSchema} {
			var s map[string]json.RawMessage
			if len(schema) == 0 || wire.Decode(schema, &s) != nil || s["$schema"] != nil {
				continue
			}
			if err := compile2020(schema); err != nil {
				return stamp(rules.Undecided(id, fmt.Sprintf("tool %q publishes a schema without $schema that does not compile as 2020-12 (%s): schemas-valid-dialect judges it", d.Name, firstLineOf(err.Error()))), ex)
			}
			n++
		}
	}
	if n == 0 {
		return stamp(rules.Undecided(id, "no listed tool publishes a schema without $schema"), ex)
	}
	return stamp(rules.Passed(id, fmt.Sprintf("%s; %d published schema(s) without $schema compile as JSON Schema 2020-12 (the answer to an unsupported dialect was not probed)", observed(label, ex), n)), ex)
}

// compile2020 compiles a schema under the 2020-12 default dialect, fetching nothing.
func compile2020(schema json.RawMessage) error {
	if wire.SchemaTooLarge(schema) {
		return errSchemaTooLarge
	}
	_, err := jsonschema.Compile(schema)
	return err
}
