package rules

// This file holds the SSE response-stream rules. Rows are in catalogue order; see docs/rules.md
// before editing.

// catalogSSE returns the rules whose primary area is "sse".
func catalogSSE() []Rule {
	return []Rule{
		{
			Name:        "sse-notifications-related",
			Level:       Must,
			Requirement: "Notifications on a request's SSE stream relate to that request.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#receiving-messages",
			Remediation: "Write on a request's SSE stream only notifications about that request, such as its progress.",
			Check:       CheckPassive,
			Areas:       []Area{AreaSSE},
			Catalogue:   39,
		},
		{
			Name:        "sse-final-response-terminates",
			Level:       Should,
			Requirement: "The final response ends the SSE stream.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#receiving-messages",
			Remediation: "Close the SSE stream right after writing the final JSON-RPC response.",
			Check:       CheckPassive,
			Areas:       []Area{AreaSSE},
			Catalogue:   40,
		},
		{
			Name:        "sse-x-accel-buffering",
			Level:       Should,
			Requirement: "SSE responses carry `X-Accel-Buffering: no`.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#receiving-messages",
			Remediation: "Set `X-Accel-Buffering: no` on every `text/event-stream` response so reverse proxies pass events through unbuffered.",
			Check:       CheckPassive,
			Areas:       []Area{AreaSSE},
			Catalogue:   41,
		},
		{
			Name:        "ignore-last-event-id",
			Level:       Should,
			Requirement: "Ignore `Last-Event-ID`; no resumption.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#earlier-streamable-http-revisions",
			Remediation: "Ignore `Last-Event-ID`: do not replay events and do not assign SSE event ids for resumption.",
			Check:       CheckActive,
			Areas:       []Area{AreaSSE, AreaDeprecations},
			Catalogue:   76,
			Note:        "The spec addresses this to a server that supports only this revision; a server that also serves 2025-03-26..2025-11-25 clients follows the older revision for that traffic, so the outcome is indeterminate when the server answers in the legacy era.",
		},
	}
}
