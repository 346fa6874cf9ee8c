package rules

// This file holds the caching-hint rules: ttlMs and cacheScope. Rows are in catalogue order; see
// docs/rules.md before editing.

// catalogCaching returns the rules whose primary area is "caching".
func catalogCaching() []Rule {
	return []Rule{
		{
			Name:        "cache-hints-present",
			Level:       Must,
			Requirement: "Complete results of discover, tools/list, prompts/list, resources/list, resources/templates/list and resources/read carry `ttlMs` and `cacheScope`.",
			SpecURL:     SpecBase + "server/utilities/caching#cacheable-results",
			Remediation: "Add `ttlMs` and `cacheScope` to every complete result of server/discover, tools/list, prompts/list, resources/list, resources/templates/list and resources/read.",
			Check:       CheckBoth,
			Areas:       []Area{AreaCaching},
			Catalogue:   88,
			Note:        "The spec example for a ReadResourceResult response lacks the hints; the schema, which requires them, is authoritative.",
		},
		{
			Name:        "ttl-nonnegative-integer",
			Level:       Must,
			Requirement: "`ttlMs` is an integer ≥ 0.",
			SpecURL:     SpecBase + "server/utilities/caching#time-to-live-ttl-field",
			Remediation: "Emit `ttlMs` as a non-negative integer; 0 means do not cache.",
			Check:       CheckBoth,
			Areas:       []Area{AreaCaching},
			Catalogue:   89,
		},
		{
			Name:        "cache-scope-enum",
			Level:       Must,
			Requirement: "`cacheScope` is `\"public\"` or `\"private\"`.",
			SpecURL:     SpecBase + "server/utilities/caching#cache-scope-field",
			Remediation: "Emit `cacheScope` as exactly `\"public\"` or `\"private\"`.",
			Check:       CheckBoth,
			Areas:       []Area{AreaCaching},
			Catalogue:   90,
			Note:        "Level from the schema: a hard constraint of schema.ts rather than a keyword in the prose.",
		},
		{
			Name:        "no-hints-on-input-required",
			Level:       ShouldNot,
			Requirement: "An InputRequiredResult carries no caching hints.",
			SpecURL:     SpecBase + "server/utilities/caching#cacheable-results",
			Remediation: "Leave `ttlMs` and `cacheScope` out of every InputRequiredResult.",
			Check:       CheckPassive,
			Areas:       []Area{AreaCaching, AreaMRTR},
			Catalogue:   91,
			Note:        "Level implied: the spec states this in normative prose or schema optionality without an RFC 2119 keyword.",
		},
		{
			Name:        "cache-scope-same-all-pages",
			Level:       Must,
			Requirement: "Every page of one list uses the same `cacheScope`.",
			SpecURL:     SpecBase + "server/utilities/caching#interaction-with-pagination",
			Remediation: "Decide `cacheScope` once per list and put the same value on every page.",
			Check:       CheckBoth,
			Requires:    FeaturePagination,
			Areas:       []Area{AreaCaching},
			Catalogue:   92,
		},
		{
			Name:        "access-control-not-cachescope",
			Level:       Must,
			Requirement: "Enforce per-primitive access control; never rely on `cacheScope` alone to keep primitives from unauthorized callers.",
			SpecURL:     SpecBase + "server/utilities/caching#security-considerations",
			Remediation: "Check each caller's permission on every request for a primitive; mark per-user results `private` as well, never instead.",
			Check:       CheckActive,
			Requires:    FeatureTwoPrincipals,
			Areas:       []Area{AreaCaching, AreaSecurity, AreaAuth},
			Catalogue:   93,
		},
		{
			Name:        "cache-scope-accurate",
			Level:       Should,
			Requirement: "`cacheScope` matches the result's real visibility: `\"private\"` for user-specific results (per-user reads, filtered lists), `\"public\"` only for data identical for every caller.",
			SpecURL:     SpecBase + "server/utilities/caching#choosing-a-cache-scope",
			Remediation: "Mark per-user results (per-user reads, filtered lists) `\"private\"`, and use `\"public\"` only for data identical for every caller.",
			Check:       CheckActive,
			Requires:    FeatureTwoPrincipals,
			Areas:       []Area{AreaCaching, AreaSecurity},
			Catalogue:   213,
			Note:        "Level implied: the spec states this in normative prose or schema optionality without an RFC 2119 keyword.",
		},
	}
}
