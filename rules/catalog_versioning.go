package rules

// This file holds the protocol-version and extension negotiation rules. Rows are in catalogue
// order; see docs/rules.md before editing.

// catalogVersioning returns the rules whose primary area is "versioning".
func catalogVersioning() []Rule {
	return []Rule{
		{
			Name:        "extension-id-grammar",
			Level:       Must,
			Requirement: "`capabilities.extensions` keys follow the `_meta` key grammar with a mandatory prefix.",
			SpecURL:     SpecBase + "basic/versioning#extension-negotiation",
			Remediation: "Name each `capabilities.extensions` key `prefix/name` with a reverse-DNS prefix, for example `io.example/feature`.",
			Check:       CheckActive,
			Requires:    FeatureExtensions,
			Areas:       []Area{AreaVersioning, AreaMeta},
			Catalogue:   33,
		},
		{
			Name:        "extension-fallback",
			Level:       Must,
			Requirement: "Without a client extension declaration, fall back to core behaviour or return an error; emit no extension-only shapes.",
			SpecURL:     SpecBase + "basic/versioning#extension-negotiation",
			Remediation: "When this request's client capabilities do not declare an extension, answer with core behaviour or an error, never with that extension's result types or fields.",
			Check:       CheckPassive,
			Requires:    FeatureExtensions,
			Areas:       []Area{AreaVersioning},
			Catalogue:   34,
		},
		{
			Name:        "unsupported-version-error",
			Level:       Must,
			Requirement: "An unimplemented version gets −32022 with `data.supported[]` and `data.requested`.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#protocol-version-header",
			Remediation: "Answer a protocol version you do not implement with −32022 and `data: {\"supported\": [...], \"requested\": \"<version>\"}`.",
			Check:       CheckBoth,
			Areas:       []Area{AreaVersioning, AreaErrors},
			Catalogue:   55,
		},
		{
			Name:        "unsupported-version-http-400",
			Level:       Must,
			Requirement: "The −32022 unsupported-version error is sent with HTTP status 400.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#protocol-version-header",
			Remediation: "Send the −32022 error with HTTP 400.",
			Check:       CheckBoth,
			Areas:       []Area{AreaVersioning, AreaTransport},
			Catalogue:   56,
		},
		{
			Name:        "initialize-error-names-versions",
			Level:       Should,
			Requirement: "Any error answering `initialize` names the supported versions.",
			SpecURL:     SpecBase + "basic/versioning#backward-compatibility-with-initialization-based-versions",
			Remediation: "If you answer `initialize` with an error, name the supported protocol versions in it, for example in `data.supported`.",
			Check:       CheckActive,
			Areas:       []Area{AreaVersioning, AreaDeprecations},
			Catalogue:   77,
			Note:        "For a legacy-shaped initialize the expected status is unsettled (400 per the compatibility matrix, 404 per the conformance suite); any 4xx JSON-RPC error is accepted, and the rule passes when its message or data lists the supported versions.",
		},
	}
}
