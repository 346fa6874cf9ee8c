package active

import (
	"context"
	"fmt"
	"net/http"

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

// maxCompletionTries bounds how many prompt arguments probeCompletionValues asks to complete.
const maxCompletionTries = 8

// promptArgumentRefs lists (prompt, argument) pairs of the listed prompts, in prompt name order,
// at most max.
func promptArgumentRefs(ctx context.Context, t *Target, max int) (refs [][2]string) {
	prompts, _, _ := listPrompts(ctx, t)
	for _, p := range prompts {
		for _, a := range p.Arguments {
			if len(refs) == max {
				return refs
			}
			refs = append(refs, [2]string{p.Name, a.Name})
		}
	}
	return refs
}

// probeCompletionValues: completion values MUST hold at most 100 items. An empty prefix asks for
// the widest set the server has. A server need not offer completions for every argument, so a
// refused argument says nothing about the rule, and the next one is tried.
func probeCompletionValues(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("completion-max-100")
	var refs [][2]string
	if t.HasCapability("prompts") {
		refs = promptArgumentRefs(ctx, t, maxCompletionTries)
	}
	if len(refs) == 0 {
		return []rules.Outcome{rules.Undecided(id, "no prompt with an argument to complete (resource templates are not tried)")}, nil
	}
	var last *wire.Exchange
	for _, r := range refs {
		label := fmt.Sprintf("completion/complete for argument %q of prompt %q with an empty value", r[1], r[0])
		ex := t.Call(ctx, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": r[0]}, "argument": map[string]any{"name": r[1], "value": ""}}, wire.WithLabel(label))
		if cut(ex) {
			return []rules.Outcome{undecidedCut(id, label, ex)}, nil
		}
		if out := passiveFor(ex, nil, "completion-max-100"); len(out) > 0 {
			return out, nil
		}
		last = ex
	}
	o := rules.Undecided(id, fmt.Sprintf("no completion/complete of the %d prompt argument(s) tried was answered with completion.values, so how many values a completion holds was not seen", len(refs)))
	o.Observed = "last: " + last.Summary()
	return []rules.Outcome{stamp(o, last)}, nil
}

// undeclaredCompletions settles declare-completions on a server that declares no completions
// but has prompt arguments: completion of an argument the server really has is answered by a
// server that serves completion (an invented prompt would get -32602 from it, which proves
// nothing either way). A server that serves completion may still refuse an argument it offers no
// values for, so each argument is tried in turn until one is answered with a result (completion
// served undeclared) or -32601 (not served).
func undeclaredCompletions(ctx context.Context, t *Target, refs [][2]string) rules.Outcome {
	id := rules.IDOf("declare-completions")
	var last *wire.Exchange
	for _, r := range refs {
		label := fmt.Sprintf("completion/complete for argument %q of prompt %q while completions is not declared", r[1], r[0])
		ex := t.Call(ctx, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": r[0]}, "argument": map[string]any{"name": r[1], "value": ""}}, wire.WithLabel(label))
		switch code, isErr := ex.ErrorCode(); {
		case cut(ex):
			return undecidedCut(id, label, ex)
		case ex.Status() == http.StatusOK && ex.Reply() != nil && !isErr:
			return stamp(rules.Failed(id, observed(label, ex)+"; the server offers completions without declaring the capability"), ex)
		case isErr && code == wire.CodeMethodNotFound:
			return stamp(rules.Passed(id, observed(label, ex)), ex)
		}
		last = ex
	}
	return undecidedOn(id, "completion/complete of each prompt argument", last, fmt.Sprintf("none of the %d prompt argument(s) tried got a result or -32601, so whether completion is offered is unclear", len(refs)))
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
