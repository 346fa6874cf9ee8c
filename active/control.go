package active

import (
	"context"
	"fmt"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Controls. A probe breaks one thing in an otherwise well-formed request and judges the answer;
// a failure means something only if the same request without the fault is served. On a modern
// server the era gate's server/discover is that control for every probe. Inside a legacy session
// it is not: a 2025 server may refuse every request that carries the 2026-07-28 envelope (headers
// and _meta) for that reason alone, and then a refused lower-case header name, a refused padded
// value or a refused concurrent request says nothing about the rule under test. So the envelope
// control is sent once, as every probe builds its requests, and when it is refused the probes'
// failures become indeterminate, saying so.

// envelopeControl sends, once per scan, a well-formed server/discover exactly as the probes build
// their requests (inside a legacy session: the ping stand-in with the session id), and reports
// whether it was served: HTTP 200 and a JSON-RPC result.
func (t *Target) envelopeControl(ctx context.Context) (ok bool, ex *wire.Exchange) {
	if t.Modern {
		return true, t.Discover
	}
	t.controlOnce.Do(func() {
		t.controlEx = t.Send(ctx, discoverWith(wire.WithLabel("control: a well-formed server/discover as every probe sends it")))
		r := t.controlEx.Reply()
		t.controlOK = t.controlEx.Delivered() && r != nil && r.Error == nil
	})
	return t.controlOK, t.controlEx
}

// refusalRules are the passive rules that judge how a server refused a faulty request (a
// missing or mismatched header, a missing _meta key, an unknown method, an unsupported version).
// Like a probe's, their failures mean nothing when the envelope control was refused too. Rules
// about what the server emitted whatever it was sent (error codes, the JSON-RPC envelope) are not
// among them: those failures stand.
var refusalRules = ids("removed-methods-absent", "pv-header-required", "pv-header-body-match", "mcp-method-required", "mcp-method-match",
	"mcp-name-required", "mcp-name-match", "meta-required-reject", "meta-required-http-400", "unknown-method-404",
	"unsupported-version-error", "unsupported-version-http-400", "missing-capability-error", "missing-capability-http-400",
	"notification-202", "notification-reject-status")

// controlledPassive applies the envelope control to the passive outcomes of a legacy session:
// failures of the refusalRules become indeterminate when the control was refused.
func (t *Target) controlledPassive(ctx context.Context, out []rules.Outcome) []rules.Outcome {
	pvRequired := rules.IDOf("pv-header-required")
	for i, o := range out {
		if o.RuleID == pvRequired && o.Status == rules.Fail {
			if ex, ok := t.servesPre20250618(ctx); ok {
				out[i] = stamp(rules.Absent(pvRequired, "the server serves clients older than 2025-06-18 (an initialize with protocolVersion 2025-03-26 succeeded), which MAY have a request without the header treated as 2025-03-26"), ex)
			}
		}
	}
	if t.Modern || !t.LegacySession || !hasFailure(out) {
		return out
	}
	refusal := map[string]bool{}
	for _, id := range refusalRules {
		refusal[id] = true
	}
	var judged []rules.Outcome
	var idx []int
	for i, o := range out {
		if refusal[o.RuleID] {
			judged, idx = append(judged, o), append(idx, i)
		}
	}
	judged = t.controlled(ctx, Probe{}, judged)
	for k, i := range idx {
		out[i] = judged[k]
	}
	return out
}

// controlled turns the failures of a probe that ran inside a legacy session into indeterminate
// outcomes when the envelope control was refused too. Probes that run in any era (they grade the
// era itself) are left alone, and so is every outcome on a modern server.
func (t *Target) controlled(ctx context.Context, p Probe, out []rules.Outcome) []rules.Outcome {
	if t.Modern || p.AnyEra || !hasFailure(out) {
		return out
	}
	ok, ctl := t.envelopeControl(ctx)
	if ok {
		return out
	}
	why := fmt.Sprintf("the control request, a well-formed server/discover as every probe sends it, got %s too, so a refusal of the faulty request says nothing about this rule", ctl.Summary())
	for i, o := range out {
		if o.Status != rules.Fail || t.served(o.Exchange) {
			// A faulty request the server served is a failure whatever the control got: the
			// control only tells what a refusal means.
			continue
		}
		u := rules.Undecided(o.RuleID, why)
		u.Observed, u.Exchange = o.Observed, o.Exchange
		out[i] = u
	}
	return out
}

func hasFailure(out []rules.Outcome) bool {
	for _, o := range out {
		if o.Status == rules.Fail {
			return true
		}
	}
	return false
}

// served reports whether the exchange with this ID got HTTP 2xx and a JSON-RPC result.
func (t *Target) served(id string) bool {
	if id == "" {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ex := range t.exchanges {
		if ex.ID == id {
			r := ex.Reply()
			return (ex.Delivered() || (ex.Status() >= 200 && ex.Status() < 300)) && r != nil && r.Error == nil && r.Result != nil
		}
	}
	return false
}
