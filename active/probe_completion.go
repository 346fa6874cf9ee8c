package active

import (
	"context"
	"fmt"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// completionProbes cover the size of completion results and completion's error codes.
func completionProbes() []Probe {
	return []Probe{
		{Name: "completion-values", Requires: rules.FeatureCompletions, RuleIDs: ids("completion-max-100"), Run: probeCompletionValues},
		{Name: "completion-errors", RuleIDs: ids("completion-error-codes"), Run: probeCompletionErrors},
	}
}

// promptArgument finds a listed prompt with at least one argument, in name order.
func promptArgument(ctx context.Context, t *Target) (name, arg string) {
	prompts, _, _ := listPrompts(ctx, t)
	for _, p := range prompts {
		if len(p.Arguments) > 0 {
			return p.Name, p.Arguments[0].Name
		}
	}
	return "", ""
}

// probeCompletionValues: completion values MUST hold at most 100 items. An empty prefix asks for
// the widest set the server has.
func probeCompletionValues(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("completion-max-100")
	var ref map[string]any
	arg := ""
	if t.HasCapability("prompts") {
		if name, a := promptArgument(ctx, t); name != "" {
			ref, arg = map[string]any{"type": "ref/prompt", "name": name}, a
		}
	}
	if ref == nil {
		return []rules.Outcome{rules.Undecided(id, "no prompt with an argument to complete (resource templates are not tried)")}, nil
	}
	label := fmt.Sprintf("completion/complete for argument %q with an empty value", arg)
	ex := t.Call(ctx, "completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}}, wire.WithLabel(label))
	if cut(ex) {
		return []rules.Outcome{undecidedCut(id, label, ex)}, nil
	}
	if out := passiveFor(ex, nil, "completion-max-100"); len(out) > 0 {
		return out, nil
	}
	return []rules.Outcome{stamp(rules.Failed(id, observed(label, ex)+"; expected a result with completion.values although completions are declared"), ex)}, nil
}

// probeCompletionErrors: completion errors SHOULD be -32601 when completion is not supported and
// -32602 for an unknown prompt name.
func probeCompletionErrors(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("completion-error-codes")
	name := "sentinel-no-such-prompt-7f3a"
	params := map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": name}, "argument": map[string]any{"name": "x", "value": ""}}
	if !t.HasCapability("completions") {
		label := "completion/complete to a server that does not declare completions"
		ex := t.Call(ctx, "completion/complete", params, wire.WithLabel(label))
		return []rules.Outcome{reject(id, label, ex, 0, wire.CodeMethodNotFound)}, nil
	}
	label := fmt.Sprintf("completion/complete for unknown prompt %q", name)
	ex := t.Call(ctx, "completion/complete", params, wire.WithLabel(label))
	return []rules.Outcome{reject(id, label, ex, 0, wire.CodeInvalidParams)}, nil
}
