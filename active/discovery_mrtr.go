package active

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/mcp-sentinel/sentinel/wire"
)

// maxMRTRCandidates bounds how many callable tools discovery tries when looking for one that
// answers input_required.
const maxMRTRCandidates = 32

// MRTRCapabilities are the client capabilities discovery declares when it calls a tool to see
// whether it asks for input: a tool only asks for what the client says it can give.
var MRTRCapabilities = map[string]any{
	"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
	"sampling":    map[string]any{},
	"roots":       map[string]any{},
}

// findMRTRTool calls each callable tool (readOnlyHint or --allow-call, at most
// maxMRTRCandidates) once with minimal arguments built from its input schema, and records the
// first that answers with resultType "input_required".
func (t *Target) findMRTRTool(ctx context.Context) {
	n := 0
	for _, name := range t.Callable {
		if n == maxMRTRCandidates || ctx.Err() != nil {
			return
		}
		n++
		tl := t.tool(name)
		args := MinimalArguments(tl.Raw)
		if a, ok := t.Options.ToolArgs[name]; ok {
			args = a
		}
		params := map[string]any{"name": name, "arguments": args}
		ex := t.Call(ctx, "tools/call", params,
			wire.WithMeta(wire.MetaClientCapabilities, MRTRCapabilities), wire.WithLabel("tools/call "+name+" (looking for input_required)"))
		if ex.Delivered() && ex.Reply() != nil && ex.Reply().ResultType() == "input_required" {
			t.MRTRTool = name
			return
		}
	}
}

func (t *Target) tool(name string) Tool {
	for _, tl := range t.Tools {
		if tl.Name == name {
			return tl
		}
	}
	return Tool{Name: name}
}

// MinimalArguments builds the smallest arguments object a tool's inputSchema requires: each
// required property gets a plain value of its type (the first enum value when there is one).
// Optional properties are left out. A definition without a usable schema gets {}.
func MinimalArguments(toolDef json.RawMessage) map[string]any {
	var def struct {
		InputSchema struct {
			Properties map[string]struct {
				Type    any   `json:"type"`
				Enum    []any `json:"enum"`
				Default any   `json:"default"`
			} `json:"properties"`
			Required []string `json:"required"`
		} `json:"inputSchema"`
	}
	args := map[string]any{}
	if json.Unmarshal(toolDef, &def) != nil {
		return args
	}
	req := append([]string(nil), def.InputSchema.Required...)
	sort.Strings(req)
	for _, name := range req {
		p, ok := def.InputSchema.Properties[name]
		switch {
		case !ok:
			args[name] = "sentinel"
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		case p.Default != nil:
			args[name] = p.Default
		default:
			args[name] = zeroOf(p.Type)
		}
	}
	return args
}

func zeroOf(ty any) any {
	s, _ := ty.(string)
	if list, ok := ty.([]any); ok && len(list) > 0 {
		s, _ = list[0].(string)
	}
	switch s {
	case "integer", "number":
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	case "null":
		return nil
	}
	return "sentinel"
}
