package rules

// This file holds the server/discover rules and capability declarations. Rows are in catalogue
// order; see docs/rules.md before editing.

// catalogDiscover returns the rules whose primary area is "discover".
func catalogDiscover() []Rule {
	return []Rule{
		{
			Name:        "discover-implemented",
			Level:       Must,
			Requirement: "Implement `server/discover`.",
			SpecURL:     SpecBase + "basic/versioning#protocol-version-negotiation",
			Remediation: "Implement `server/discover`, returning the supported versions, the capabilities and cache hints.",
			Check:       CheckActive,
			Areas:       []Area{AreaDiscover},
			Catalogue:   79,
		},
		{
			Name:        "discover-result-shape",
			Level:       Must,
			Requirement: "DiscoverResult has `resultType`, `supportedVersions[]`, `capabilities{}`, `ttlMs` and `cacheScope`.",
			SpecURL:     SpecBase + "server/discover#discoverresult",
			Remediation: "Return a DiscoverResult with `resultType`, `supportedVersions` (an array), `capabilities` (an object), `ttlMs` and `cacheScope`.",
			Check:       CheckBoth,
			Areas:       []Area{AreaDiscover, AreaCaching},
			Catalogue:   80,
			Note:        "Level from the schema: a hard constraint of schema.ts rather than a keyword in the prose.",
		},
		{
			Name:        "discover-server-info",
			Level:       Should,
			Requirement: "DiscoverResult `_meta` carries serverInfo.",
			SpecURL:     SpecBase + "server/discover#discoverresult",
			Remediation: "Put `io.modelcontextprotocol/serverInfo` with `name` and `version` in the DiscoverResult's `_meta`.",
			Check:       CheckBoth,
			Areas:       []Area{AreaDiscover, AreaMeta},
			Catalogue:   81,
			Note:        "Early implementations put serverInfo at the top level of DiscoverResult (pre-release SEP-2575 text); that does not satisfy this rule and is reported as a removal.",
		},
		{
			Name:        "discover-versions-consistent",
			Level:       Should,
			Requirement: "−32022 `data.supported` agrees with `supportedVersions`, and the version in use is listed.",
			SpecURL:     SpecBase + "basic/versioning",
			Remediation: "Derive `supportedVersions` and the −32022 `data.supported` from one list, and include the version you are answering in.",
			Check:       CheckActive,
			Areas:       []Area{AreaDiscover, AreaVersioning},
			Catalogue:   82,
			Note:        "Level derived from a referenced RFC or the conformance suite rather than stated in MCP text.",
		},
		{
			Name:        "declare-tools",
			Level:       Must,
			Requirement: "A server offering tools declares `tools`.",
			SpecURL:     SpecBase + "server/tools#capabilities",
			Remediation: "Add `tools` to the DiscoverResult capabilities whenever tools/list and tools/call are served.",
			Check:       CheckActive,
			Areas:       []Area{AreaDiscover, AreaTools},
			Catalogue:   83,
		},
		{
			Name:        "declare-resources",
			Level:       Must,
			Requirement: "A server offering resources declares `resources`.",
			SpecURL:     SpecBase + "server/resources#capabilities",
			Remediation: "Add `resources` to the DiscoverResult capabilities whenever resources/list and resources/read are served.",
			Check:       CheckActive,
			Areas:       []Area{AreaDiscover, AreaResources},
			Catalogue:   84,
		},
		{
			Name:        "declare-prompts",
			Level:       Must,
			Requirement: "A server offering prompts declares `prompts` in DiscoverResult.",
			SpecURL:     SpecBase + "server/prompts#capabilities",
			Remediation: "Add `prompts` to the DiscoverResult capabilities whenever prompts/list and prompts/get are served.",
			Check:       CheckActive,
			Areas:       []Area{AreaDiscover, AreaPrompts},
			Catalogue:   85,
		},
		{
			Name:        "declare-completions",
			Level:       Must,
			Requirement: "A server offering completion declares `completions`.",
			SpecURL:     SpecBase + "server/utilities/completion#capabilities",
			Remediation: "Add `completions` to the DiscoverResult capabilities whenever completion/complete is served.",
			Check:       CheckActive,
			Areas:       []Area{AreaDiscover, AreaCompletion},
			Catalogue:   86,
		},
	}
}
