package active

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// transportProbes cover the Streamable HTTP basics: the POST endpoint, GET/DELETE, notification
// POSTs, and independent concurrent requests on fresh connections.
func transportProbes() []Probe {
	return []Probe{
		{Name: "post-endpoint", RuleIDs: ids("single-post-endpoint"), Run: probePostEndpoint},
		{Name: "get-delete-405", RuleIDs: ids("get-delete-405"), Run: probeGetDelete},
		{Name: "notification-post", RuleIDs: ids("notification-202", "notification-reject-status", "no-response-to-notification"), Run: probeNotification},
		{Name: "malformed-bodies", DiscoverOnly: true, RuleIDs: ids("jsonrpc-envelope", "error-object-shape", "request-reply-content-type"), Run: probeMalformedBodies},
		{Name: "concurrent-requests", RuleIDs: ids("concurrent-streams", "multi-conversation-ready", "no-connection-affinity"), Run: probeConcurrent},
	}
}

// probePostEndpoint: "The server MUST provide a single HTTP endpoint ... that supports POST".
func probePostEndpoint(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	label := "POST tools/list (or server/discover) to the endpoint"
	method := "server/discover"
	if t.HasCapability("tools") {
		method = "tools/list"
	}
	var ex *wire.Exchange
	if method == "tools/list" {
		ex = t.firstPage(ctx, method, label)
	} else {
		ex = t.sharedDiscover(ctx, label)
	}
	return []rules.Outcome{served(rules.IDOf("single-post-endpoint"), "POST "+method, ex)}, nil
}

// probeGetDelete: a server that speaks only this revision SHOULD answer GET and DELETE with 405.
func probeGetDelete(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("get-delete-405")
	if na := modernOnly(ctx, t, id); na != nil {
		return na, nil
	}
	var out []rules.Outcome
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		spec := wire.RequestSpec{Method: m, Header: http.Header{wire.HeaderAccept: {wire.ContentTypeSSE}, wire.HeaderProtocolVersion: {wire.ProtocolVersion}}, Label: m}
		// A server that still offers the 2025 standalone stream answers GET with an endless
		// event stream: the status is the evidence, so the body is read only briefly.
		gctx, cancel := context.WithTimeout(ctx, streamPeek)
		if m == http.MethodDelete {
			// Inside a legacy session DELETE would end the session every other probe runs in;
			// outside it, a legacy server still answers with something other than 405.
			gctx = withoutSession(gctx)
		}
		ex := t.Send(gctx, spec)
		cancel()
		out = append(out, reject(id, m+" on the endpoint", ex, http.StatusMethodNotAllowed, 0))
	}
	return out, nil
}

// probeNotification: "If the input is a JSON-RPC notification: if the server accepts it, it MUST
// return 202 Accepted with no body; if it cannot accept it, it MUST return an HTTP error status".
// The notification is a cancellation of a request that never existed, which a server ignores.
func probeNotification(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	label := "notifications/cancelled for an unknown request, as a notification POST"
	ex := t.Send(ctx, wire.NewNotification("notifications/cancelled", map[string]any{"requestId": "sentinel-never-sent", "reason": "probe"}, wire.WithLabel(label)))
	acc, rej, noResp := rules.IDOf("notification-202"), rules.IDOf("notification-reject-status"), rules.IDOf("no-response-to-notification")
	if cut(ex) || ex.Response == nil {
		return []rules.Outcome{undecidedCut(acc, label, ex), undecidedCut(rej, label, ex), undecidedCut(noResp, label, ex)}, nil
	}
	obs := observed(label, ex)
	var out []rules.Outcome
	hasResponse := false
	for _, m := range ex.Response.Messages {
		if m.IsResponse() && m.ID != nil && string(m.ID) != "null" {
			hasResponse = true
		}
	}
	if hasResponse {
		out = append(out, stamp(rules.Failed(noResp, obs+"; a notification was answered with a JSON-RPC response carrying an id"), ex))
	} else {
		out = append(out, stamp(rules.Passed(noResp, obs), ex))
	}
	st := ex.Status()
	switch {
	case st == http.StatusAccepted && len(strings.TrimSpace(string(ex.Response.Body))) == 0:
		out = append(out, stamp(rules.Passed(acc, obs), ex))
	case st >= 200 && st < 300:
		if reply := ex.Reply(); reply != nil && reply.Error != nil {
			out = append(out, stamp(rules.Failed(rej, obs+"; the notification was refused with a JSON-RPC error but a success status"), ex))
		} else {
			out = append(out, stamp(rules.Failed(acc, obs+"; an accepted notification must get 202 with an empty body"), ex))
		}
	case st >= 400:
		out = append(out, stamp(rules.Passed(rej, obs), ex))
	default:
		out = append(out, stamp(rules.Failed(acc, obs+"; expected 202 (accepted) or an HTTP error status (refused)"), ex))
	}
	if !hasRule(out, rej) {
		if o, ok := refusedNotification(ctx, t, rej); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// refusedNotification sends a notification the server has reason to refuse, its Mcp-Method
// header naming another method than its body, and judges the refusal: an HTTP error status
// passes, a JSON-RPC error under a success status fails. A server that accepts it anyway gives
// no outcome here (the header rules judge that).
func refusedNotification(ctx context.Context, t *Target, rej string) (rules.Outcome, bool) {
	label := "notifications/cancelled whose Mcp-Method header says notifications/progress"
	ex := t.Send(ctx, wire.NewNotification("notifications/cancelled", map[string]any{"requestId": "sentinel-never-sent", "reason": "probe"},
		wire.WithHeader(wire.HeaderMethod, "notifications/progress"), wire.WithLabel(label)))
	if cut(ex) || ex.Response == nil {
		return rules.Outcome{}, false
	}
	obs := observed(label, ex)
	switch st := ex.Status(); {
	case st >= 400:
		return stamp(rules.Passed(rej, obs+"; refused with an HTTP error status"), ex), true
	case st >= 200 && st < 300 && ex.Reply() != nil && ex.Reply().Error != nil:
		return stamp(rules.Failed(rej, obs+"; the notification was refused with a JSON-RPC error but a success status"), ex), true
	}
	return rules.Outcome{}, false
}

func hasRule(out []rules.Outcome, id string) bool {
	for _, o := range out {
		if o.RuleID == id {
			return true
		}
	}
	return false
}

// concurrentRequests is how many requests probeConcurrent sends at once.
const concurrentRequests = 4

// probeConcurrent sends several requests at once, each on its own connection and each as a
// different client, and requires every one to be answered with its own id. Stateless servers
// must not need a connection to be reused or a conversation to be serialised.
func probeConcurrent(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	const method = "server/discover" // the era gate showed it works when sent alone
	exs := make([]*wire.Exchange, concurrentRequests)
	var wg sync.WaitGroup
	for i := range exs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := wire.NewCall(method, nil, wire.WithID(fmt.Sprintf("sentinel-concurrent-%d", i)),
				wire.WithMeta(wire.MetaClientInfo, map[string]any{"name": fmt.Sprintf("sentinel-conversation-%d", i), "version": wire.ClientVersion}))
			exs[i] = t.SendFresh(ctx, spec)
		}()
	}
	wg.Wait()
	label := fmt.Sprintf("%d concurrent %s requests, each on a fresh connection", concurrentRequests, method)
	var bad []string
	for i, ex := range exs {
		if cut(ex) {
			return each(ids("concurrent-streams", "multi-conversation-ready", "no-connection-affinity"), func(id string) rules.Outcome {
				return undecidedCut(id, label, ex)
			}), nil
		}
		want := fmt.Sprintf("%q", fmt.Sprintf("sentinel-concurrent-%d", i))
		reply := ex.Reply()
		if !ex.Delivered() || reply == nil || reply.Error != nil || reply.IDString() != want {
			bad = append(bad, fmt.Sprintf("request %d: %s", i, ex.Summary()))
		}
	}
	var out []rules.Outcome
	for _, id := range ids("concurrent-streams", "multi-conversation-ready", "no-connection-affinity") {
		if len(bad) > 0 {
			out = append(out, stamp(rules.Failed(id, fmt.Sprintf("sent %s; %s", label, strings.Join(bad, "; "))), exs[0]))
		} else {
			out = append(out, stamp(rules.Passed(id, fmt.Sprintf("sent %s; each got 200 with its own id", label)), exs[0]))
		}
	}
	return out, nil
}

// modernOnly returns n/a outcomes unless the server supports only this revision: the spec's
// advice on legacy traffic (405 for GET and DELETE, ignoring Mcp-Session-Id and Last-Event-ID)
// binds "a server that supports only this revision". A dual-era server follows the older revision
// for that traffic, and a server that does not speak 2026-07-28 at all is not addressed either:
// its GET stream, sessions and resumable events are migration debt, which `sentinel
// deprecations` lists, not failures of a clause written for servers it is not. nil means the
// rules apply.
func modernOnly(ctx context.Context, t *Target, ruleIDs ...string) []rules.Outcome {
	if !t.Modern {
		why := fmt.Sprintf("the server does not speak %s (era: %s); this advice binds servers that support only %s, and the legacy behaviour is migration debt (see sentinel deprecations)", wire.ProtocolVersion, t.Era, wire.ProtocolVersion)
		return each(ruleIDs, func(id string) rules.Outcome { return stamp(rules.Absent(id, why), t.Discover) })
	}
	v, ex, ok := t.ServesLegacy(ctx)
	if !ok {
		return nil
	}
	why := fmt.Sprintf("the server also serves pre-2026 clients (a legacy initialize succeeded with protocolVersion %s); this advice binds servers that support only %s", v, wire.ProtocolVersion)
	return each(ruleIDs, func(id string) rules.Outcome { return stamp(rules.Absent(id, why), ex) })
}

// probeMalformedBodies sends what a POST body must never be — a batch, invalid JSON, a JSON-RPC
// response — with otherwise valid headers. The spec leaves the status open, so the probe judges
// nothing itself; the passive checks grade the answers (a well-formed JSON-RPC error object, one
// JSON object per reply), which is what a modern client needs to read the refusal.
//
// Over stdio the invalid JSON goes to a throwaway process of the server (withAside): it is an
// unfinished object, and a server that reads a JSON stream rather than lines (the Go SDK's
// everything-server) takes the lines after it as its continuation. On the scan's own process
// that swallowed the next probe's requests and crashed the server there, so a later probe
// (concurrent-requests) failed for what this one sent.
func probeMalformedBodies(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	t.Send(ctx, wire.NewCall("server/discover", nil, wire.AsBatch(), wire.WithLabel("server/discover wrapped in a batch")))
	invalid := ctx
	if t.stdio != nil {
		invalid = withAside(ctx)
	}
	t.Send(invalid, wire.NewCall("server/discover", nil, wire.WithRawBody([]byte(`{"jsonrpc":"2.0","id":1,"method":`)), wire.WithLabel("invalid JSON")))
	t.Send(ctx, wire.NewCall("server/discover", nil, wire.WithRawBody([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)), wire.WithLabel("a JSON-RPC response as the body")))
	return nil, nil
}
