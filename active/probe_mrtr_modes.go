package active

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// elicitationModes are the two modes a client may declare under elicitation.
var elicitationModes = []string{"form", "url"}

// modeOf is an elicitation's mode: "url", or "form" when it says form or nothing.
func modeOf(params map[string]json.RawMessage) string {
	var mode string
	_ = wire.Decode(params["mode"], &mode)
	if mode == "url" {
		return "url"
	}
	return "form"
}

// modesAsked returns the elicitation modes of an InputRequiredResult's input requests.
func modesAsked(ex *wire.Exchange) map[string]bool {
	r := resultOf(ex)
	if r == nil || ex.Reply().ResultType() != "input_required" {
		return nil
	}
	var reqs map[string]struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	_ = wire.Decode(r["inputRequests"], &reqs)
	out := map[string]bool{}
	for _, ir := range reqs {
		if ir.Method == "elicitation/create" {
			out[modeOf(ir.Params)] = true
		}
	}
	return out
}

// modeOutcomes: the server MUST NOT send an elicitation in a mode the client did not declare. A
// request that declares both modes cannot show it, so for each mode the target asked in when
// offered both, the same request is sent declaring every capability but elicitation only in the
// other mode. Asking in the mode left out fails; anything else (the other mode, -32021, a result)
// passes, since the target showed it would use that mode when allowed.
//
//	"Servers MUST NOT send elicitation requests with modes that are not supported by the client."
func modeOutcomes(ctx context.Context, t *Target, it *interim) []rules.Outcome {
	id := rules.IDOf("elicitation-declared-modes")
	used := map[string]bool{}
	for _, params := range elicitations(it) {
		used[modeOf(params)] = true
	}
	if len(used) == 0 {
		return []rules.Outcome{stamp(rules.Absent(id, fmt.Sprintf("the %s asked for no elicitation", it.kind())), it.firstExchange)}
	}
	var out []rules.Outcome
	for _, mode := range elicitationModes {
		if !used[mode] {
			continue
		}
		other := "url"
		if mode == "url" {
			other = "form"
		}
		caps := map[string]any{}
		for k, v := range allCapabilities {
			caps[k] = v
		}
		caps["elicitation"] = map[string]any{other: map[string]any{}}
		label := it.what("declaring elicitation in %s mode only (every other capability declared)", other)
		ex := it.call(ctx, t, label, it.args, caps, nil)
		switch {
		case cut(ex):
			out = append(out, undecidedCut(id, label, ex))
		case modesAsked(ex)[mode]:
			out = append(out, stamp(rules.Failed(id, fmt.Sprintf("%s; the server sent a %s-mode elicitation to a client that declared only %s mode", observed(label, ex), mode, other)), ex))
		default:
			out = append(out, stamp(rules.Passed(id, fmt.Sprintf("%s; offered both modes the %s asked in %s mode, and with %s mode left out it did not", observed(label, ex), it.kind(), mode, mode)), ex))
		}
	}
	return out
}
