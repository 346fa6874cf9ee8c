package active

import (
	"context"
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
		t.Call(ctx, "prompts/get", map[string]any{"name": p.Name, "arguments": args}, wire.WithLabel(fmt.Sprintf("prompts/get %q with its required arguments", p.Name)))
	}
	return nil
}
