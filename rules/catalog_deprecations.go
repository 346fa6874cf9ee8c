package rules

// This file holds the rules on removed and deprecated features. Rows are in catalogue order; see
// docs/rules.md before editing.

// catalogDeprecations returns the rules whose primary area is "deprecations".
func catalogDeprecations() []Rule {
	return []Rule{
		{
			Name:        "removed-methods-absent",
			Level:       Must,
			Requirement: "On the 2026-07-28 path, `initialize`, `ping`, `logging/setLevel`, `resources/subscribe` and `resources/unsubscribe` get HTTP 404 and −32601.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#protocol-version-header",
			Remediation: "Remove the `initialize`, `ping`, `logging/setLevel`, `resources/subscribe` and `resources/unsubscribe` handlers from the 2026-07-28 path so that they answer 404 with −32601.",
			Check:       CheckBoth,
			Areas:       []Area{AreaDeprecations, AreaVersioning},
			Catalogue:   58,
			Note:        "Level implied: the spec states this in normative prose or schema optionality without an RFC 2119 keyword. Graded only on requests that carry 2026-07-28; a server that also serves older clients may still answer initialize on the legacy path.",
		},
		{
			Name:        "no-new-http-sse",
			Level:       ShouldNot,
			Requirement: "New servers do not adopt the deprecated HTTP+SSE transport.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#http+sse-transport-2024-11-05",
			Remediation: "Build new servers on Streamable HTTP only; do not add the 2024-11-05 HTTP+SSE endpoints.",
			Check:       CheckPassive,
			Areas:       []Area{AreaDeprecations, AreaTransport},
			Catalogue:   78,
			Note:        "Whether a server is new cannot be seen; an HTTP+SSE endpoint seen in traffic is reported as a SHOULD NOT failure, which the gate counts only under --gate should. The deprecations inventory lists it with its removal date.",
		},
		{
			Name:        "deprecated-features-avoided",
			Level:       ShouldNot,
			Requirement: "New servers do not adopt Roots, Sampling, Logging or HTTP+SSE.",
			SpecURL:     SpecBase + "deprecated#deprecated",
			Remediation: "Drop the `logging` capability and roots or sampling input requests from new servers: log to stderr or OpenTelemetry, pass paths as tool parameters and call LLM providers directly.",
			Check:       CheckPassive,
			Areas:       []Area{AreaDeprecations},
			Catalogue:   191,
			Note:        "Whether a server is new cannot be seen; the check reports use of a deprecated feature, and the gate counts it only under --gate should.",
		},
		{
			Name:        "deprecated-features-correct",
			Level:       Must,
			Requirement: "Deprecated features a server supports still behave correctly.",
			SpecURL:     SpecBase + "deprecated#deprecated",
			Remediation: "Keep deprecated features you still support working exactly as this revision specifies until you remove them.",
			Check:       CheckActive,
			Requires:    FeatureLogging,
			Areas:       []Area{AreaDeprecations},
			Catalogue:   192,
			Note:        "Level from SEP-2577: stated in the SEP, not restated in the spec pages. Stated in SEP-2577 (capability negotiation) and not restated in the spec pages. Probed through the Logging rules; roots and sampling input requests are graded by the MRTR rules.",
		},
		{
			Name:        "deprecated-features-migrate",
			Level:       Should,
			Requirement: "A server that already uses a Deprecated feature (Roots, Sampling, Logging, HTTP+SSE) moves off it before the feature's earliest removal.",
			SpecURL:     SpecBase + "deprecated#deprecated",
			Remediation: "Plan the move off Roots, Sampling, Logging and HTTP+SSE, and finish it before each feature's earliest removal date.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Migration is a plan over time; a scan sees only what is in use today, which the deprecations inventory reports with the removal dates.",
				WouldSettle: "Scanning again before each earliest removal date: use past that date is the violation.",
			},
			Areas:     []Area{AreaDeprecations},
			Catalogue: 201,
		},
	}
}
