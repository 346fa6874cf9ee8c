package rules

// This file holds the statelessness rules: no connection-derived context, explicit state
// identifiers. Rows are in catalogue order; see docs/rules.md before editing.

// catalogStateless returns the rules whose primary area is "stateless".
func catalogStateless() []Rule {
	return []Rule{
		{
			Name:        "support-message-patterns",
			Level:       Must,
			Requirement: "Support the base protocol, versioning and all message patterns (request/response, MRTR, subscribe/notify).",
			SpecURL:     SpecBase + "basic",
			Remediation: "Implement request/response, MRTR (InputRequiredResult plus a retry carrying `inputResponses` and `requestState`) and `subscriptions/listen` as the 2026-07-28 patterns describe.",
			Check:       CheckActive,
			Areas:       []Area{AreaStateless, AreaMRTR, AreaSubscription},
			Catalogue:   16,
			Note:        "Partial: the probes exercise request/response on every server, MRTR only through a tool that answers input_required and subscribe/notify only when listen is offered; full support of every pattern cannot be settled from outside.",
		},
		{
			Name:        "no-connection-derived-context",
			Level:       MustNot,
			Requirement: "Do not derive version, capabilities or client identity from earlier requests on the same connection.",
			SpecURL:     SpecBase + "basic#statelessness",
			Remediation: "Read the protocol version, client capabilities and client info from each request's `_meta`, and drop any per-connection cache of them.",
			Check:       CheckActive,
			Requires:    FeatureMRTRTool,
			Areas:       []Area{AreaStateless},
			Catalogue:   17,
		},
		{
			Name:        "no-capability-inference",
			Level:       MustNot,
			Requirement: "Do not infer capabilities from prior requests; `{}` means none.",
			SpecURL:     SpecBase + "schema#requestmetaobject",
			Remediation: "Decide which input requests to send only from this request's `clientCapabilities`, treating `{}` as no capabilities at all.",
			Check:       CheckActive,
			Requires:    FeatureMRTRTool,
			Areas:       []Area{AreaStateless, AreaMRTR},
			Catalogue:   18,
		},
		{
			Name:        "no-connection-affinity",
			Level:       ShouldNot,
			Requirement: "Do not require related operations to reuse one connection or process.",
			SpecURL:     SpecBase + "basic#statelessness",
			Remediation: "Keep cross-request state in a shared store keyed by explicit identifiers, so that any connection or replica can serve the next request.",
			Check:       CheckActive,
			Areas:       []Area{AreaStateless, AreaTransport},
			Catalogue:   19,
		},
		{
			Name:        "explicit-state-ids",
			Level:       Must,
			Requirement: "State spanning requests is referenced by an explicit identifier passed on each request.",
			SpecURL:     SpecBase + "basic#statelessness",
			Remediation: "Return explicit handles in results and accept them as parameters; do not key state on cookies, session headers or the TCP connection.",
			Check:       CheckPassive,
			Areas:       []Area{AreaStateless},
			Catalogue:   20,
			Note:        "Partial: only the visible symptom is checked (the server minting a cookie or an Mcp-Session-Id); state kept implicitly per connection cannot be seen.",
		},
		{
			Name:        "multi-conversation-ready",
			Level:       Should,
			Requirement: "Be ready to serve requests from many tasks or conversations at once.",
			SpecURL:     SpecBase + "basic#statelessness",
			Remediation: "Handle each request independently and concurrently; never serialise requests behind one global conversation.",
			Check:       CheckActive,
			Areas:       []Area{AreaStateless},
			Catalogue:   21,
			Note:        "Partial: a concurrency probe shows whether interleaved requests are answered correctly; readiness for many conversations under real load is not measured.",
		},
		{
			Name:        "ignore-session-id",
			Level:       Should,
			Requirement: "Ignore `Mcp-Session-Id`; never mint or echo session ids.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#earlier-streamable-http-revisions",
			Remediation: "Drop session handling: ignore an incoming `Mcp-Session-Id` and never set one on a response.",
			Check:       CheckActive,
			Areas:       []Area{AreaStateless, AreaDeprecations, AreaHeaders},
			Catalogue:   75,
		},
		{
			Name:        "lists-not-connection-scoped",
			Level:       MustNot,
			Requirement: "List results do not vary per connection or as a side effect of other requests (they may vary by authorization).",
			SpecURL:     SpecBase + "server/tools#capabilities",
			Remediation: "Compute lists only from the server's catalogue and the caller's authorization, never from the connection or from earlier requests.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Lists may legitimately differ by authorization or change between calls, so a difference seen between connections is a signal, not proof.",
				WouldSettle: "Identical requests on fresh connections with the same credentials and no changes in between, repeated; or a code review.",
			},
			Areas:     []Area{AreaStateless, AreaTools, AreaResources, AreaPrompts},
			Catalogue: 99,
		},
	}
}
