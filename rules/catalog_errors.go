package rules

// This file holds the error-code rules: reserved, retired and application ranges, and error
// shapes. Rows are in catalogue order; see docs/rules.md before editing.

// catalogErrors returns the rules whose primary area is "errors".
func catalogErrors() []Rule {
	return []Rule{
		{
			Name:        "error-object-shape",
			Level:       Must,
			Requirement: "Errors carry an integer `code` and a `message`.",
			SpecURL:     SpecBase + "basic#error-responses",
			Remediation: "Build every error as `{\"code\": <integer>, \"message\": <string>}`, with optional `data`.",
			Check:       CheckPassive,
			Areas:       []Area{AreaErrors, AreaJSONRPC},
			Catalogue:   7,
		},
		{
			Name:        "spec-reserved-codes",
			Level:       MustNot,
			Requirement: "The server emits no error code in −32020..−32099 other than −32020, −32021 and −32022, and uses each of those only with its defined meaning.",
			SpecURL:     SpecBase + "basic#error-codes",
			Remediation: "Use −32020, −32021 and −32022 only for header mismatch, missing client capability and unsupported version; move any other custom code outside −32768..−32000.",
			Check:       CheckPassive,
			Areas:       []Area{AreaErrors},
			Catalogue:   12,
		},
		{
			Name:        "retired-codes",
			Level:       MustNot,
			Requirement: "Never emit −32002 or −32042.",
			SpecURL:     SpecBase + "basic#error-codes",
			Remediation: "Answer a missing resource with −32602 instead of −32002, and drop −32042 (URL elicitation now goes through MRTR).",
			Check:       CheckPassive,
			Areas:       []Area{AreaErrors, AreaDeprecations},
			Catalogue:   13,
		},
		{
			Name:        "legacy-range-codes",
			Level:       ShouldNot,
			Requirement: "Do not use codes −32000..−32019.",
			SpecURL:     SpecBase + "basic#error-codes",
			Remediation: "Renumber application error codes in −32000..−32019 to values outside −32768..−32000.",
			Check:       CheckPassive,
			Areas:       []Area{AreaErrors},
			Catalogue:   14,
			Note:        "Pre-release numbering (−32001 for HeaderMismatch, −32003, −32004) falls in this range; reports should name the final codes −32020, −32021, −32022 as the fix.",
		},
		{
			Name:        "app-codes-outside-reserved",
			Level:       Should,
			Requirement: "Application-defined codes lie outside −32768..−32000.",
			SpecURL:     SpecBase + "basic#error-codes",
			Remediation: "Pick application-defined error codes outside −32768..−32000, for example positive integers.",
			Check:       CheckPassive,
			Areas:       []Area{AreaErrors},
			Catalogue:   15,
		},
		{
			Name:        "unknown-method-404",
			Level:       Must,
			Requirement: "A request for a method the server does not implement, removed methods included, gets HTTP 404 and −32601.",
			SpecURL:     SpecBase + "basic/transports/streamable-http#protocol-version-header",
			Remediation: "Answer methods you do not implement, removed ones such as `ping` included, with HTTP 404 and −32601.",
			Check:       CheckBoth,
			Areas:       []Area{AreaErrors, AreaTransport},
			Catalogue:   57,
		},
		{
			Name:        "invalid-cursor-32602",
			Level:       Should,
			Requirement: "An invalid cursor gets −32602.",
			SpecURL:     SpecBase + "server/utilities/pagination#error-handling",
			Remediation: "Answer a list request whose cursor is unknown or malformed with −32602.",
			Check:       CheckActive,
			Areas:       []Area{AreaErrors, AreaTools, AreaResources, AreaPrompts},
			Catalogue:   95,
		},
		{
			Name:        "error-message-concise",
			Level:       Should,
			Requirement: "An error's `message` is a short, single-sentence description.",
			SpecURL:     SpecBase + "schema#error",
			Remediation: "Keep an error's `message` to one short sentence and put details in `data`.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Conciseness is a judgement; a long or multi-sentence message is only a signal.",
				WouldSettle: "A human review of the error messages; the passive checks may flag multi-sentence messages as information.",
			},
			Areas:     []Area{AreaErrors},
			Catalogue: 200,
			Note:      "Level from the schema: a hard constraint of schema.ts rather than a keyword in the prose.",
		},
	}
}
