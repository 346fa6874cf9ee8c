package rules

// This file holds the per-request `_meta` rules: required keys, key grammar, server info. Rows are
// in catalogue order; see docs/rules.md before editing.

// catalogMeta returns the rules whose primary area is "meta".
func catalogMeta() []Rule {
	return []Rule{
		{
			Name:        "meta-required-reject",
			Level:       Must,
			Requirement: "A request missing `_meta`, its `io.modelcontextprotocol/protocolVersion` or its `io.modelcontextprotocol/clientCapabilities` is rejected with −32602.",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Validate `params._meta` first: when it, `io.modelcontextprotocol/protocolVersion` or `io.modelcontextprotocol/clientCapabilities` is missing, answer −32602.",
			Check:       CheckBoth,
			Areas:       []Area{AreaMeta, AreaErrors},
			Catalogue:   22,
		},
		{
			Name:        "meta-required-http-400",
			Level:       Must,
			Requirement: "The −32602 rejection of a request with missing `_meta` fields is sent with HTTP status 400.",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Send the −32602 error for missing `_meta` fields with HTTP status 400.",
			Check:       CheckBoth,
			Areas:       []Area{AreaMeta, AreaTransport},
			Catalogue:   23,
		},
		{
			Name:        "client-info-optional",
			Level:       Must,
			Requirement: "Serve requests whose `_meta` omits `clientInfo`.",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Treat `io.modelcontextprotocol/clientInfo` as optional and never reject a request that omits it.",
			Check:       CheckActive,
			Areas:       []Area{AreaMeta},
			Catalogue:   24,
			Note:        "Level implied: the spec states this in normative prose or schema optionality without an RFC 2119 keyword.",
		},
		{
			Name:        "client-info-untrusted",
			Level:       ShouldNot,
			Requirement: "Do not change behaviour or make security decisions based on `clientInfo`.",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Use `clientInfo` for display and diagnostics only; base behaviour and security decisions on authenticated identity and declared capabilities.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Whether behaviour or a security decision depends on clientInfo shows only for the few clientInfo values a probe tries, and differences may have other causes.",
				WouldSettle: "A code review of where clientInfo is read, or a differential test over many clientInfo values that expects identical results.",
			},
			Areas:     []Area{AreaMeta, AreaSecurity},
			Catalogue: 25,
		},
		{
			Name:        "server-info-in-result-meta",
			Level:       Should,
			Requirement: "Put `io.modelcontextprotocol/serverInfo` {name, version} in every result's `_meta`.",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Add `io.modelcontextprotocol/serverInfo` with `name` and `version` to the `_meta` of every result.",
			Check:       CheckPassive,
			Areas:       []Area{AreaMeta},
			Catalogue:   26,
		},
		{
			Name:        "reserved-meta-no-assumptions",
			Level:       MustNot,
			Requirement: "Make no assumptions about values at reserved `_meta` keys.",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Treat values at reserved `_meta` keys as opaque unless this revision defines them, and validate the ones it does define.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "The rule is about how the server interprets reserved _meta values internally; its responses do not show what it assumed.",
				WouldSettle: "A code review of the server's _meta handling.",
			},
			Areas:     []Area{AreaMeta},
			Catalogue: 27,
		},
		{
			Name:        "meta-key-grammar",
			Level:       Must,
			Requirement: "Every emitted `_meta` key follows the prefix/name grammar.",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Name custom `_meta` keys `prefix/name`, with a prefix of dot-separated labels and a name of letters, digits, `-`, `_` and `.` that starts and ends with a letter or digit.",
			Check:       CheckPassive,
			Areas:       []Area{AreaMeta},
			Catalogue:   28,
		},
		{
			Name:        "otel-meta-format",
			Level:       Must,
			Requirement: "`traceparent`, `tracestate` and `baggage` values follow W3C formats when present.",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Emit `traceparent`, `tracestate` and `baggage` only in the W3C Trace Context and Baggage formats, or leave them out.",
			Check:       CheckPassive,
			Areas:       []Area{AreaMeta},
			Catalogue:   29,
		},
		{
			Name:        "meta-prefix-reverse-dns",
			Level:       Should,
			Requirement: "Custom `_meta` key prefixes use reverse-DNS order (`com.example/`, not `example.com/`).",
			SpecURL:     SpecBase + "basic#_meta",
			Remediation: "Write custom `_meta` prefixes in reverse-DNS order of a domain you control, such as `com.example/`.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Whether a prefix is reversed cannot be told from its text in general; a TLD-first test is only a hint.",
				WouldSettle: "Comparing the prefix with the domain the server's owner controls.",
			},
			Areas:     []Area{AreaMeta},
			Catalogue: 199,
		},
	}
}
