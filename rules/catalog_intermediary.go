package rules

// This file holds the rules for intermediaries (gateways, proxies) in front of MCP servers. Rows
// are in catalogue order; see docs/rules.md before editing.

// catalogIntermediary returns the rules whose primary area is "intermediary".
func catalogIntermediary() []Rule {
	return []Rule{
		{
			Name:        "intermediary-forwards-param-headers",
			Level:       Must,
			Requirement: "An intermediary that does not recognise an `Mcp-Param-*` header forwards it unchanged and otherwise ignores it.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#server-behavior-for-custom-headers",
			Remediation: "Pass unknown `Mcp-Param-*` headers through to the upstream server untouched; do not strip, rename or rewrite them.",
			Check:       CheckActive,
			Requires:    FeatureIntermediary,
			Areas:       []Area{AreaIntermediary, AreaHeaders},
			Note:        "Added from the spec. The probe calls a tool that declares x-mcp-header parameters through the intermediary; an upstream −32020 for a missing header shows the header was dropped.",
		},
		{
			Name:        "intermediary-validation-http-error",
			Level:       Must,
			Requirement: "An intermediary that rejects a request for failed header validation answers with an HTTP error status such as 400 (a JSON-RPC error body is optional).",
			SpecURL:     SpecBase + "basic/transports/streamable-http#server-validation",
			Remediation: "When the gateway refuses a request because its MCP headers are missing or mismatched, answer 400 (or another 4xx), never 200 with an error body.",
			Check:       CheckActive,
			Requires:    FeatureIntermediary,
			Areas:       []Area{AreaIntermediary, AreaHeaders},
			Note:        "Added from the spec.",
		},
		{
			Name:        "intermediary-version-gate",
			Level:       Should,
			Requirement: "An intermediary that enforces policy on mirrored headers checks that `MCP-Protocol-Version` names a version with header-body validation, and rejects requests with an older or absent version instead of trusting the headers.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#server-validation",
			Remediation: "Before routing or rate-limiting on `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*`, require `MCP-Protocol-Version` 2026-07-28 or later and reject older or missing versions.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Which headers drive the intermediary's policy (routing, tenant rate limits) is configuration the scanner does not know.",
				WouldSettle: "The intermediary's policy configuration, then a request with an old version and forged policy headers.",
			},
			Requires: FeatureIntermediary,
			Areas:    []Area{AreaIntermediary, AreaHeaders, AreaSecurity},
			Note:     "Added from the spec.",
		},
	}
}
