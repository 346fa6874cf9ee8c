package broker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/tools"
)

// The schemas are literals, not reflected from Go types, so the published manifest changes only
// when this file does. Bounds repeat the limits in broker/tools, which enforces them again.

const responseFormatSchema = `{"type":"string","enum":["concise","detailed"],"default":"concise",
 "description":"concise (default) returns the action, trust score and each verdict's outcome, score and reason; detailed adds evidence spans, thresholds, cited context ids, the deciding tier and judge model, metric versions and latencies."}`

var flagInjectionInput = `{"type":"object","additionalProperties":false,"required":["response"],"properties":{
 "response":{"type":"string","minLength":1,"maxLength":262144,"description":"The agent or tool output to screen for prompt injection."},
 "context":{"type":"string","maxLength":65536,"description":"Optional: the task the response was produced for, which helps tell a requested instruction from an injected one."},
 "response_format":` + responseFormatSchema + `}}`

var checkGroundednessInput = `{"type":"object","additionalProperties":false,"required":["response","context"],"properties":{
 "response":{"type":"string","minLength":1,"maxLength":262144,"description":"The agent output whose claims are checked."},
 "context":{"type":"array","minItems":1,"maxItems":64,"description":"The source material the response should be grounded in.",
  "items":{"type":"object","additionalProperties":false,"required":["text"],"properties":{
   "id":{"type":"string","maxLength":128,"description":"Optional id that verdicts cite; defaults to ctx-N for the item at position N (1-based)."},
   "text":{"type":"string","minLength":1,"maxLength":65536}}}},
 "response_format":` + responseFormatSchema + `}}`

const outputSchema = `{"type":"object","required":["requestId","action","trustScore","verdicts"],"properties":{
 "requestId":{"type":"string","description":"Digest of tenant, tool and arguments: the same call gets the same id."},
 "action":{"type":"string","enum":["pass","warn","block"],"description":"What the caller should do; the strictest verdict wins."},
 "trustScore":{"type":"integer","minimum":0,"maximum":100},
 "totalLatencyMs":{"type":"integer","minimum":0},
 "policyErrors":{"type":"array","items":{"type":"string"},"description":"Why the tenant policy could not decide the action; fix the broker config."},
 "handle":{"type":"string","description":"Names the stored evaluation: pass it to get_evaluation to fetch it again. Bound to the caller, expires, may be revoked."},
 "verdicts":{"type":"array","items":{"type":"object","required":["metric","outcome","score","reason"],"properties":{
  "metric":{"type":"string"},
  "outcome":{"type":"string","enum":["pass","warn","block","timeout"]},
  "score":{"type":"number"},
  "reason":{"type":"string"},
  "threshold":{"type":"number"},
  "evidence":{"type":"array","items":{"type":"object","required":["start","end","text"],"properties":{
   "start":{"type":"integer"},"end":{"type":"integer"},"text":{"type":"string"},
   "family":{"type":"string"},"decoded":{"type":"string"}}}},
  "citedContextIds":{"type":"array","items":{"type":"string"}},
  "decidedBy":{"type":"string","enum":["heuristic","judge","cache"]},
  "judge":{"type":"string"},
  "metricVersion":{"type":"string"},
  "latencyMs":{"type":"integer","minimum":0}}}}}}`

// annotations are the same for both tools: they only read their arguments and a local policy,
// change nothing, give the same answer for the same input, and reach no external system.
func annotations(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    true,
		DestructiveHint: new(false),
		IdempotentHint:  true,
		OpenWorldHint:   new(false),
	}
}

// toolDefs returns the tool definitions, sorted byte-wise by name. Each call builds fresh values
// from the same literals.
func toolDefs() []*mcp.Tool {
	defs := []*mcp.Tool{
		{
			Name:  tools.NameFlagInjection,
			Title: "Flag prompt injection",
			Description: "Screens a response (from an agent, a tool or a retrieved document) for prompt injection: " +
				"instructions aimed at the model, hidden or encoded payloads, role hijacks. Returns an action " +
				"(pass|warn|block), a trust score and the verdict under the caller's tenant policy.",
			InputSchema:  compact(flagInjectionInput),
			OutputSchema: compact(outputSchema),
			Annotations:  annotations("Flag prompt injection"),
		},
		{
			Name:  tools.NameCheckGroundedness,
			Title: "Check groundedness",
			Description: "Checks whether each claim in a response is supported by the given context items. Returns an " +
				"action (pass|warn|block), a trust score and the verdict, citing the context ids that support it.",
			InputSchema:  compact(checkGroundednessInput),
			OutputSchema: compact(outputSchema),
			Annotations:  annotations("Check groundedness"),
		},
	}
	slices.SortFunc(defs, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return defs
}

func compact(s string) json.RawMessage {
	var b strings.Builder
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(fmt.Sprintf("broker: invalid schema literal: %v", err)) // a programming error, caught by every test
	}
	out, _ := json.Marshal(v)
	b.Write(out)
	return json.RawMessage(b.String())
}

// Manifest returns the tools array exactly as tools/list serves it (the SDK marshals the same
// values), for measurement and for the determinism tests.
func Manifest() ([]byte, error) {
	b, err := json.Marshal(toolDefs())
	if err != nil {
		return nil, fmt.Errorf("encoding tool manifest: %w", err)
	}
	return b, nil
}
