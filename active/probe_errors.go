package active

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// errorProbes cover unknown methods and the id echo of error responses.
func errorProbes() []Probe {
	return []Probe{
		{Name: "unknown-method", DiscoverOnly: true, RuleIDs: ids("unknown-method-404", "error-id-echo"), Run: probeUnknownMethod},
	}
}

// probeUnknownMethod: a method the server does not implement gets 404 and -32601, and the error
// echoes the request id (here a string, to catch servers that coerce ids to numbers).
func probeUnknownMethod(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	const reqID = "sentinel-unknown-7"
	label := "sentinel/no-such-method with id \"" + reqID + "\""
	ex := t.Send(ctx, wire.NewCall("sentinel/no-such-method", nil, wire.WithID(reqID), wire.WithLabel(label)))
	out := []rules.Outcome{reject(rules.IDOf("unknown-method-404"), label, ex, http.StatusNotFound, wire.CodeMethodNotFound)}
	echo := rules.IDOf("error-id-echo")
	switch reply := ex.Reply(); {
	case cut(ex):
		out = append(out, undecidedCut(echo, label, ex))
	case reply == nil || reply.Error == nil:
		out = append(out, stamp(rules.Undecided(echo, observed(label, ex)+"; no error response to look at"), ex))
	case reply.IDString() == fmt.Sprintf("%q", reqID):
		out = append(out, stamp(rules.Passed(echo, observed(label, ex)), ex))
	default:
		out = append(out, stamp(rules.Failed(echo, fmt.Sprintf("%s; the error's id is %s, not %q", observed(label, ex), reply.IDString(), reqID)), ex))
	}
	return out, nil
}
