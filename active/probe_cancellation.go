package active

import (
	"context"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// cancellationProbes cover the server's handling of cancellation notices it cannot act on.
func cancellationProbes() []Probe {
	return []Probe{
		{Name: "invalid-cancel", DiscoverOnly: true, RuleIDs: ids("ignore-invalid-cancel"), Run: probeInvalidCancel},
	}
}

// probeInvalidCancel: servers SHOULD ignore cancellation notifications that are unknown or
// malformed. Ignoring means neither failing (5xx, a dropped connection) nor answering it as a
// request; the server must then go on serving.
func probeInvalidCancel(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("ignore-invalid-cancel")
	label := "notifications/cancelled with a malformed requestId (an object)"
	ex := t.Send(ctx, wire.NewNotification("notifications/cancelled", map[string]any{"requestId": map[string]any{"bad": true}}, wire.WithLabel(label)))
	if cut(ex) {
		return []rules.Outcome{undecidedCut(id, label, ex)}, nil
	}
	obs := observed(label, ex)
	if ex.Response == nil || ex.Status() >= 500 {
		return []rules.Outcome{stamp(rules.Failed(id, obs+"; a malformed cancellation should be ignored, not crash the handler"), ex)}, nil
	}
	follow := "server/discover after the malformed cancellation"
	ex2 := t.Send(ctx, wire.NewCall("server/discover", nil, wire.WithLabel(follow)))
	if !ex2.Delivered() {
		return []rules.Outcome{stamp(rules.Failed(id, obs+"; then "+observed(follow, ex2)), ex2)}, nil
	}
	return []rules.Outcome{stamp(rules.Passed(id, obs+"; the server went on serving"), ex)}, nil
}
