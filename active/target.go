package active

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// EraModern is the era string of a server that lists 2026-07-28 in a well-formed server/discover.
const EraModern = wire.ProtocolVersion

// Tool is one tools/list entry as discovery saw it.
type Tool struct {
	Name string
	// ReadOnly is annotations.readOnlyHint == true.
	ReadOnly bool
	// HeaderParams are the x-mcp-header names the input schema declares at the root.
	HeaderParams map[string]string // header name -> argument name
	// Raw is the tool definition verbatim.
	Raw json.RawMessage
}

// Target is one endpoint under test and what discovery established about it. Probes read it and
// send through it; Send records every exchange and runs the passive checks on it. A Target is
// safe for concurrent use by probes.
type Target struct {
	// Endpoint is the MCP endpoint URL.
	Endpoint string
	// Options are the scan's options (with defaults applied).
	Options Options
	// Client is the shared HTTP client; FreshClient gives one that never reuses connections.
	Client *http.Client

	// Era is "2026-07-28" when the era gate passed, otherwise a plain description such as
	// "legacy (2025-11-25)" or "unknown".
	Era string
	// Modern reports whether the era gate passed.
	Modern bool
	// EraWhy explains a failed era gate in one sentence (empty when Modern).
	EraWhy string
	// Discover is the exchange of the well-formed server/discover (nil if none was sent).
	Discover *wire.Exchange
	// SupportedVersions and Capabilities come from the DiscoverResult.
	SupportedVersions []string
	Capabilities      map[string]json.RawMessage
	// Tools, Prompts and Resources are the first pages of the lists whose capability is declared
	// (names for prompts, URIs for resources).
	Tools     []Tool
	Prompts   []string
	Resources []string
	// Callable are the tools the scan may call: readOnlyHint true, or named by --allow-call.
	Callable []string
	// MRTRTool is an allowed tool known to answer input_required; empty when none is known.
	MRTRTool string
	// Paginated reports whether a first list page carried a nextCursor.
	Paginated bool
	// LegacySession is true when the server is outside the era but completed the legacy
	// handshake: the scan then runs inside that session (SessionID on every request) to collect
	// the failures a 2025 server really commits, while every would-be pass becomes indeterminate.
	LegacySession bool
	// SessionID is the Mcp-Session-Id the legacy initialize minted (empty on a modern server, or
	// on a legacy server that keeps no sessions).
	SessionID string

	// couldNotRun is set by discovery when the endpoint cannot be graded at all (authorization
	// required, not an MCP endpoint): the reason for Result.CouldNotRun.
	couldNotRun string

	// listed records which lists discovery read successfully (Listed).
	listed map[string]bool

	oldOnce sync.Once
	oldEx   *wire.Exchange
	oldOK   bool

	controlOnce sync.Once
	controlEx   *wire.Exchange
	controlOK   bool

	legacyOnce sync.Once
	legacyEx   *wire.Exchange
	legacyVer  string

	// stdio is the connection to a stdio server (Options.Command); nil for an HTTP endpoint.
	stdio *stdioLink

	mu        sync.Mutex
	seq       int
	exchanges []*wire.Exchange
	// graded holds each graded exchange's passive outcomes as Run returned them, flattened once
	// by passiveOutcomes: appended into one slice, a scan's thousand-odd outcomes were copied at
	// every doubling (about 280 KB of garbage per scan of the everything-server).
	graded  [][]rules.Outcome
	history *passive.History // guarded by gradeMu, not mu
	gradeMu sync.Mutex
	grader  *grader // nil: every sender grades its own exchange
	notes   []string
	fresh   *http.Client

	shared    map[string]*sharedCall // first pages sent once per scan (shared.go)
	slow      map[string]string      // tools/call that got no answer by their deadline, and why (slow.go)
	slowNoted map[string]bool        // the tools of those calls already noted in the report (slow.go)
	started   time.Time              // when the scan began, the origin of every step's StartMs
	steps     []report.ProbeRun      // how each step ran (steps.go)
}

// Send sends spec to the endpoint (spec.URL empty means Endpoint), adding the operator's headers
// (--header, the token) unless the spec sets them, records the exchange and runs the passive
// checks on it. It always returns an exchange; a transport failure is in Err.
func (t *Target) Send(ctx context.Context, spec wire.RequestSpec) *wire.Exchange {
	return t.send(ctx, t.Client, spec, true)
}

// SendBare is Send without the operator's headers (an auth probe sending no token).
func (t *Target) SendBare(ctx context.Context, spec wire.RequestSpec) *wire.Exchange {
	return t.send(ctx, t.Client, spec, false)
}

// SendFresh is Send on a connection opened for this request only, for rules about statelessness
// across connections.
func (t *Target) SendFresh(ctx context.Context, spec wire.RequestSpec) *wire.Exchange {
	return t.send(ctx, t.FreshClient(), spec, true)
}

// SendUngraded is Send without the passive checks, for requests deliberately outside the
// 2026-07-28 era (the legacy initialize): the new era's rules say nothing about their answers.
// The exchange is still recorded.
func (t *Target) SendUngraded(ctx context.Context, spec wire.RequestSpec) *wire.Exchange {
	return t.sendOpts(ctx, t.Client, spec, true, false)
}

// SendRaw is Send over a hand-written HTTP/1.1 connection (wire.DoRaw) that keeps header values
// byte for byte, whitespace included.
func (t *Target) SendRaw(ctx context.Context, spec wire.RequestSpec) *wire.Exchange {
	return t.sendOpts(ctx, nil, spec, true, true)
}

// Call builds a well-formed request with wire.NewCall and sends it.
func (t *Target) Call(ctx context.Context, method string, params map[string]any, opts ...wire.CallOption) *wire.Exchange {
	return t.Send(ctx, wire.NewCall(method, params, opts...))
}

// FreshClient returns a client that opens a new connection for every request, sharing the
// shared client's timeout and TLS settings.
func (t *Target) FreshClient() *http.Client {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fresh == nil {
		tr := &http.Transport{DisableKeepAlives: true, Proxy: nil, TLSHandshakeTimeout: 10 * time.Second}
		if base, ok := t.Client.Transport.(*http.Transport); ok && base != nil {
			tr = base.Clone()
			tr.DisableKeepAlives = true
		}
		t.fresh = &http.Client{Transport: tr, Timeout: t.Client.Timeout, CheckRedirect: t.Client.CheckRedirect}
	}
	return t.fresh
}

func (t *Target) send(ctx context.Context, c *http.Client, spec wire.RequestSpec, operator bool) *wire.Exchange {
	return t.sendOpts(ctx, c, spec, operator, true)
}

func (t *Target) sendOpts(ctx context.Context, c *http.Client, spec wire.RequestSpec, operator, graded bool) *wire.Exchange {
	if spec.URL == "" {
		spec.URL = t.Endpoint
	}
	if t.LegacySession && spec.URL == t.Endpoint {
		spec = standIn(spec)
	}
	if t.SessionID != "" && spec.URL == t.Endpoint && !outsideSession(ctx) && len(wire.HeaderValues(spec.Header, wire.HeaderSessionID)) == 0 {
		spec = spec.Clone()
		if spec.Header == nil {
			spec.Header = http.Header{}
		}
		spec.Header.Set(wire.HeaderSessionID, t.SessionID)
	}
	// Only MCP traffic is graded: a request elsewhere (OAuth metadata at a well-known URL) is
	// recorded, but the rules of MCP messages say nothing about its answer.
	graded = graded && spec.URL == t.Endpoint
	if operator && len(t.Options.Header) > 0 {
		spec = spec.Clone()
		if spec.Header == nil {
			spec.Header = http.Header{}
		}
		for k, vs := range t.Options.Header {
			if len(wire.HeaderValues(spec.Header, k)) == 0 {
				spec.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
			}
		}
	}
	call, isCall := slowCallKey(spec)
	// A call read only until a message it waits for (the first progress, an acknowledgement)
	// does not wait for the tool's answer, so a tool's slowness does not hold it back.
	if isCall && spec.Until == nil {
		if ex := t.skipSlow(call, spec); ex != nil {
			return ex
		}
	}
	countRequest(ctx)
	var ex *wire.Exchange
	switch {
	case t.stdio != nil && aside(ctx):
		ex = t.stdio.aside(ctx, spec)
	case t.stdio != nil:
		ex = t.stdio.roundTrip(ctx, spec)
	case c == nil:
		ex = wire.DoRaw(ctx, spec, t.Options.Limits, t.Options.Secrets...)
	default:
		ex = wire.Do(ctx, c, spec, t.Options.Limits, t.Options.Secrets...)
	}
	if isCall && ctx.Err() == nil && unansweredByDeadline(ex) {
		t.markSlow(call)
	}
	graded = graded && (ex.Err == "" || ex.Response != nil)
	t.mu.Lock()
	t.seq++
	ex.ID = fmt.Sprintf("ex-%04d", t.seq)
	t.exchanges = append(t.exchanges, ex)
	// Queued under the same lock as the record, so the grader sees exchanges in their order.
	queued := graded && t.grader.enqueue(ex)
	t.mu.Unlock()
	if graded && !queued {
		t.grade(ex)
	}
	return ex
}

// Note adds a scan-level remark to the result (a skipped check, a surprising answer).
func (t *Target) Note(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes = append(t.notes, wire.RedactString(fmt.Sprintf(format, args...), t.Options.Secrets...))
}

// Exchanges returns every exchange sent so far, in order.
func (t *Target) Exchanges() []*wire.Exchange {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.exchanges)
}

// HasCapability reports whether the DiscoverResult declares capability name (e.g. "tools"), or
// a dotted member such as "resources.subscribe" set to true.
func (t *Target) HasCapability(name string) bool {
	top, sub, dotted := strings.Cut(name, ".")
	raw, ok := t.Capabilities[top]
	if !ok || string(raw) == "null" {
		return false
	}
	if !dotted {
		return true
	}
	var m map[string]json.RawMessage
	if wire.Decode(raw, &m) != nil {
		return false
	}
	return string(m[sub]) == "true"
}

// unreadLists names the first declared list discovery could not read, "" when every declared
// list was read.
func (t *Target) unreadLists() string {
	for _, l := range []struct{ capability, method string }{{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}} {
		if t.HasCapability(l.capability) && !t.Listed(l.method) {
			return l.method
		}
	}
	return ""
}

// Feature reports whether the target offers f and the scan may use it. present=false means n/a;
// present=true with usable=false means indeterminate; why says which, for the outcome.
func (t *Target) Feature(f rules.Feature) (present, usable bool, why string) {
	switch f {
	case rules.FeatureNone:
		return true, true, ""
	case rules.FeatureTools, rules.FeatureResources, rules.FeaturePrompts, rules.FeatureCompletions,
		rules.FeatureLogging, rules.FeatureExtensions:
		if t.HasCapability(string(f)) {
			return true, true, ""
		}
		return false, false, fmt.Sprintf("the server does not declare the %s capability in server/discover", f)
	case rules.FeatureSubscribe:
		if t.HasCapability("resources.subscribe") {
			return true, true, ""
		}
		return false, false, "the server does not declare resources.subscribe"
	case rules.FeatureListChanged, rules.FeatureListen:
		for _, c := range []string{"tools.listChanged", "prompts.listChanged", "resources.listChanged", "resources.subscribe"} {
			if t.HasCapability(c) {
				return true, true, ""
			}
		}
		return false, false, "the server declares no listChanged or subscribe capability, so it offers no subscriptions"
	case rules.FeatureCallableTool, rules.FeatureProgress:
		if !t.HasCapability("tools") {
			return false, false, "the server does not declare the tools capability"
		}
		if len(t.Callable) == 0 {
			return true, false, "no tool the scan may call: name one with --allow-call (tools with readOnlyHint: true are called automatically)"
		}
		return true, true, ""
	case rules.FeatureMRTRTool:
		if !t.HasCapability("tools") {
			return false, false, "the server does not declare the tools capability"
		}
		if t.MRTRTool == "" {
			return true, false, "no callable tool is known to answer input_required: name one with --allow-call"
		}
		return true, true, ""
	case rules.FeatureHeaderParams:
		for _, tl := range t.Tools {
			if len(tl.HeaderParams) > 0 {
				return true, true, ""
			}
		}
		if t.HasCapability("tools") && !t.Listed("tools/list") {
			return true, false, "tools/list was not served as a list, so whether a tool declares an x-mcp-header parameter is unknown"
		}
		return false, false, "no listed tool declares an x-mcp-header parameter"
	case rules.FeaturePagination:
		if t.Paginated {
			return true, true, ""
		}
		if unread := t.unreadLists(); unread != "" {
			return true, false, unread + " was not served as a list, so whether the server paginates is unknown"
		}
		return false, false, "no list the scan read returned a nextCursor on its first page"
	case rules.FeatureFileResources:
		for _, u := range t.Resources {
			if strings.HasPrefix(strings.ToLower(u), "file://") {
				return true, true, ""
			}
		}
		if t.HasCapability("resources") && !t.Listed("resources/list") {
			return true, false, "resources/list was not served as a list, so whether the server has file:// resources is unknown"
		}
		return false, false, "the server lists no file:// resource"
	case rules.FeatureLegacyClients:
		if t.legacyVer != "" {
			return true, true, ""
		}
		return false, false, "a legacy initialize handshake did not succeed: the server serves no pre-2026 clients"
	case rules.FeatureAuth:
		// Whether the server asks for a token is what the auth probes find out themselves
		// (a 401 with a challenge, or none); they run on every server.
		return true, true, ""
	case rules.FeatureTwoPrincipals:
		return true, false, "needs credentials for a second principal, which a one-token scan does not have"
	case rules.FeatureIntermediary:
		return true, false, "the scan cannot tell from outside whether the target is an intermediary in front of another server"
	}
	return true, false, fmt.Sprintf("the scan cannot establish the %q feature from outside", f)
}
