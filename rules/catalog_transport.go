package rules

// This file holds the Streamable HTTP transport rules: the endpoint, notifications, status codes.
// Rows are in catalogue order; see docs/rules.md before editing.

// catalogTransport returns the rules whose primary area is "transport".
func catalogTransport() []Rule {
	return []Rule{
		{
			Name:        "single-post-endpoint",
			Level:       Must,
			Requirement: "Expose one MCP endpoint that accepts POST.",
			SpecURL:     SpecBase + "basic/transports/streamable-http",
			Remediation: "Serve every MCP message at one URL path that accepts POST with a JSON-RPC body.",
			Check:       CheckActive,
			Areas:       []Area{AreaTransport},
			Catalogue:   35,
		},
		{
			Name:        "notification-202",
			Level:       Must,
			Requirement: "An accepted notification POST gets 202 with no body.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#sending-messages",
			Remediation: "Answer an accepted notification POST with 202 Accepted and an empty body.",
			Check:       CheckBoth,
			Areas:       []Area{AreaTransport},
			Catalogue:   36,
		},
		{
			Name:        "notification-reject-status",
			Level:       Must,
			Requirement: "A notification the server cannot accept gets an HTTP error status.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#sending-messages",
			Remediation: "When a notification is refused, answer its POST with an HTTP 4xx status, never 200 or 202.",
			Check:       CheckActive,
			Areas:       []Area{AreaTransport},
			Catalogue:   37,
			Note:        "Partial: the spec does not define when a server may refuse a notification; the probe sends a notification with malformed params and fails only a refusal (a JSON-RPC error body) that comes with a 2xx status.",
		},
		{
			Name:        "request-reply-content-type",
			Level:       Must,
			Requirement: "A request reply is `application/json` (one object) or `text/event-stream`.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#sending-messages",
			Remediation: "Reply to a request POST with `Content-Type: application/json` carrying exactly one JSON object, or with `text/event-stream`.",
			Check:       CheckPassive,
			Areas:       []Area{AreaTransport, AreaSSE},
			Catalogue:   38,
		},
		{
			Name:        "concurrent-streams",
			Level:       Must,
			Requirement: "Concurrent POSTs and streams are served independently.",
			SpecURL:     SpecBase + "basic/transports/streamable-http",
			Remediation: "Serve each POST and its stream independently; never hold one request behind another request's open stream.",
			Check:       CheckActive,
			Areas:       []Area{AreaTransport, AreaSSE},
			Catalogue:   42,
			Note:        "Level implied: the spec states this in normative prose or schema optionality without an RFC 2119 keyword.",
		},
		{
			Name:        "get-delete-405",
			Level:       Should,
			Requirement: "GET or DELETE on the endpoint gets 405.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#earlier-streamable-http-revisions",
			Remediation: "Answer GET and DELETE on the MCP endpoint with 405 Method Not Allowed, ideally with `Allow: POST`.",
			Check:       CheckBoth,
			Areas:       []Area{AreaTransport, AreaDeprecations},
			Catalogue:   74,
			Note:        "The spec addresses this to a server that supports only this revision; a server that also serves 2025-03-26..2025-11-25 clients follows the older revision for that traffic, so the outcome is indeterminate when the server answers in the legacy era.",
		},
	}
}
