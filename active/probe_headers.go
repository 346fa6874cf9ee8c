package active

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// headerProbes cover the mirrored request headers: MCP-Protocol-Version, Mcp-Method and
// Mcp-Name, their base64 form, case-insensitive names, and the legacy headers a server ignores.
// Every header probe sends a request that is well formed except for the one header under test.
func headerProbes() []Probe {
	return []Probe{
		{Name: "pv-header", RuleIDs: ids("pv-header-required", "pv-header-body-match"), Run: probePVHeader},
		{Name: "mcp-method-header", DiscoverOnly: true, RuleIDs: ids("mcp-method-required", "mcp-method-match"), Run: probeMethodHeader},
		{Name: "header-name-case", DiscoverOnly: true, RuleIDs: ids("header-names-case-insensitive"), Run: probeHeaderNameCase},
		{Name: "mcp-name-header", RuleIDs: ids("mcp-name-required", "mcp-name-match", "mcp-name-base64-decoded", "header-malformed-reject"), Run: probeNameHeader},
		{Name: "header-value-ows", RuleIDs: ids("header-value-ows"), Run: probeHeaderOWS},
		{Name: "legacy-headers-ignored", RuleIDs: ids("ignore-session-id", "ignore-last-event-id"), Run: probeLegacyHeaders},
	}
}

func discoverWith(opts ...wire.CallOption) wire.RequestSpec {
	return wire.NewCall("server/discover", nil, opts...)
}

// probePVHeader: a POST without MCP-Protocol-Version, or whose header differs from the _meta
// protocolVersion, MUST be rejected with 400 and -32020 (HeaderMismatch).
//
// "A server that supports clients implementing protocol versions earlier than 2025-06-18 ... MAY
// treat a request that omits the header as protocol version 2025-03-26": for such a server (one
// that completes a 2025-03-26 initialize) pv-header-required is n/a.
func probePVHeader(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	l1 := "server/discover without MCP-Protocol-Version (2026-07-28 in _meta)"
	ex1 := t.Send(ctx, discoverWith(wire.WithoutHeader(wire.HeaderProtocolVersion), wire.WithLabel(l1)))
	l2 := "server/discover with MCP-Protocol-Version: 2025-11-25 and 2026-07-28 in _meta"
	ex2 := t.Send(ctx, discoverWith(wire.WithHeader(wire.HeaderProtocolVersion, "2025-11-25"), wire.WithLabel(l2)))
	required := reject(rules.IDOf("pv-header-required"), l1, ex1, http.StatusBadRequest, wire.CodeHeaderMismatch)
	if required.Status == rules.Fail {
		if ex, ok := t.servesPre20250618(ctx); ok {
			required = stamp(rules.Absent(required.RuleID, "the server serves clients older than 2025-06-18 (an initialize with protocolVersion 2025-03-26 succeeded), which MAY have a request without the header treated as 2025-03-26"), ex)
		}
	}
	return []rules.Outcome{
		required,
		reject(rules.IDOf("pv-header-body-match"), l2, ex2, http.StatusBadRequest, wire.CodeHeaderMismatch),
	}, nil
}

// servesPre20250618 reports whether the server completes a legacy initialize offering
// 2025-03-26 and answers with that version (it serves clients that predate the header), sending
// the handshake once per scan, ungraded.
func (t *Target) servesPre20250618(ctx context.Context) (*wire.Exchange, bool) {
	t.oldOnce.Do(func() {
		ex := t.SendUngraded(withoutSession(ctx), LegacyInitialize("2025-03-26"))
		v, _ := ex.Reply().ResultString("protocolVersion")
		t.oldEx, t.oldOK = ex, ex.Status() == http.StatusOK && ex.Reply() != nil && ex.Reply().Error == nil && v == "2025-03-26"
	})
	return t.oldEx, t.oldOK
}

// probeMethodHeader: Mcp-Method is required on every request and must equal the body's method,
// compared case-sensitively.
func probeMethodHeader(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	l1 := "server/discover without Mcp-Method"
	ex1 := t.Send(ctx, discoverWith(wire.WithoutHeader(wire.HeaderMethod), wire.WithLabel(l1)))
	l2 := "server/discover with Mcp-Method: tools/list"
	ex2 := t.Send(ctx, discoverWith(wire.WithHeader(wire.HeaderMethod, "tools/list"), wire.WithLabel(l2)))
	l3 := "server/discover with Mcp-Method: SERVER/DISCOVER (values are case-sensitive)"
	ex3 := t.Send(ctx, discoverWith(wire.WithHeader(wire.HeaderMethod, "SERVER/DISCOVER"), wire.WithLabel(l3)))
	match := rules.IDOf("mcp-method-match")
	return []rules.Outcome{
		reject(rules.IDOf("mcp-method-required"), l1, ex1, http.StatusBadRequest, wire.CodeHeaderMismatch),
		reject(match, l2, ex2, http.StatusBadRequest, wire.CodeHeaderMismatch),
		reject(match, l3, ex3, http.StatusBadRequest, wire.CodeHeaderMismatch),
	}, nil
}

// probeHeaderNameCase: header names are case-insensitive, so all-lower-case names must work.
func probeHeaderNameCase(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	label := "server/discover with header names in lower case (mcp-protocol-version, mcp-method)"
	ex := t.Send(ctx, discoverWith(
		wire.WithRawHeader("mcp-protocol-version", wire.ProtocolVersion),
		wire.WithRawHeader("mcp-method", "server/discover"),
		wire.WithLabel(label)))
	return []rules.Outcome{served(rules.IDOf("header-names-case-insensitive"), label, ex)}, nil
}

// nameTarget picks a method carrying Mcp-Name whose capability is declared, and a name no server
// has: a server that validates headers first refuses a mismatch with -32020 before it looks the
// name up, and one that accepts the headers answers "unknown" — nothing is ever executed.
func nameTarget(t *Target) (method, key string, ok bool) {
	switch {
	case t.HasCapability("prompts"):
		return "prompts/get", "name", true
	case t.HasCapability("resources"):
		return "resources/read", "uri", true
	case t.HasCapability("tools"):
		return "tools/call", "name", true
	}
	return "", "", false
}

func nameParams(method, key, value string) map[string]any {
	p := map[string]any{key: value}
	if method == "tools/call" {
		p["arguments"] = map[string]any{}
	}
	return p
}

// probeNameHeader: Mcp-Name is required for tools/call, prompts/get and resources/read, must
// equal params.name or params.uri after decoding the base64 form, and a malformed encoded value
// is refused.
func probeNameHeader(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	method, key, ok := nameTarget(t)
	if !ok {
		why := "the server declares no tools, prompts or resources, so no request it serves carries Mcp-Name"
		return each(ids("mcp-name-required", "mcp-name-match", "mcp-name-base64-decoded", "header-malformed-reject"),
			func(id string) rules.Outcome { return rules.Absent(id, why) }), nil
	}
	name := "sentinel-probe-absent"
	if key == "uri" {
		name = "sentinel://probe/absent"
	}
	call := func(label string, body string, opts ...wire.CallOption) *wire.Exchange {
		return t.Send(ctx, wire.NewCall(method, nameParams(method, key, body), append(opts, wire.WithLabel(label))...))
	}
	l1 := fmt.Sprintf("%s for %q without Mcp-Name", method, name)
	ex1 := call(l1, name, wire.WithoutHeader(wire.HeaderName))
	l2 := fmt.Sprintf("%s for %q with Mcp-Name: %s-other", method, name, name)
	ex2 := call(l2, name, wire.WithHeader(wire.HeaderName, name+"-other"))
	uni := name + "-ü"
	l3 := fmt.Sprintf("%s for %q with Mcp-Name: %s (base64 form)", method, uni, wire.EncodeHeaderValue(uni))
	ex3 := call(l3, uni)
	forced := "=?base64?" + b64(name) + "?="
	l4 := fmt.Sprintf("%s for %q with Mcp-Name: %s (optional base64 form of a plain name)", method, name, forced)
	ex4 := call(l4, name, wire.WithHeader(wire.HeaderName, forced))
	l5 := fmt.Sprintf("%s for %q with Mcp-Name: =?base64?!!not-base64!!?=", method, name)
	ex5 := call(l5, name, wire.WithHeader(wire.HeaderName, "=?base64?!!not-base64!!?="))
	dec := rules.IDOf("mcp-name-base64-decoded")
	return []rules.Outcome{
		reject(rules.IDOf("mcp-name-required"), l1, ex1, http.StatusBadRequest, wire.CodeHeaderMismatch),
		reject(rules.IDOf("mcp-name-match"), l2, ex2, http.StatusBadRequest, wire.CodeHeaderMismatch),
		notRejectedAs(dec, l3, ex3, wire.CodeHeaderMismatch),
		notRejectedAs(dec, l4, ex4, wire.CodeHeaderMismatch),
		reject(rules.IDOf("header-malformed-reject"), l5, ex5, http.StatusBadRequest, wire.CodeHeaderMismatch),
	}, nil
}

// probeLegacyHeaders: a modern server SHOULD ignore Mcp-Session-Id (never minting or echoing
// one) and Last-Event-ID.
func probeLegacyHeaders(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	sid := rules.IDOf("ignore-session-id")
	if na := modernOnly(ctx, t, sid, rules.IDOf("ignore-last-event-id")); na != nil {
		return na, nil
	}
	l1 := "server/discover with Mcp-Session-Id: sentinel-session-1"
	ex1 := t.Send(ctx, discoverWith(wire.WithHeader(wire.HeaderSessionID, "sentinel-session-1"), wire.WithLabel(l1)))
	o1 := served(sid, l1, ex1)
	if o1.Status == rules.Pass && ex1.Response != nil {
		if v := ex1.Response.Header.Get(wire.HeaderSessionID); v != "" {
			o1 = stamp(rules.Failed(sid, fmt.Sprintf("%s; the response carries Mcp-Session-Id: %s", o1.Observed, v)), ex1)
		}
	}
	l2 := "server/discover with Last-Event-ID: 42"
	ex2 := t.Send(ctx, discoverWith(wire.WithHeader(wire.HeaderLastEventID, "42"), wire.WithLabel(l2)))
	return []rules.Outcome{o1, served(rules.IDOf("ignore-last-event-id"), l2, ex2)}, nil
}

// streamPeek bounds a GET that may open an endless event stream: the status and headers are
// the evidence, so the body is read only this long.
const streamPeek = 1500 * time.Millisecond

// b64 is the standard base64 of s, for building encoded header values by hand.
func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// probeHeaderOWS: optional whitespace around a field value is not part of it (RFC 9110 §5.5), so
// "Mcp-Method:  server/discover\t" matches the body, and so does an Mcp-Name padded with
// spaces. The requests are written by hand: Go's client would trim the padding away.
func probeHeaderOWS(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("header-value-ows")
	l1 := "server/discover with Mcp-Method: \"  server/discover\\t\" (padded, written raw)"
	ex1 := t.SendRaw(ctx, discoverWith(wire.WithHeader(wire.HeaderMethod, "  server/discover\t"), wire.WithLabel(l1)))
	out := []rules.Outcome{served(id, l1, ex1)}
	if method, key, ok := nameTarget(t); ok {
		name := "sentinel-probe-absent"
		if key == "uri" {
			name = "sentinel://probe/absent"
		}
		l2 := fmt.Sprintf("%s for %q with Mcp-Name: \"  %s \" (padded, written raw)", method, name, name)
		ex2 := t.SendRaw(ctx, wire.NewCall(method, nameParams(method, key, name), wire.WithHeader(wire.HeaderName, "  "+name+" "), wire.WithLabel(l2)))
		out = append(out, notRejectedAs(id, l2, ex2, wire.CodeHeaderMismatch))
	}
	return out, nil
}
