package broker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/schema"
	"github.com/mcp-sentinel/sentinel/broker/tools"
)

// The schemas come from broker/schema's versioned document (v1.json), inlined, so the published
// manifest changes only when that document or this file does, and tools/list, docs/broker.md and
// the contract tests read one definition. The handler core enforces the same limits again.

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
			Description: "Screens a response (from an agent, a tool or a retrieved document), and the context items " +
				"that travel with it, for prompt injection: instructions aimed at the model, hidden or encoded payloads, " +
				"role hijacks. Returns an action (pass|warn|block), a trust score and the verdict under the caller's " +
				"tenant policy (schema v" + schema.Version + ": FlagInjectionRequest, EvaluationResult).",
			InputSchema:  schema.Def("FlagInjectionRequest"),
			OutputSchema: schema.Def("EvaluationResult"),
			Annotations:  annotations("Flag prompt injection"),
		},
		{
			Name:  tools.NameCheckGroundedness,
			Title: "Check groundedness",
			Description: "Checks whether each claim in a response is supported by the given context items. Returns an " +
				"action (pass|warn|block), a trust score and the verdict, citing the context ids it rests on " +
				"(schema v" + schema.Version + ": CheckGroundednessRequest, EvaluationResult).",
			InputSchema:  schema.Def("CheckGroundednessRequest"),
			OutputSchema: schema.Def("EvaluationResult"),
			Annotations:  annotations("Check groundedness"),
		},
	}
	slices.SortFunc(defs, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return defs
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
