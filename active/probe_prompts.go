package active

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// promptProbes cover prompts/list, unknown prompts and missing required arguments.
func promptProbes() []Probe {
	return []Probe{
		{Name: "prompts-list", Requires: rules.FeaturePrompts, RuleIDs: ids("prompts-list-current"), Run: probePromptsList},
		{Name: "unknown-prompt", Requires: rules.FeaturePrompts, RuleIDs: ids("unknown-prompt-32602"), Run: probeUnknownPrompt},
		{Name: "prompt-missing-args", Requires: rules.FeaturePrompts, RuleIDs: ids("missing-prompt-args-32602", "validate-prompt-args"), Run: probePromptMissingArgs},
		{Name: "prompt-get", Requires: rules.FeaturePrompts, RuleIDs: ids("prompt-media-base64", "prompt-embedded-resource-fields"),
			Run: func(ctx context.Context, t *Target) ([]rules.Outcome, error) { return nil, probePromptGet(ctx, t) }},
	}
}

// probePromptsList: with prompts declared, prompts/list MUST return the current set.
func probePromptsList(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	return []rules.Outcome{listCurrent(ctx, t, "prompts-list-current", "prompts/list", "prompts")}, nil
}

// probeUnknownPrompt: an unknown prompt name SHOULD get -32602.
func probeUnknownPrompt(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	name := "sentinel-no-such-prompt-7f3a"
	label := fmt.Sprintf("prompts/get for unknown prompt %q", name)
	ex := t.Call(ctx, "prompts/get", map[string]any{"name": name}, wire.WithLabel(label))
	return []rules.Outcome{reject(rules.IDOf("unknown-prompt-32602"), label, ex, 0, wire.CodeInvalidParams)}, nil
}

// listedPrompt is the part of a prompts/list entry the probes use.
type listedPrompt struct {
	Name      string `json:"name"`
	Arguments []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"arguments"`
}

// listPrompts asks for the prompt list; ok is false when the server did not serve it as a list
// (refused, malformed), and then no conclusion about what it lacks may be drawn. ex is the
// exchange, for the outcome's evidence.
func listPrompts(ctx context.Context, t *Target) (prompts []listedPrompt, ex *wire.Exchange, ok bool) {
	ex = t.Call(ctx, "prompts/list", nil, wire.WithLabel("prompts/list"))
	var res struct {
		Prompts *[]listedPrompt `json:"prompts"`
	}
	r := ex.Reply()
	if !ex.Delivered() || r == nil || r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.Prompts == nil {
		return nil, ex, false
	}
	out := *res.Prompts
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, ex, true
}

// promptWithRequiredArg finds a listed prompt with a required argument (in name order).
func promptWithRequiredArg(prompts []listedPrompt) (name, arg string) {
	for _, p := range prompts {
		for _, a := range p.Arguments {
			if a.Required {
				return p.Name, a.Name
			}
		}
	}
	return "", ""
}

// probePromptMissingArgs: a missing required argument SHOULD get -32602; the server SHOULD
// validate prompt arguments before processing.
func probePromptMissingArgs(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	missing, validate := rules.IDOf("missing-prompt-args-32602"), rules.IDOf("validate-prompt-args")
	prompts, lex, ok := listPrompts(ctx, t)
	if !ok {
		why := fmt.Sprintf("prompts/list was not served as a list (%s), so whether a prompt has a required argument is unknown", lex.Summary())
		return []rules.Outcome{stamp(rules.Undecided(missing, why), lex), stamp(rules.Undecided(validate, why), lex)}, nil
	}
	name, arg := promptWithRequiredArg(prompts)
	if name == "" {
		why := "no listed prompt has a required argument"
		return []rules.Outcome{stamp(rules.Absent(missing, why), lex), stamp(rules.Absent(validate, why), lex)}, nil
	}
	label := fmt.Sprintf("prompts/get %q without its required argument %q", name, arg)
	ex := t.Call(ctx, "prompts/get", map[string]any{"name": name, "arguments": map[string]any{}}, wire.WithLabel(label))
	out := []rules.Outcome{reject(missing, label, ex, 0, wire.CodeInvalidParams)}
	if cut(ex) {
		return append(out, undecidedCut(validate, label, ex)), nil
	}
	if _, isErr := ex.ErrorCode(); isErr {
		out = append(out, stamp(rules.Passed(validate, observed(label, ex)+"; refused"), ex))
	} else {
		out = append(out, stamp(rules.Failed(validate, observed(label, ex)+"; the prompt was rendered without a required argument"), ex))
	}
	return out, nil
}
