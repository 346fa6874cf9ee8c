package rules

// This file holds the completion rules. Rows are in catalogue order; see docs/rules.md before
// editing.

// catalogCompletion returns the rules whose primary area is "completion".
func catalogCompletion() []Rule {
	return []Rule{
		{
			Name:        "completion-max-100",
			Level:       Must,
			Requirement: "Completion `values` has at most 100 items.",
			SpecURL:     SpecBase + "server/utilities/completion#completion-results",
			Remediation: "Return at most 100 completion `values`; set `hasMore` (and `total`) to say there are more.",
			Check:       CheckBoth,
			Requires:    FeatureCompletions,
			Areas:       []Area{AreaCompletion},
			Catalogue:   127,
			Note:        "Level from the schema: a hard constraint of schema.ts rather than a keyword in the prose.",
		},
		{
			Name:        "completion-error-codes",
			Level:       Should,
			Requirement: "Completion errors: −32601 if unsupported; −32602 for bad names or args; −32603 for internal errors.",
			SpecURL:     SpecBase + "server/utilities/completion#error-handling",
			Remediation: "Answer completion/complete with −32601 when completion is not supported, −32602 for an unknown reference or bad argument, and −32603 for internal failures.",
			Check:       CheckActive,
			Areas:       []Area{AreaCompletion, AreaErrors},
			Catalogue:   128,
		},
		{
			Name:        "completion-security",
			Level:       Must,
			Requirement: "Validate completion inputs, rate-limit, control access, prevent disclosure.",
			SpecURL:     SpecBase + "server/utilities/completion#security",
			Remediation: "Validate completion inputs, rate-limit completion requests, check access to the referenced prompt or resource, and suggest nothing the caller may not see.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Rate limits, access control and disclosure in completions depend on load and data that a scan does not exercise.",
				WouldSettle: "A review of the completion handler, or a load test with the operator's consent.",
			},
			Requires:  FeatureCompletions,
			Areas:     []Area{AreaCompletion, AreaSecurity},
			Catalogue: 129,
		},
		{
			Name:        "completion-quality",
			Level:       Should,
			Requirement: "Rank completion suggestions by relevance, use fuzzy matching where it fits, rate-limit completion requests and validate all inputs.",
			SpecURL:     SpecBase + "server/utilities/completion#implementation-considerations",
			Remediation: "Rank completion suggestions by relevance, match fuzzily where it helps, rate-limit completion requests and validate inputs.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Relevance and fuzzy matching are judgements, and rate limits need load a scan does not apply.",
				WouldSettle: "A human review of suggestions plus a load test with the operator's consent.",
			},
			Requires:  FeatureCompletions,
			Areas:     []Area{AreaCompletion},
			Catalogue: 214,
		},
	}
}
