package rules

// This file holds the cancellation rules, on HTTP (stream closure) and by notification. Rows are
// in catalogue order; see docs/rules.md before editing.

// catalogCancellation returns the rules whose primary area is "cancellation".
func catalogCancellation() []Rule {
	return []Rule{
		{
			Name:        "disconnect-is-cancellation",
			Level:       Must,
			Requirement: "Closing a request's SSE stream cancels that request.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#cancellation",
			Remediation: "Tie each request's work to its stream's context and stop the work when the client closes the stream.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Closing the stream removes the only channel, so the server's reaction to the disconnect is invisible from outside.",
				WouldSettle: "A fixture tool with an observable side effect (a counter, a file) that a cancelled call must not complete, or server logs.",
			},
			Areas:     []Area{AreaCancellation, AreaSSE},
			Catalogue: 48,
		},
		{
			Name:        "stop-cancelled-work",
			Level:       Should,
			Requirement: "Stop work on a cancelled request promptly.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#cancellation",
			Remediation: "Check for cancellation between steps of long work and return as soon as it is seen.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "How quickly a server stops cancelled work leaves no trace in its responses.",
				WouldSettle: "Server-side metrics or logs, or a side-effect fixture timed after the cancellation.",
			},
			Areas:     []Area{AreaCancellation},
			Catalogue: 49,
		},
		{
			Name:        "nothing-after-cancel",
			Level:       MustNot,
			Requirement: "Send no further messages for a cancelled request.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#cancellation",
			Remediation: "Once a request is cancelled, write nothing more for it.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "After a cancellation by disconnect the stream is closed, so anything the server tries to send cannot be observed.",
				WouldSettle: "Server logs or a capture on the server side of the connection.",
			},
			Areas:     []Area{AreaCancellation},
			Catalogue: 50,
		},
		{
			Name:        "server-cancelled-listen-only",
			Level:       MustNot,
			Requirement: "Use `notifications/cancelled` for nothing except ending a `subscriptions/listen`.",
			SpecURL:     SpecBase + "basic/patterns/cancellation",
			Remediation: "Send `notifications/cancelled` only to end a `subscriptions/listen` stream; finish other requests by answering them.",
			Check:       CheckPassive,
			Areas:       []Area{AreaCancellation, AreaSubscription},
			Catalogue:   51,
		},
		{
			Name:        "ignore-invalid-cancel",
			Level:       Should,
			Requirement: "Ignore cancellation notifications that are unknown, already finished or malformed.",
			SpecURL:     SpecBase + "basic/patterns/cancellation#error-handling",
			Remediation: "Accept and ignore `notifications/cancelled` that names an unknown or finished request, or is malformed; neither error nor close anything.",
			Check:       CheckActive,
			Areas:       []Area{AreaCancellation},
			Catalogue:   52,
		},
		{
			Name:        "listen-teardown-cancelled",
			Level:       Must,
			Requirement: "When tearing down a `subscriptions/listen` stream, the server sends `notifications/cancelled` naming the listen request id.",
			SpecURL:     SpecBase + "basic/patterns/cancellation#behavior-requirements",
			Remediation: "If you tear down a listen stream, send `notifications/cancelled` naming the listen request id first.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "The spec text conflicts, and a scan cannot force a teardown.",
				WouldSettle: "A spec clarification plus a fixture that restarts the server while a listen stream is open.",
			},
			Requires:  FeatureListen,
			Areas:     []Area{AreaCancellation, AreaSubscription},
			Catalogue: 202,
			Note:      "The cancellation page states this for every transport, while the subscriptions page and the schema confine it to stdio; not graded on HTTP until the spec settles it.",
		},
		{
			Name:        "cancellation-race-tolerant",
			Level:       Must,
			Requirement: "Cope gracefully when a cancellation arrives after processing finished or after the response was sent.",
			SpecURL:     SpecBase + "basic/patterns/cancellation#timing-considerations",
			Remediation: "Treat a cancellation for a finished or already answered request as a no-op, without errors or crashes.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "The race depends on timing inside the server that the scanner can neither control nor observe reliably.",
				WouldSettle: "A server-side test that cancels at every stage of a request.",
			},
			Areas:     []Area{AreaCancellation},
			Catalogue: 203,
		},
		{
			Name:        "cancel-frees-resources",
			Level:       Should,
			Requirement: "On cancellation, stop processing, release the resources tied to the request and send no response for it.",
			SpecURL:     SpecBase + "basic/patterns/cancellation#behavior-requirements",
			Remediation: "On cancellation, stop the work, release what the request held and send no response for it.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Released resources are inside the server, and after a cancellation by disconnect the stream is gone.",
				WouldSettle: "Server metrics (open handles, goroutines) before and after cancelled calls, or a side-effect fixture.",
			},
			Areas:     []Area{AreaCancellation},
			Catalogue: 204,
		},
		{
			Name:        "log-cancellation-reasons",
			Level:       Should,
			Requirement: "Log the reason for each cancellation, for debugging.",
			SpecURL:     SpecBase + "basic/patterns/cancellation#implementation-notes",
			Remediation: "Log the reason of each cancellation on the server side.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Server-side logs are not part of the protocol traffic.",
				WouldSettle: "The server's own logs.",
			},
			Areas:     []Area{AreaCancellation, AreaLogging},
			Catalogue: 205,
		},
	}
}
