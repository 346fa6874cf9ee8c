package active

import (
	"context"
	"fmt"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// A prompts/get may answer input_required like a tools/call ("Servers MAY also respond to
// prompts/get with an InputRequiredResult", server/prompts#getting-a-prompt), and the MRTR rules
// hold for it alike. Getting a prompt has no side effects, so every listed prompt may be tried:
// no --allow-call is needed, and a server whose tools the scan may not call is still graded on
// its MRTR prompt.

// probeMRTRPrompt runs the MRTR checks on the listed prompt that answers input_required.
func probeMRTRPrompt(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	return mrtrProbe(ctx, t, findPromptInterim), nil
}

// probeMRTRPromptElicitation grades the elicitations of that prompt.
func probeMRTRPromptElicitation(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	return mrtrElicitation(ctx, t, findPromptInterim), nil
}

// findPromptInterim gets each listed prompt (in name order, its required arguments filled in)
// declaring every capability and returns the one whose InputRequiredResult exercises the most
// rules. With none, the MRTR rules are n/a only when the whole list was read and every prompt
// was rendered: a prompt refused with the arguments the scan could build, or one left untried,
// may still ask for input.
func findPromptInterim(ctx context.Context, t *Target) (*interim, bool, string) {
	prompts, lex, ok := listPrompts(ctx, t)
	if !ok {
		return nil, false, fmt.Sprintf("prompts/list was not served as a list (%s), so whether a prompt answers input_required is unknown", lex.Summary())
	}
	cands := make([]mrtrCandidate, 0, len(prompts))
	for _, p := range prompts {
		cands = append(cands, mrtrCandidate{method: "prompts/get", name: p.Name, schema: promptSchema(p), args: promptArguments(t, p)})
	}
	it, others := bestInterim(ctx, t, cands)
	if it != nil {
		return it, false, ""
	}
	for _, o := range others {
		if cut(o.ex) {
			return nil, false, fmt.Sprintf("prompts/get %q got no answer before the deadline (%s), so whether it asks for input is unknown", o.name, o.ex.Err)
		}
		if complete, _, _, _ := verdict(o.ex); !complete {
			return nil, false, fmt.Sprintf("no listed prompt answered input_required, but prompts/get %q was not rendered with the arguments the scan could build (%s), so whether it asks for input is unknown", o.name, o.ex.Summary())
		}
	}
	switch {
	case len(prompts) > maxMRTRCandidates:
		return nil, false, fmt.Sprintf("none of the first %d listed prompts answered input_required; the other %d were not tried", maxMRTRCandidates, len(prompts)-maxMRTRCandidates)
	case nextCursor(lex) != "":
		return nil, false, "no prompt on the first page of prompts/list answered input_required; the later pages were not read"
	case len(prompts) == 0:
		return nil, true, "the server lists no prompt"
	}
	return nil, true, fmt.Sprintf("none of the %d listed prompts answered input_required when got declaring every client capability", len(prompts))
}

// nextCursor is the nextCursor of a list page, "" when there is none.
func nextCursor(ex *wire.Exchange) string {
	c, _ := ex.Reply().ResultString("nextCursor")
	return c
}
