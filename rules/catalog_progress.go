package rules

// This file holds the progress notification rules. Rows are in catalogue order; see docs/rules.md
// before editing.

// catalogProgress returns the rules whose primary area is "progress".
func catalogProgress() []Rule {
	return []Rule{
		{
			Name:        "progress-token-scope",
			Level:       Must,
			Requirement: "Progress notifications only reference a token from an active request.",
			SpecURL:     SpecBase + "basic/patterns/progress#behavior-requirements",
			Remediation: "Send progress notifications only with a `progressToken` taken from a request that is still running.",
			Check:       CheckPassive,
			Areas:       []Area{AreaProgress},
			Catalogue:   165,
		},
		{
			Name:        "progress-increases",
			Level:       Must,
			Requirement: "`progress` increases with each notification.",
			SpecURL:     SpecBase + "basic/patterns/progress#progress-flow",
			Remediation: "Make `progress` strictly increase across the notifications for one token.",
			Check:       CheckPassive,
			Areas:       []Area{AreaProgress},
			Catalogue:   166,
		},
		{
			Name:        "progress-stops",
			Level:       Must,
			Requirement: "No progress notifications after completion.",
			SpecURL:     SpecBase + "basic/patterns/progress#implementation-notes",
			Remediation: "Stop sending progress for a token once the request's final response has been sent.",
			Check:       CheckPassive,
			Areas:       []Area{AreaProgress},
			Catalogue:   167,
		},
		{
			Name:        "progress-message-meaningful",
			Level:       Should,
			Requirement: "A progress notification's `message` carries relevant, human-readable progress information.",
			SpecURL:     SpecBase + "basic/patterns/progress#progress-flow",
			Remediation: "Fill the progress `message` with what is happening, such as the step or item being processed.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Whether a message is meaningful is a judgement.",
				WouldSettle: "A human review of captured progress notifications.",
			},
			Requires:  FeatureProgress,
			Areas:     []Area{AreaProgress},
			Catalogue: 206,
		},
		{
			Name:        "progress-tokens-tracked",
			Level:       Should,
			Requirement: "Keep track of the progress tokens of active requests.",
			SpecURL:     SpecBase + "basic/patterns/progress#implementation-notes",
			Remediation: "Keep a table of active progress tokens and remove each when its request ends.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Bookkeeping inside the server; only its effects (progress-token-scope, progress-stops) are visible.",
				WouldSettle: "A code review.",
			},
			Requires:  FeatureProgress,
			Areas:     []Area{AreaProgress},
			Catalogue: 207,
		},
		{
			Name:        "progress-rate-limited",
			Level:       Should,
			Requirement: "Rate-limit progress notifications so they do not flood the client.",
			SpecURL:     SpecBase + "basic/patterns/progress#implementation-notes",
			Remediation: "Throttle progress notifications, for example to a few per second per request.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "No rate is defined; a flood is a matter of judgement.",
				WouldSettle: "An operator-chosen rate threshold applied to observed notification rates.",
			},
			Requires:  FeatureProgress,
			Areas:     []Area{AreaProgress},
			Catalogue: 208,
		},
	}
}
