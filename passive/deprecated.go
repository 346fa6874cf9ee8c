package passive

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Client-side evidence kinds. The deprecation registry's Evidence kinds (rules.Evidence*) describe
// what a server does; these describe a client still leaning on a deprecated or removed feature,
// which is debt for whoever owns the client and never a server failure.
const (
	EvidenceClientInitialize = "client:initialize"          // the client sent initialize or notifications/initialized
	EvidenceClientSessionID  = "client:mcp-session-id"      // the client sent Mcp-Session-Id
	EvidenceClientLastEvent  = "client:last-event-id"       // the client sent Last-Event-ID to resume
	EvidenceClientRoots      = "client:capability-roots"    // the client declared the roots capability
	EvidenceClientSampling   = "client:capability-sampling" // the client declared the sampling capability
	EvidenceClientLogLevel   = "client:log-level"           // the client asked for log messages by _meta logLevel
	EvidenceClientRemoved    = "client:removed-method"      // the client sent ping, logging/setLevel or resources/subscribe
)

// Sides of a sighting: which peer relies on the feature.
const (
	SideServer = "server"
	SideClient = "client"
)

// Sighting is one deprecated or removed feature seen in use on one exchange.
type Sighting struct {
	// Feature is the Key of the rules.Deprecation or rules.Removal the sighting is about.
	Feature string `json:"feature"`
	// Kind is a rules.Evidence* kind for what a server did, or an EvidenceClient* kind.
	Kind string `json:"kind"`
	// Side says which peer relies on it: SideServer or SideClient.
	Side string `json:"side"`
	// Evidence says what was seen, in one sentence.
	Evidence string `json:"evidence"`
	// Exchange is the ID of the exchange it was seen on.
	Exchange string `json:"exchange"`
}

// removedMethods are methods 2026-07-28 removed outright (besides initialize).
var removedMethods = map[string]bool{"ping": true, "logging/setLevel": true, "resources/subscribe": true, "resources/unsubscribe": true}

// Deprecations lists the deprecated and removed features ex shows in use, by either side. It is
// pure and returns nil for an exchange that shows none. debt/ builds its inventory from it.
func Deprecations(ex *wire.Exchange) []Sighting {
	if ex == nil {
		return nil
	}
	return sightings(newView(ex))
}

func sightings(v *view) []Sighting {
	var out []Sighting
	add := func(feature, kind, side, format string, args ...any) {
		out = append(out, Sighting{Feature: feature, Kind: kind, Side: side, Evidence: fmt.Sprintf(format, args...), Exchange: v.ex.ID})
	}
	served := v.final != nil && v.final.Error == nil && v.final.Result != nil
	reqHeader := v.ex.Request.Header
	switch m := v.method(); {
	case m == "initialize" && served:
		add("initialize", rules.EvidenceInitialize, SideServer, "the server answered an initialize request with a result")
	case m == "notifications/initialized" && v.status == 202:
		add("initialize", rules.EvidenceInitialized, SideServer, "the server accepted notifications/initialized")
	case m == "initialize" || m == "notifications/initialized":
		add("initialize", EvidenceClientInitialize, SideClient, "the client sent %s", m)
	case m == "ping" && served:
		add("ping", rules.EvidencePing, SideServer, "the server answered ping with a result")
	case m == "logging/setLevel" && served:
		add("logging-set-level", rules.EvidenceSetLevel, SideServer, "the server answered logging/setLevel with a result")
	case (m == "resources/subscribe" || m == "resources/unsubscribe") && served:
		add("resources-subscribe", rules.EvidenceSubscribe, SideServer, "the server answered %s with a result", m)
	case removedMethods[m]:
		add(removedKey(m), EvidenceClientRemoved, SideClient, "the client sent removed method %s", m)
	}
	if v.ex.Response != nil {
		if sid, ok := lookupHeader(v.ex.Response.Header, headerSessionID); ok {
			add("sessions", rules.EvidenceSessionID, SideServer, "the server sent Mcp-Session-Id %q", clip(sid))
		}
	}
	if v.ex.Request.Method == http.MethodDelete && v.status >= 200 && v.status < 300 {
		add("sessions", rules.EvidenceDeleteSession, SideServer, "DELETE on the endpoint got HTTP %d", v.status)
	}
	if sid, ok := lookupHeader(reqHeader, headerSessionID); ok {
		add("sessions", EvidenceClientSessionID, SideClient, "the client sent Mcp-Session-Id %q", clip(sid))
	}
	if _, ok := lookupHeader(reqHeader, headerLastEventID); ok {
		add("resumability", EvidenceClientLastEvent, SideClient, "the client sent Last-Event-ID to resume a stream")
	}
	if asMetadata(v.ex.Request.URL) && v.status == 200 && v.ex.Response != nil {
		if ep, ok := stringOf(decodeObject(v.ex.Response.Body)["registration_endpoint"]); ok && ep != "" {
			add("dynamic-client-registration", rules.EvidenceDCREndpoint, SideServer, "the authorization server metadata advertises registration_endpoint %q", clip(ep))
		}
	}
	if v.ex.Request.Method == http.MethodGet && v.status == 200 && v.sse {
		add("get-stream", rules.EvidenceGETStream, SideServer, "the server opened an event stream for GET %s", clip(v.ex.Request.URL))
	}
	endpoint, eventIDs := false, false
	for _, e := range v.sseEvents() {
		if e.Event == "endpoint" && !endpoint {
			endpoint = true
			add("http-sse", rules.EvidenceHTTPSSEEndpoint, SideServer, "the server sent an HTTP+SSE endpoint event (data %q)", clip(e.Data))
		}
		if e.ID != "" && !eventIDs {
			eventIDs = true
			add("resumability", rules.EvidenceSSEEventID, SideServer, "the server numbered SSE events for resumption (id %q)", clip(e.ID))
		}
	}
	if r := v.result(); r != nil && (v.method() == "server/discover" || v.method() == "initialize") {
		caps := decodeObject(r["capabilities"])
		if _, ok := caps["logging"]; ok {
			add("logging", rules.EvidenceCapabilityLogging, SideServer, "the %s result declares the logging capability", v.method())
		}
		if _, ok := caps["tasks"]; ok {
			add("core-tasks", rules.EvidenceCoreTasks, SideServer, "the %s result declares tasks as a core capability (it moved to an extension)", v.methodLabel())
		}
		if _, ok := r["serverInfo"]; ok && v.method() == "server/discover" {
			add("discover-server-info", rules.EvidenceDiscoverServerInfo, SideServer, "the DiscoverResult has a top-level serverInfo field")
		}
	}
	logged, completed := false, false
	for _, n := range v.notifications() {
		switch {
		case n.Method == "notifications/message" && !logged:
			logged = true
			add("logging", rules.EvidenceLogNotification, SideServer, "the server sent notifications/message on the %s stream", v.methodLabel())
		case n.Method == "notifications/elicitation/complete" && !completed:
			completed = true
			add("elicitation-complete", rules.EvidenceElicitationComplete, SideServer, "the server sent notifications/elicitation/complete")
		}
	}
	// Every server-initiated request on the stream counts, standalone ones on a GET stream as much
	// as those inside a tool call: roots/list and sampling/createMessage each once.
	requested, roots, sampling := false, false, false
	for _, m := range v.msgs {
		if !m.IsRequest() {
			continue
		}
		if !requested {
			requested = true
			add("server-requests", rules.EvidenceServerRequest, SideServer, "the server sent JSON-RPC request %s on the %s stream", clip(m.Method), v.streamLabel())
		}
		switch {
		case m.Method == "roots/list" && !roots:
			roots = true
			add("roots", rules.EvidenceRootsRequest, SideServer, "the server sent a roots/list request on the %s stream", v.streamLabel())
		case m.Method == "sampling/createMessage" && !sampling:
			sampling = true
			add("sampling", rules.EvidenceSamplingRequest, SideServer, "the server sent a sampling/createMessage request on the %s stream", v.streamLabel())
		}
	}
	for _, m := range v.msgs {
		if m.Error != nil && (m.Error.Code == codeRetiredNotFound || m.Error.Code == codeRetiredURLElicit) {
			add("retired-error-codes", rules.EvidenceRetiredErrorCode, SideServer, "the server emitted retired error code %d", m.Error.Code)
			break
		}
	}
	if _, ok := v.reqMeta[metaLogLevel]; ok {
		add("logging", EvidenceClientLogLevel, SideClient, "the client asked for log messages with %s", metaLogLevel)
	}
	caps := v.clientCapabilities()
	if _, ok := caps["roots"]; ok {
		add("roots", EvidenceClientRoots, SideClient, "the client declared the roots capability")
	}
	if _, ok := caps["sampling"]; ok {
		add("sampling", EvidenceClientSampling, SideClient, "the client declared the sampling capability")
	}
	if r := v.inputRequired(); r != nil {
		obj := decodeObject(r["inputRequests"])
		for _, k := range sortedKeys(obj) {
			ir := decodeObject(obj[k])
			m, _ := stringOf(ir["method"])
			switch m {
			case "roots/list":
				add("roots", rules.EvidenceRootsInputRequest, SideServer, "the server asked for roots/list in inputRequests[%q]", clip(k))
			case "sampling/createMessage":
				add("sampling", rules.EvidenceSamplingInputRequest, SideServer, "the server asked for sampling/createMessage in inputRequests[%q]", clip(k))
				if ic, _ := stringOf(decodeObject(ir["params"])["includeContext"]); ic == "thisServer" || ic == "allServers" {
					add("include-context", rules.EvidenceIncludeContext, SideServer, "inputRequests[%q] uses includeContext %q", clip(k), ic)
				}
			}
		}
	}
	return out
}

// streamLabel names the stream an exchange's messages came on: "GET" for the standalone stream,
// else the request's method.
func (v *view) streamLabel() string {
	if v.ex.Request.Method == http.MethodGet {
		return "GET"
	}
	return v.methodLabel()
}

// removedMethod reports whether the request was for a method 2026-07-28 removed (initialize,
// ping, logging/setLevel, resources/subscribe and unsubscribe).
func (v *view) removedMethod() bool {
	m := v.method()
	return m == "initialize" || removedMethods[m]
}

// removedKey maps a removed method to its rules.Removal key.
func removedKey(m string) string {
	switch m {
	case "ping":
		return "ping"
	case "logging/setLevel":
		return "logging-set-level"
	}
	return "resources-subscribe"
}

// checkDeprecated turns the server's own use of deprecated and removed features into outcomes.
// Client-side sightings are debt, not server failures, and yield no outcome here.
//
//	Removed methods (initialize, ping, logging/setLevel, resources/subscribe|unsubscribe) get
//	404 with -32601 on the modern path. Servers "SHOULD ignore Mcp-Session-Id" and never mint or
//	echo one. A server that speaks only this revision "SHOULD" answer GET and DELETE with 405.
//	New servers "SHOULD NOT" adopt HTTP+SSE, Roots, Sampling or Logging. "State that spans
//	requests MUST be referenced by an explicit identifier": a session id or cookie is the visible
//	symptom of the opposite.
func checkDeprecated(v *view, h *History) []rules.Outcome {
	var out []rules.Outcome
	modern := v.claimsModern()
	m := v.method()
	if _, isErr := v.errorCode(); m == "server/discover" && isErr && h != nil && h.Capabilities == nil {
		h.DiscoverRefused = true
	}
	// A removed method is judged only on a request of this revision: one whose header names
	// 2026-07-28 (the header is required on every such request). A request whose header
	// names a 2025 version is that version's traffic, where ping and initialize are served, and
	// one without the header a server that serves older clients MAY treat as 2025-03-26.
	pvHeader, hasPV := lookupHeader(v.ex.Request.Header, headerProtocolVersion)
	modernRequest := modern && hasPV && pvHeader == rules.Revision
	if (m == "initialize" || removedMethods[m]) && modernRequest && v.final != nil && !authStatus(v.status) {
		code, isErr := v.errorCode()
		switch {
		case !isErr:
			out = append(out, fail("removed-methods-absent", "the server answered removed method %s, sent with a 2026-07-28 envelope, with a result", m))
		case code == codeMethodNotFound && (v.status == 404 || v.sse):
			out = append(out, pass("removed-methods-absent", m+" answered 404 with -32601"))
		default:
			out = append(out, fail("removed-methods-absent", "the server answered removed method %s with HTTP %d and error %d instead of 404 with -32601", m, v.status, code))
		}
	}
	// The advice on legacy headers binds "a server that supports only this revision"; one that
	// refused server/discover does not speak it, and its sessions are migration debt.
	legacyServer := h != nil && h.DiscoverRefused
	if v.ex.Response != nil && modern && v.ex.Request.Method == http.MethodPost && !legacyServer {
		if sid, ok := lookupHeader(v.ex.Response.Header, headerSessionID); ok {
			out = append(out, fail("ignore-session-id", "the server sent Mcp-Session-Id %q on a 2026-07-28 reply", clip(sid)))
		} else if _, sent := lookupHeader(v.ex.Request.Header, headerSessionID); sent {
			out = append(out, pass("ignore-session-id", "the client's Mcp-Session-Id was not echoed"))
		}
	}
	if v.ex.Response != nil && modern && v.isRequest() && !authStatus(v.status) {
		_, sid := lookupHeader(v.ex.Response.Header, headerSessionID)
		// A session id inside a 2025 session (a server that refused server/discover, or a reply to
		// a request that carried the session id it was minted in) is the old era's mechanism, which
		// the deprecation inventory lists; it is not state the server chose to hide.
		_, inSession := lookupHeader(v.ex.Request.Header, headerSessionID)
		legacySession := sid && (legacyServer || inSession)
		cookie := headerValue(v.ex.Response.Header, "Set-Cookie")
		switch {
		case legacySession && cookie == "":
		case sid && !legacySession:
			out = append(out, fail("explicit-state-ids", "the server keys state to a session: it set Mcp-Session-Id on the %s reply", v.methodLabel()))
		case cookie != "":
			out = append(out, fail("explicit-state-ids", "the server set a cookie on the %s reply (%q); state must travel as explicit identifiers", v.methodLabel(), clip(cookie)))
		case v.final != nil:
			out = append(out, pass("explicit-state-ids", "no session id or cookie on the reply"))
		}
	}
	// GET and DELETE are judged only when the client claims this revision by header and the
	// server did not refuse server/discover: a dual-era server may serve a legacy client's GET
	// stream or session DELETE, and a legacy-only one is not addressed by the advice (its GET
	// stream is migration debt).
	legacyClient := headerValue(v.ex.Request.Header, headerProtocolVersion) < rules.Revision
	wellKnown := strings.Contains(v.ex.Request.URL, "/.well-known/") || legacyClient || legacyServer
	if (v.ex.Request.Method == http.MethodGet || v.ex.Request.Method == http.MethodDelete) && v.ex.Response != nil && !authStatus(v.status) && v.status != 405 && !wellKnown {
		out = append(out, fail("get-delete-405", "%s on the endpoint got HTTP %d, not 405", v.ex.Request.Method, v.status))
	} else if v.status == 405 && !wellKnown && (v.ex.Request.Method == http.MethodGet || v.ex.Request.Method == http.MethodDelete) {
		out = append(out, pass("get-delete-405", v.ex.Request.Method+" got 405"))
	}
	httpSSE := false
	for _, s := range sightings(v) {
		if s.Side != SideServer {
			continue
		}
		switch s.Kind {
		case rules.EvidenceHTTPSSEEndpoint:
			httpSSE = true
			out = append(out, fail("no-new-http-sse", "%s", s.Evidence))
		case rules.EvidenceCapabilityLogging, rules.EvidenceLogNotification, rules.EvidenceRootsInputRequest,
			rules.EvidenceSamplingInputRequest, rules.EvidenceRootsRequest, rules.EvidenceSamplingRequest:
			out = append(out, fail("deprecated-features-avoided", "%s (deprecated by SEP-2577)", s.Evidence))
		}
	}
	// A GET on the endpoint is how a client detects the HTTP+SSE transport (backward
	// compatibility: it expects an endpoint event first); a GET answered without one shows the
	// endpoint does not offer it.
	if v.ex.Request.Method == http.MethodGet && v.ex.Response != nil && v.status != 401 && v.status != 403 && !httpSSE &&
		!strings.Contains(v.ex.Request.URL, "/.well-known/") {
		out = append(out, pass("no-new-http-sse", fmt.Sprintf("GET on the endpoint got HTTP %d with no HTTP+SSE endpoint event", v.status)))
	}
	return out
}

// AnsweredDiscover reports whether ex is a server/discover request the server answered with a
// complete result whose supportedVersions lists this revision: the mark of a server that speaks
// 2026-07-28. The deprecation inventory uses it to tell a legacy-only server (one that answers
// discover without offering 2026-07-28 counts as legacy) from a dual-era one.
func AnsweredDiscover(ex *wire.Exchange) bool {
	if ex == nil {
		return false
	}
	v := newView(ex)
	if v.method() != "server/discover" || !v.complete() {
		return false
	}
	for _, raw := range decodeArray(v.result()["supportedVersions"]) {
		if s, _ := stringOf(raw); s == rules.Revision {
			return true
		}
	}
	return false
}

// asMetadata reports whether a URL is an authorization server metadata document (RFC 8414 or
// OpenID discovery).
func asMetadata(u string) bool {
	return strings.Contains(u, "/.well-known/oauth-authorization-server") || strings.Contains(u, "/.well-known/openid-configuration")
}
