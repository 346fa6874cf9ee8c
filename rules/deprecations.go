package rules

import "time"

// Evidence kinds: machine-usable names for what a deprecated or removed feature looks like on the
// wire. Passive checks and the deprecation inventory match on these strings, so they are constants
// here rather than prose in each check. The part before the colon says where to look.
const (
	EvidenceCapabilityLogging    = "capability:logging"                   // DiscoverResult capabilities.logging
	EvidenceLogNotification      = "method:notifications/message"         // a log notification on a response stream
	EvidenceRootsRequest         = "method:roots/list"                    // a standalone server-to-client roots/list request
	EvidenceRootsInputRequest    = "input-request:roots/list"             // roots/list inside InputRequiredResult.inputRequests
	EvidenceSamplingRequest      = "method:sampling/createMessage"        // a standalone sampling request
	EvidenceSamplingInputRequest = "input-request:sampling/createMessage" // sampling inside InputRequiredResult.inputRequests
	EvidenceIncludeContext       = "meta:includeContext"                  // includeContext thisServer/allServers in a sampling request
	EvidenceDCREndpoint          = "oauth:dcr-registration-endpoint"      // registration_endpoint in the authorization server metadata
	EvidenceHTTPSSEEndpoint      = "endpoint:http+sse"                    // an SSE `endpoint` event (2024-11-05 transport)
	EvidenceGETStream            = "http:get-sse-stream"                  // GET on the endpoint answered with text/event-stream
	EvidenceInitialize           = "method:initialize"                    // initialize answered with a result
	EvidenceInitialized          = "method:notifications/initialized"     // notifications/initialized accepted as part of a handshake
	EvidencePing                 = "method:ping"                          // ping answered with a result
	EvidenceSetLevel             = "method:logging/setLevel"              // logging/setLevel answered with a result
	EvidenceSubscribe            = "method:resources/subscribe"           // resources/subscribe or unsubscribe answered with a result
	EvidenceRootsListChanged     = "method:notifications/roots/list_changed"
	EvidenceServerRequest        = "jsonrpc:server-request" // any JSON-RPC request sent by the server
	EvidenceSessionID            = "header:mcp-session-id"  // Mcp-Session-Id set by the server
	EvidenceDeleteSession        = "http:delete-session"    // DELETE on the endpoint answered with 2xx
	EvidenceSSEEventID           = "sse:event-id"           // `id:` lines on SSE events (resumability)
	EvidenceElicitationComplete  = "method:notifications/elicitation/complete"
	EvidenceRetiredErrorCode     = "error-code:retired"        // error code -32002 or -32042
	EvidenceCoreTasks            = "capability:tasks"          // tasks declared as a core capability
	EvidenceDiscoverServerInfo   = "field:discover-serverInfo" // DiscoverResult.serverInfo outside _meta
)

// Evidence is one way a feature shows in traffic: a Kind for machines and a Description for people.
type Evidence struct {
	// Kind is one of the Evidence* constants.
	Kind string `json:"kind"`
	// Description says what was seen, in words a server author recognises.
	Description string `json:"description"`
}

// Deprecation is one feature in the Deprecated state in 2026-07-28: still part of the spec and still
// graded when a server uses it, but scheduled for removal. The deprecation inventory turns each one
// it finds in use into migration debt with a date.
type Deprecation struct {
	// Key is a short stable identifier ("roots", "http-sse").
	Key string `json:"key"`
	// Name is the feature's name in the spec's deprecated-features registry.
	Name string `json:"name"`
	// Source is the SEP or pull request that deprecated (or reclassified) the feature.
	Source string `json:"source"`
	// SpecURL is the feature's clause, under SpecBase.
	SpecURL string `json:"specUrl"`
	// DeprecatedIn is the revision date from which the feature counts as deprecated.
	DeprecatedIn time.Time `json:"deprecatedIn"`
	// WindowStart is when the policy's removal window started counting: the release of the revision
	// that marked the feature Deprecated, or, for grandfathered features, the day SEP-2596 reached
	// Final.
	WindowStart time.Time `json:"windowStart"`
	// WindowMonths is the minimum window: 12 months under the lifecycle policy, three for the
	// features the policy grandfathered.
	WindowMonths int `json:"windowMonths"`
	// Grandfathered marks features deprecated before the lifecycle policy, which got a short grace
	// period instead of a fresh 12-month window.
	Grandfathered bool `json:"grandfathered,omitempty"`
	// EarliestRemoval is the first date a removal can take effect: the feature is removable in the
	// first revision released on or after it.
	EarliestRemoval time.Time `json:"earliestRemoval"`
	// Replacement is the migration path.
	Replacement string `json:"replacement"`
	// Evidence lists how use of the feature shows in traffic.
	Evidence []Evidence `json:"evidence"`
	// Rules are the names of the rules that grade the feature or its use.
	Rules []string `json:"rules"`
	// Note records an inference or a spec ambiguity about the dates.
	Note string `json:"note,omitempty"`
}

// RemovableOn returns the earliest date on which a revision may remove the feature. The actual
// removal is a Core Maintainer decision and may come later, so the date is a lower bound.
func (d Deprecation) RemovableOn() time.Time { return d.EarliestRemoval }

// Removal is something 2026-07-28 removed outright, with no deprecation window. A server that still
// relies on it speaks an older revision on that point, and the inventory lists it as debt.
type Removal struct {
	// Key is a short stable identifier ("initialize").
	Key string `json:"key"`
	// Name says what was removed.
	Name string `json:"name"`
	// Source is the SEP or changelog entry that removed it.
	Source string `json:"source"`
	// SpecURL is the clause describing the removal or its replacement, under SpecBase.
	SpecURL string `json:"specUrl"`
	// Replacement is what a server uses instead.
	Replacement string `json:"replacement"`
	// Evidence lists how reliance on the removed feature shows in traffic.
	Evidence []Evidence `json:"evidence"`
	// Rules are the names of the rules that grade its absence.
	Rules []string `json:"rules"`
}

// ReleaseDate is the release date of revision 2026-07-28, the start of the standard windows.
var ReleaseDate = day(2026, time.July, 28)

// PolicyWindowMonths is the minimum deprecation window of the lifecycle policy (SEP-2596).
const PolicyWindowMonths = 12

// GrandfatherWindowMonths is the grace period SEP-2596 gave features deprecated before it existed.
const GrandfatherWindowMonths = 3

// sep2596Final is the day SEP-2596 was marked Final in the specification repository (commit
// 183238dd); the grandfathered windows count from it.
var sep2596Final = day(2026, time.June, 3)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// Deprecations returns the features in the Deprecated state, in the order of the spec's registry.
// The slice is freshly built: callers may change it.
func Deprecations() []Deprecation {
	std := func(d Deprecation) Deprecation {
		d.DeprecatedIn, d.WindowStart, d.WindowMonths = ReleaseDate, ReleaseDate, PolicyWindowMonths
		d.EarliestRemoval = ReleaseDate.AddDate(0, PolicyWindowMonths, 0)
		return d
	}
	return []Deprecation{
		std(Deprecation{
			Key: "roots", Name: "Roots", Source: "SEP-2577", SpecURL: SpecBase + "client/roots",
			Replacement: "Pass directories or files as tool parameters, resource URIs or server configuration.",
			Evidence: []Evidence{
				{EvidenceRootsInputRequest, "an InputRequiredResult asks the client for roots/list"},
				{EvidenceRootsRequest, "the server sends a roots/list request on a stream"},
			},
			Rules: []string{"deprecated-features-avoided", "deprecated-features-migrate", "mrtr-request-kinds", "mrtr-declared-capabilities"},
		}),
		std(Deprecation{
			Key: "sampling", Name: "Sampling", Source: "SEP-2577", SpecURL: SpecBase + "client/sampling",
			Replacement: "Call LLM provider APIs directly from the server.",
			Evidence: []Evidence{
				{EvidenceSamplingInputRequest, "an InputRequiredResult asks the client for sampling/createMessage"},
				{EvidenceSamplingRequest, "the server sends a sampling/createMessage request on a stream"},
			},
			Rules: []string{"deprecated-features-avoided", "deprecated-features-migrate", "sampling-tools-declared", "sampling-tool-results-paired"},
		}),
		std(Deprecation{
			Key: "logging", Name: "Logging", Source: "SEP-2577", SpecURL: SpecBase + "server/utilities/logging",
			Replacement: "Log to stderr (stdio) or export logs with OpenTelemetry.",
			Evidence: []Evidence{
				{EvidenceCapabilityLogging, "server/discover declares the logging capability"},
				{EvidenceLogNotification, "the server sends notifications/message"},
			},
			Rules: []string{"declare-logging", "no-log-without-loglevel", "log-at-or-above-level", "invalid-loglevel-32602",
				"deprecated-features-avoided", "deprecated-features-correct", "deprecated-features-migrate"},
		}),
		std(Deprecation{
			Key: "dynamic-client-registration", Name: "OAuth 2.0 Dynamic Client Registration (RFC 7591)",
			Source: "PR #2858", SpecURL: SpecBase + "basic/authorization/client-registration#dynamic-client-registration",
			Replacement: "Client ID Metadata Documents.",
			Evidence: []Evidence{
				{EvidenceDCREndpoint, "the authorization server metadata advertises a registration_endpoint"},
			},
			Rules: []string{"http-auth-conformance"},
			Note:  "Deprecated without a SEP number; it stays available for authorization servers that do not support Client ID Metadata Documents.",
		}),
		{
			Key: "include-context", Name: `includeContext "thisServer" / "allServers" (Sampling)`,
			Source: "SEP-2596", SpecURL: SpecBase + "client/sampling#capabilities",
			DeprecatedIn: day(2025, time.November, 25), WindowStart: sep2596Final,
			WindowMonths: GrandfatherWindowMonths, Grandfathered: true,
			EarliestRemoval: ReleaseDate.AddDate(0, PolicyWindowMonths, 0),
			Replacement:     `Omit includeContext or set it to "none".`,
			Evidence: []Evidence{
				{EvidenceIncludeContext, `a sampling input request sets includeContext to "thisServer" or "allServers"`},
			},
			Rules: []string{"include-context-declared", "deprecated-features-avoided"},
			Note: "Soft-deprecated in 2025-11-25 and reclassified by SEP-2596; the spec says the values go no later than " +
				"Sampling, so the date given is Sampling's earliest removal.",
		},
		{
			Key: "http-sse", Name: "HTTP+SSE transport (2024-11-05)", Source: "SEP-2596",
			SpecURL:      SpecBase + "basic/transports/streamable-http#http+sse-transport-2024-11-05",
			DeprecatedIn: day(2025, time.March, 26), WindowStart: sep2596Final,
			WindowMonths: GrandfatherWindowMonths, Grandfathered: true,
			EarliestRemoval: sep2596Final.AddDate(0, GrandfatherWindowMonths, 0),
			Replacement:     "Streamable HTTP: one POST endpoint, as this revision defines it.",
			Evidence: []Evidence{
				{EvidenceHTTPSSEEndpoint, "a GET opens an SSE stream whose first event is `endpoint`"},
			},
			Rules: []string{"no-new-http-sse", "deprecated-features-avoided", "deprecated-features-migrate"},
			Note: "The spec says three months after SEP-2596 reaches Final; the date is inferred from the repository " +
				"marking it Final on 2026-06-03, and removal itself is a Core Maintainer decision.",
		},
	}
}

// Removals returns what 2026-07-28 removed outright, in the order of the changelog. The slice is
// freshly built: callers may change it.
func Removals() []Removal {
	return []Removal{
		{Key: "initialize", Name: "The initialize handshake (initialize, notifications/initialized)", Source: "SEP-2575",
			SpecURL:     SpecBase + "basic/versioning#backward-compatibility-with-initialization-based-versions",
			Replacement: "Per-request _meta (protocol version, client capabilities) and server/discover.",
			Evidence: []Evidence{{EvidenceInitialize, "initialize is answered with a result"},
				{EvidenceInitialized, "notifications/initialized is required before other requests"}},
			Rules: []string{"removed-methods-absent", "initialize-error-names-versions", "discover-implemented"}},
		{Key: "ping", Name: "ping, in both directions", Source: "SEP-2575", SpecURL: SpecBase + "changelog#major-changes",
			Replacement: "Nothing: every request is self-contained; use an ordinary request to test liveness.",
			Evidence:    []Evidence{{EvidencePing, "ping is answered with a result"}},
			Rules:       []string{"removed-methods-absent", "unknown-method-404"}},
		{Key: "logging-set-level", Name: "logging/setLevel", Source: "SEP-2575",
			SpecURL:     SpecBase + "server/utilities/logging#per-request-log-level",
			Replacement: "The per-request io.modelcontextprotocol/logLevel _meta key.",
			Evidence:    []Evidence{{EvidenceSetLevel, "logging/setLevel is answered with a result"}},
			Rules:       []string{"removed-methods-absent", "no-log-without-loglevel"}},
		{Key: "roots-list-changed", Name: "notifications/roots/list_changed", Source: "SEP-2575",
			SpecURL:     SpecBase + "changelog#major-changes",
			Replacement: "Nothing: roots arrive with each MRTR retry.",
			Evidence:    []Evidence{{EvidenceRootsListChanged, "the server waits for or asks about roots list changes"}},
			Rules:       []string{"no-connection-derived-context"}},
		{Key: "resources-subscribe", Name: "resources/subscribe and resources/unsubscribe", Source: "SEP-2575",
			SpecURL:     SpecBase + "basic/patterns/subscriptions",
			Replacement: "subscriptions/listen with notifications.resourceSubscriptions.",
			Evidence:    []Evidence{{EvidenceSubscribe, "resources/subscribe or resources/unsubscribe is answered with a result"}},
			Rules:       []string{"removed-methods-absent", "resource-updated-opt-in"}},
		{Key: "server-requests", Name: "Standalone server-to-client requests (roots/list, sampling/createMessage, elicitation/create)",
			Source: "SEP-2260, SEP-2322", SpecURL: SpecBase + "basic/patterns/mrtr",
			Replacement: "Multi round-trip requests: an InputRequiredResult and a retry.",
			Evidence:    []Evidence{{EvidenceServerRequest, "the server writes a JSON-RPC request on a stream"}},
			Rules:       []string{"no-server-initiated-requests"}},
		{Key: "get-stream", Name: "The HTTP GET SSE stream", Source: "SEP-2575",
			SpecURL:     SpecBase + "basic/transports/streamable-http#earlier-streamable-http-revisions",
			Replacement: "subscriptions/listen on POST.",
			Evidence:    []Evidence{{EvidenceGETStream, "GET on the endpoint opens an SSE stream"}},
			Rules:       []string{"get-delete-405"}},
		{Key: "sessions", Name: "Protocol sessions: Mcp-Session-Id and DELETE termination", Source: "SEP-2567",
			SpecURL:     SpecBase + "basic/transports/streamable-http#earlier-streamable-http-revisions",
			Replacement: "Explicit handles passed on each request.",
			Evidence: []Evidence{{EvidenceSessionID, "the server sets Mcp-Session-Id"},
				{EvidenceDeleteSession, "DELETE on the endpoint succeeds"}},
			Rules: []string{"ignore-session-id", "get-delete-405", "explicit-state-ids"}},
		{Key: "resumability", Name: "SSE resumability: Last-Event-ID, event ids, redelivery", Source: "SEP-2575",
			SpecURL:     SpecBase + "basic/transports/streamable-http#earlier-streamable-http-revisions",
			Replacement: "Retry a broken request with a new id.",
			Evidence:    []Evidence{{EvidenceSSEEventID, "SSE events carry id: lines for resumption"}},
			Rules:       []string{"ignore-last-event-id"}},
		{Key: "elicitation-complete", Name: "notifications/elicitation/complete and the URL-mode elicitationId",
			Source: "changelog", SpecURL: SpecBase + "changelog#minor-changes",
			Replacement: "The MRTR retry carries the elicitation outcome.",
			Evidence:    []Evidence{{EvidenceElicitationComplete, "the server sends notifications/elicitation/complete"}},
			Rules:       []string{"no-server-initiated-requests"}},
		{Key: "retired-error-codes", Name: "Error codes −32002 (resource not found) and −32042 (URL elicitation required)",
			Source: "changelog", SpecURL: SpecBase + "basic#error-codes",
			Replacement: "−32602 for a missing resource; MRTR for URL elicitation.",
			Evidence:    []Evidence{{EvidenceRetiredErrorCode, "an error carries code −32002 or −32042"}},
			Rules:       []string{"retired-codes", "resource-not-found-32602"}},
		{Key: "core-tasks", Name: "Tasks in the core protocol", Source: "SEP-2663", SpecURL: SpecBase + "changelog#major-changes",
			Replacement: "The io.modelcontextprotocol/tasks extension, negotiated in capabilities.extensions.",
			Evidence:    []Evidence{{EvidenceCoreTasks, "server/discover declares tasks as a core capability"}},
			Rules:       []string{"extension-fallback", "extension-id-grammar"}},
		{Key: "discover-server-info", Name: "DiscoverResult.serverInfo as a result field (pre-release only)", Source: "PR #3002",
			SpecURL:     SpecBase + "server/discover#discoverresult",
			Replacement: "io.modelcontextprotocol/serverInfo in the result's _meta.",
			Evidence:    []Evidence{{EvidenceDiscoverServerInfo, "DiscoverResult has a top-level serverInfo field"}},
			Rules:       []string{"discover-server-info", "server-info-in-result-meta"}},
	}
}

// MonthsUntil returns the number of whole calendar months from `from` until `to`: 0 when less than
// a month remains, negative when `to` is already past (the whole months since). Both times are
// compared in UTC. It is what "removable on or after DATE (N months from now)" prints.
func MonthsUntil(from, to time.Time) int {
	if to.Before(from) {
		return -MonthsUntil(to, from)
	}
	from, to = from.UTC(), to.UTC()
	months := (to.Year()-from.Year())*12 + int(to.Month()) - int(from.Month())
	// A month counts only once its day (and time of day) in `to` has reached that of `from`.
	if clockOf(to) < clockOf(from) {
		months--
	}
	return months
}

// clockOf orders instants within a month: day of month, then time of day.
func clockOf(t time.Time) time.Duration {
	h, m, s := t.Clock()
	return time.Duration(t.Day())*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(s)*time.Second + time.Duration(t.Nanosecond())
}
