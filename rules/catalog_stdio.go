package rules

// This file holds the rules of the stdio binding (basic/transports/stdio): framing, what may reach
// stdout, cancellation on the shared channel, shutdown by closing stdin. Every protocol-level rule
// applies over stdio as well; these are the ones stated for the binding itself. Requirements the
// page places on clients (what they write to the server's stdin, that they correlate listen
// notifications by subscription ID, how they shut down and restart a server) bind the client,
// not the server, and have no rule here. See docs/rules.md before editing.

// catalogStdio returns the rules of the stdio binding.
func catalogStdio() []Rule {
	return []Rule{
		{
			Name:        "stdio-newline-delimited",
			Level:       MustNot,
			Requirement: "A message on stdout contains no embedded newline: each message is one line, ended by a newline.",
			SpecURL:     SpecBase + "basic/transports/stdio",
			Remediation: "Serialise every message as compact JSON (no pretty-printing, no indentation) and write it followed by exactly one `\\n`; newlines inside strings are escaped as `\\n` by any JSON encoder.",
			Check:       CheckPassive,
			Areas:       []Area{AreaStdio, AreaJSONRPC},
			Transport:   TransportStdio,
		},
		{
			Name:        "stdio-stdout-messages-only",
			Level:       MustNot,
			Requirement: "Nothing reaches stdout but valid MCP messages, each line a single JSON-RPC request, notification or response: no banners, logs, blank lines or batches.",
			SpecURL:     SpecBase + "basic/transports/stdio",
			Remediation: "Write logs, banners and progress text to stderr (`console.error`, not `console.log`; `os.Stderr`, not `fmt.Println`) and nothing but one JSON-RPC message per line to stdout.",
			Check:       CheckPassive,
			Areas:       []Area{AreaStdio, AreaJSONRPC},
			Transport:   TransportStdio,
			Note:        "A line longer than the scan's limit on one message is not decoded; it is reported as indeterminate for this rule, not as a failure.",
		},
		{
			Name:        "stdio-no-server-requests",
			Level:       MustNot,
			Requirement: "The server writes no JSON-RPC request to stdout; what it needs from the client it asks for in an InputRequiredResult (MRTR).",
			SpecURL:     SpecBase + "basic/transports/stdio#receiving-messages",
			Remediation: "Replace server-to-client requests (roots/list, sampling/createMessage, elicitation/create, ping) with an `input_required` result carrying `inputRequests`, answered by the client's retry.",
			Check:       CheckPassive,
			Areas:       []Area{AreaStdio, AreaMRTR, AreaDeprecations},
			Transport:   TransportStdio,
		},
		{
			Name:        "stdio-nothing-after-cancel",
			Level:       MustNot,
			Requirement: "Once the client has cancelled a request with `notifications/cancelled`, the server sends no further message for it: no response, no progress.",
			SpecURL:     SpecBase + "basic/transports/stdio#cancellation",
			Remediation: "On `notifications/cancelled`, mark the request cancelled before doing anything else and drop its response and its progress notifications, even when the work finishes anyway.",
			Check:       CheckPassive,
			Areas:       []Area{AreaStdio, AreaCancellation},
			Transport:   TransportStdio,
			Note:        "A reply already on its way when the cancellation arrived is allowed (cancellation-race-tolerant). The check fails only a message for the cancelled request that comes after the server has answered a request the client sent after the cancellation (so it had read the cancellation) and then a request the client sent only after that answer: a concurrent server may still write a response it finished before reading the cancellation after one later answer, but not a whole round trip later.",
		},
		{
			Name:        "stdio-stop-cancelled-work",
			Level:       Should,
			Requirement: "Stop the work of a request the client cancelled with `notifications/cancelled` as soon as practical.",
			SpecURL:     SpecBase + "basic/transports/stdio#cancellation",
			Remediation: "Propagate cancellation into the handler (a context, an AbortSignal) so the work itself stops, not only its reply.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "whether work stopped is invisible from outside: a server that drops the reply but finishes the work looks the same on stdout",
				WouldSettle: "a tool whose side effect can be observed after a cancellation, or a code review of the handler's cancellation path",
			},
			Areas:     []Area{AreaStdio, AreaCancellation},
			Transport: TransportStdio,
		},
		{
			Name:        "stdio-exit-on-stdin-close",
			Level:       Should,
			Requirement: "The server exits promptly once its stdin is closed (end of file), the binding's graceful-shutdown signal.",
			SpecURL:     SpecBase + "basic/transports/stdio#shutdown",
			Remediation: "Exit when a read from stdin returns end-of-file: end the process once in-flight work is flushed, and do not keep timers, intervals or open handles alive past it.",
			Check:       CheckActive,
			Areas:       []Area{AreaStdio},
			Transport:   TransportStdio,
			Note:        "\"Promptly\" is not quantified by the spec; the probe waits a bounded time (stated in the finding) before it stops the server with SIGTERM.",
		},
	}
}
