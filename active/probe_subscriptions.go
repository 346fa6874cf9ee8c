package active

import (
	"context"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// listenWindow is how long the listen probe keeps the stream open: long enough for the
// acknowledgement, which comes first, and short enough not to hold the scan.
const listenWindow = 3 * time.Second

// subscriptionProbes open a subscriptions/listen stream and grade what arrives on it.
func subscriptionProbes() []Probe {
	return []Probe{
		{Name: "listen", Requires: rules.FeatureListen, Run: probeListen, RuleIDs: ids(
			"listen-is-open-sse", "listen-ack-first", "listen-ack-honoured-subset", "listen-subscription-id",
			"listen-only-requested-types", "resource-updated-opt-in")},
		{Name: "list-changed", Requires: rules.FeatureListChanged, Run: probeListChanged, RuleIDs: ids("list-changed-delivered")},
	}
}

// listenFilter asks for what the server declares it can notify about, and one resource.
func listenFilter(t *Target) map[string]any {
	f := map[string]any{}
	if t.HasCapability("tools.listChanged") {
		f["toolsListChanged"] = true
	}
	if t.HasCapability("prompts.listChanged") {
		f["promptsListChanged"] = true
	}
	if t.HasCapability("resources.listChanged") {
		f["resourcesListChanged"] = true
	}
	if t.HasCapability("resources.subscribe") && len(t.Resources) > 0 {
		f["resourceSubscriptions"] = []string{t.Resources[0]}
	}
	return f
}

// probeListen: the listen response is a long-lived text/event-stream whose first message MUST be
// notifications/subscriptions/acknowledged with the listen request's id as subscriptionId,
// listing only what the server will honour; every later notification carries the same id and
// is of a type the client asked for. The stream is read for listenWindow, then closed (closing
// is how a client ends a subscription).
func probeListen(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	window := listenWindow
	if dl, ok := ctx.Deadline(); ok && time.Until(dl)/2 < window {
		window = time.Until(dl) / 2
	}
	lctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	label := "subscriptions/listen"
	// The acknowledgement comes first; the read stops at the first message so an honest server
	// does not hold the scan for the whole window (a silent one still gets the window).
	ex := t.Call(lctx, "subscriptions/listen", map[string]any{"notifications": listenFilter(t)}, wire.WithLabel(label),
		wire.ReadUntil(func(*wire.Message) bool { return true }))
	open := rules.IDOf("listen-is-open-sse")
	if ex.Response == nil {
		return []rules.Outcome{undecidedCut(open, label, ex)}, nil
	}
	if code, isErr := ex.ErrorCode(); isErr {
		return []rules.Outcome{stamp(rules.Failed(open, observed(label, ex)+"; the server declares list-change or subscribe capabilities but refused subscriptions/listen"), ex)}, nil
	} else if code == 0 && ex.Status() >= 400 {
		return []rules.Outcome{stamp(rules.Failed(open, observed(label, ex)+"; expected an event stream"), ex)}, nil
	}
	out := passiveFor(ex, passive.NewHistory(), "listen-is-open-sse", "listen-ack-first", "listen-ack-honoured-subset",
		"listen-subscription-id", "listen-only-requested-types", "resource-updated-opt-in")
	if ex.ContentType() == "text/event-stream" && len(ex.Response.Messages) == 0 {
		out = append(out, stamp(rules.Failed(rules.IDOf("listen-ack-first"), observed(label, ex)+"; no acknowledgement arrived within "+window.Round(time.Millisecond).String()), ex))
	}
	return out, nil
}
