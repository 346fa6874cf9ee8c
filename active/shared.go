package active

import (
	"context"

	"github.com/mcp-sentinel/sentinel/wire"
)

// Shared requests. Discovery reads the first page of each declared list, and a dozen probes judge
// an answer to that very request (the cache hints on every list, the first page of a paginated
// one, "the list returns the current set", the prompt the prompt probes pick, the templates the
// traversal probe reads). A scan should cost no more than the round trips it needs, so a plain
// request for a list's first page — no params, the headers every probe sends, inside the scan's
// session — is sent once per scan and its exchange handed to every probe that asks; each probe
// still judges it against its own rules. A probe that needs an answer of its own (a second copy
// to compare with the first, a page after a cursor, the lists before and after a change) sends
// it itself. An exchange the transport or a deadline cut short is not shared: the next probe
// that asks sends the request again. The same holds for a few other requests two probes send
// alike (sendShared): a plain resources/read of a listed resource, and the first round of each
// prompt the prompt MRTR probes try (probe_mrtr.go, firstRound).
//
// tools/list is not shared. Every copy of it is also a sample of how the server orders its tools
// and whether their definitions hold from one request to the next (tools-deterministic-order,
// lists-not-connection-scoped): a server that lists in map order is caught by two copies that
// differ, so fewer copies would let such a server pass a scan by luck. The stability test
// (e2e TestVerdictsAreStable) caught exactly that on the unmigrated fixture when it was shared.

// sharedMethods are the requests firstPage may share.
var sharedMethods = map[string]bool{
	"prompts/list": true, "resources/list": true, "resources/templates/list": true,
}

// sharedCall is one shared request: done is closed once ex is set.
type sharedCall struct {
	done chan struct{}
	ex   *wire.Exchange
}

// firstPage returns the exchange of a plain request for the first page of list method, sending it
// only when no earlier step of this scan did. label names the request if this call sends it.
func (t *Target) firstPage(ctx context.Context, method, label string) *wire.Exchange {
	if !sharedMethods[method] {
		return t.Call(ctx, method, nil, wire.WithLabel(label))
	}
	ex, _ := t.sendShared(ctx, method, func(ctx context.Context) *wire.Exchange {
		return t.Call(ctx, method, nil, wire.WithLabel(label))
	})
	return ex
}

// sendShared sends a request at most once per scan: key names the request exactly (its method
// and params, sent with the headers every probe sends), and send sends it. The first caller
// sends; every later caller, and every one that asked while it was on the wire, gets the same
// exchange with sent false. A request outside the session, to a stdio server's throwaway
// process or over stdio is not shared (sent is true). An exchange cut short is withdrawn and the
// next caller sends again.
func (t *Target) sendShared(ctx context.Context, key string, send func(context.Context) *wire.Exchange) (ex *wire.Exchange, sent bool) {
	if outsideSession(ctx) || aside(ctx) || t.stdio != nil {
		return send(ctx), true
	}
	for {
		t.mu.Lock()
		if t.shared == nil {
			t.shared = map[string]*sharedCall{}
		}
		c, found := t.shared[key]
		if !found {
			c = &sharedCall{done: make(chan struct{})}
			t.shared[key] = c
		}
		t.mu.Unlock()
		if !found {
			c.ex = send(ctx)
			if !shareable(c.ex) {
				t.mu.Lock()
				delete(t.shared, key)
				t.mu.Unlock()
			}
			close(c.done)
			return c.ex, true
		}
		select {
		case <-c.done:
			if shareable(c.ex) {
				return c.ex, false
			}
			// The first try was cut short and withdrawn: ask again, perhaps sending it.
		case <-ctx.Done():
			return send(ctx), true // records the cut like any send
		}
	}
}

// shareable reports whether an exchange is a whole answer another probe may judge: the response
// arrived and was read to its end.
func shareable(ex *wire.Exchange) bool {
	return ex != nil && ex.Response != nil && ex.Err == "" && !ex.Response.Truncated
}

// sharedDiscover returns discovery's well-formed server/discover for a probe that would send the
// same request, on a target that speaks the revision (a legacy session's stand-in is left to be
// sent as such).
func (t *Target) sharedDiscover(ctx context.Context, label string) *wire.Exchange {
	if t.Modern && t.Discover != nil && shareable(t.Discover) && !outsideSession(ctx) && !aside(ctx) && t.stdio == nil {
		return t.Discover
	}
	return t.Call(ctx, "server/discover", nil, wire.WithLabel(label))
}

// readResource is a plain resources/read of uri: the resource probe reads each listed resource so
// the passive checks grade its contents, and the cache-hint probe judges the hints on the first
// one's answer, the very same request. It is sent once per scan (sendShared); label names it if
// this call sends it.
func (t *Target) readResource(ctx context.Context, uri, label string) *wire.Exchange {
	ex, _ := t.sendShared(ctx, "resources/read\x00"+uri, func(ctx context.Context) *wire.Exchange {
		return t.Call(ctx, "resources/read", map[string]any{"uri": uri}, wire.WithLabel(label))
	})
	return ex
}
