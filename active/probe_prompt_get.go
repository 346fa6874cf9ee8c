package active

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-sentinel/sentinel/wire"
)

// maxPromptGets bounds how many listed prompts probePromptGet renders.
const maxPromptGets = 8

// probePromptGet renders the listed prompts (a prompts/get has no side effects), each with its
// required arguments filled in, so the passive checks grade what the messages carry: media
// base64 with a MIME type, embedded resources complete. An argument whose name mentions a URI
// gets the first listed resource, which is what such a prompt embeds; any other gets a plain
// string. The probe judges nothing itself.
func probePromptGet(ctx context.Context, t *Target) error {
	prompts, _, _ := listPrompts(ctx, t)
	for i, p := range prompts {
		if i == maxPromptGets || ctx.Err() != nil {
			break
		}
		args := promptArguments(t, p)
		t.Call(ctx, "prompts/get", map[string]any{"name": p.Name, "arguments": args}, wire.WithLabel(fmt.Sprintf("prompts/get %q with its required arguments", p.Name)))
	}
	return nil
}

// promptArguments fills in a listed prompt's required arguments: the first listed resource for
// one whose name mentions a URI (what such a prompt embeds), a plain string for any other.
func promptArguments(t *Target, p listedPrompt) map[string]any {
	args := map[string]any{}
	for _, a := range p.Arguments {
		if !a.Required {
			continue
		}
		args[a.Name] = "sentinel"
		if strings.Contains(strings.ToLower(a.Name), "uri") && len(t.Resources) > 0 {
			args[a.Name] = t.Resources[0]
		}
	}
	return args
}

// promptSchema is a JSON Schema of a listed prompt's arguments: every argument is a string
// (prompts/get arguments are a map of strings), the required ones required.
func promptSchema(p listedPrompt) json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, a := range p.Arguments {
		props[a.Name] = map[string]any{"type": "string"}
		if a.Required {
			required = append(required, a.Name)
		}
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}
