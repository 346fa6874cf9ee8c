package active

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcp-sentinel/sentinel/wire"
)

// The legacy session. A server outside the era that completes the 2025 handshake is scanned
// inside the session it minted, the way the clients it serves talk to it: a request without
// Mcp-Session-Id is refused by such a server for reasons that have nothing to do with the rule a
// probe tests, so only inside the session do its answers show what it really does with a
// mismatched header, a removed method or a foreign Origin. Passes stay indeterminate (the runner
// downgrades them); failures are real evidence.

type outsideSessionKey struct{}

// withoutSession marks ctx so that requests sent with it carry no Mcp-Session-Id, for the rules
// about what a server does with a request outside any session.
func withoutSession(ctx context.Context) context.Context {
	return context.WithValue(ctx, outsideSessionKey{}, true)
}

func outsideSession(ctx context.Context) bool {
	v, _ := ctx.Value(outsideSessionKey{}).(bool)
	return v
}

// openLegacySession takes the session the legacy initialize minted, completes the handshake with
// notifications/initialized (graded: how the server answers a notification is a rule of every
// era), and reads the capabilities the initialize result declared, so feature gates and list
// reads work as on a modern server.
func (t *Target) openLegacySession(ctx context.Context) {
	ex := t.legacyEx
	if ex == nil || ex.Response == nil || ex.Reply() == nil {
		return
	}
	var caps map[string]json.RawMessage
	if wire.Decode(ex.Reply().ResultField("capabilities"), &caps) == nil && caps != nil {
		t.Capabilities = caps
	}
	t.SessionID = ex.Response.Header.Get(wire.HeaderSessionID)
	t.LegacySession = true
	t.Send(ctx, LegacyInitialized(t.legacyVer))
	if t.stdio != nil {
		// Over stdio the session is the process: a server started again after it exited gets
		// the handshake again before the request that needed it.
		t.stdio.mu.Lock()
		t.stdio.onRestart = func(ctx context.Context) {
			t.SendUngraded(ctx, LegacyInitialize(t.legacyVer))
			t.Send(ctx, LegacyInitialized(t.legacyVer))
		}
		t.stdio.mu.Unlock()
	}
	t.listPrimitives(ctx)
	switch {
	case t.stdio != nil:
		t.Note("Legacy session: over stdio the process the legacy initialize set up is the session; the scan ran on it as a %s client would. Only failures count, every would-be pass is indeterminate.", t.legacyVer)
	case t.SessionID != "":
		t.Note("Legacy session: the scan ran inside the session the legacy initialize minted (Mcp-Session-Id on every request), as a %s client would; only failures count, every would-be pass is indeterminate.", t.legacyVer)
	default:
		t.Note("Legacy session: the legacy initialize minted no session id; the scan sent its requests without one. Only failures count, every would-be pass is indeterminate.")
	}
}

// LegacyInitialized builds the notification a 2025 client sends after initialize: no _meta and
// no Mcp-* headers except the negotiated MCP-Protocol-Version.
func LegacyInitialized(version string) wire.RequestSpec {
	h := http.Header{wire.HeaderContentType: {wire.ContentTypeJSON}, wire.HeaderAccept: {wire.AcceptBoth}}
	if version != "" {
		h.Set(wire.HeaderProtocolVersion, version)
	}
	return wire.RequestSpec{
		Method: http.MethodPost,
		Header: h,
		Body:   []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		Label:  "legacy notifications/initialized",
	}
}

// legacyStandIn is the method a legacy session sends where a probe sends server/discover. A
// 2025 server does not implement server/discover, so refusing it would be about the method and
// say nothing about the header, _meta or Origin the probe varies; ping is the one request every
// 2025 server must answer. A probe's other methods go as they are.
const legacyStandIn = "ping"

// standIn rewrites a server/discover request (body method, and an Mcp-Method header naming it,
// whitespace kept) to legacyStandIn. Bodies a probe broke on purpose are rewritten the same way
// when they still name the method, and left alone otherwise.
func standIn(spec wire.RequestSpec) wire.RequestSpec {
	const from = `"method":"server/discover"`
	if !bytes.Contains(spec.Body, []byte(from)) {
		return spec
	}
	spec = spec.Clone()
	spec.Body = bytes.ReplaceAll(spec.Body, []byte(from), []byte(`"method":"`+legacyStandIn+`"`))
	for k, vs := range spec.Header {
		if !strings.EqualFold(k, wire.HeaderMethod) {
			continue
		}
		for i, v := range vs {
			if strings.TrimSpace(v) == "server/discover" {
				vs[i] = strings.Replace(v, "server/discover", legacyStandIn, 1)
			}
		}
	}
	return spec
}

// standInObserved rewrites a probe's "sent server/discover ..." where the legacy session sent
// legacyStandIn instead, so the evidence names the request that really went out.
func standInObserved(obs string) string {
	if !strings.Contains(obs, "POST "+legacyStandIn) && !strings.Contains(obs, "got "+legacyStandIn+" over stdio") {
		return obs
	}
	return strings.Replace(obs, "server/discover", legacyStandIn+" (in place of server/discover)", 1)
}
