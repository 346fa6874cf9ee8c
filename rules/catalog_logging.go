package rules

// This file holds the logging rules (Logging is deprecated, but still graded while a server
// supports it). Rows are in catalogue order; see docs/rules.md before editing.

// catalogLogging returns the rules whose primary area is "logging".
func catalogLogging() []Rule {
	return []Rule{
		{
			Name:        "request-scoped-off-listen",
			Level:       MustNot,
			Requirement: "Never put `notifications/message` on a listen stream or on another request's stream; progress notifications likewise flow only on the stream of their own request (stated without a keyword).",
			SpecURL:     SpecBase + "server/utilities/logging#per-request-log-level",
			Remediation: "Write log and progress notifications only on the SSE stream of the request they belong to; keep listen streams for subscription notifications.",
			Check:       CheckPassive,
			Areas:       []Area{AreaLogging, AreaSubscription, AreaProgress, AreaSSE},
			Catalogue:   43,
		},
		{
			Name:        "declare-logging",
			Level:       Must,
			Requirement: "A server that emits log notifications declares `logging`.",
			SpecURL:     SpecBase + "server/utilities/logging#capabilities",
			Remediation: "Declare `logging` in the capabilities if the server sends `notifications/message`, or better, stop sending log notifications: Logging is deprecated.",
			Check:       CheckPassive,
			Areas:       []Area{AreaLogging, AreaDiscover, AreaDeprecations},
			Catalogue:   87,
		},
		{
			Name:        "no-log-without-loglevel",
			Level:       MustNot,
			Requirement: "The server emits no `notifications/message` for a request whose `_meta` lacks `io.modelcontextprotocol/logLevel`.",
			SpecURL:     SpecBase + "server/utilities/logging#per-request-log-level",
			Remediation: "Send `notifications/message` only for requests whose `_meta` carries `io.modelcontextprotocol/logLevel`.",
			Check:       CheckPassive,
			Areas:       []Area{AreaLogging, AreaDeprecations},
			Catalogue:   161,
		},
		{
			Name:        "log-at-or-above-level",
			Level:       Must,
			Requirement: "Emit only at or above the requested level.",
			SpecURL:     SpecBase + "server/utilities/logging#per-request-log-level",
			Remediation: "Drop log notifications below the request's `logLevel`.",
			Check:       CheckBoth,
			Requires:    FeatureLogging,
			Areas:       []Area{AreaLogging, AreaDeprecations},
			Catalogue:   162,
			Note:        "Level implied: the spec states this in normative prose or schema optionality without an RFC 2119 keyword.",
		},
		{
			Name:        "invalid-loglevel-32602",
			Level:       Should,
			Requirement: "An unrecognized `logLevel` gets −32602.",
			SpecURL:     SpecBase + "server/utilities/logging#error-handling",
			Remediation: "Check `io.modelcontextprotocol/logLevel` against the RFC 5424 level names and answer an unknown value with −32602.",
			Check:       CheckActive,
			Requires:    FeatureLogging,
			Areas:       []Area{AreaLogging, AreaErrors},
			Catalogue:   163,
		},
		{
			Name:        "logs-no-secrets",
			Level:       MustNot,
			Requirement: "Log messages contain no credentials, PII or attack-aiding detail.",
			SpecURL:     SpecBase + "server/utilities/logging#security",
			Remediation: "Strip credentials, personal data and internal details (paths, stack traces, queries) from log messages.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Secrets and personal data in logs are semantic and appear only in the logs a scan happens to trigger.",
				WouldSettle: "A review of what the server logs, with a secret scanner over captured log notifications.",
			},
			Requires:  FeatureLogging,
			Areas:     []Area{AreaLogging, AreaSecurity},
			Catalogue: 164,
		},
		{
			Name:        "logging-practices",
			Level:       Should,
			Requirement: "Rate-limit log messages, put relevant context in `data`, keep logger names consistent and strip sensitive information.",
			SpecURL:     SpecBase + "server/utilities/logging#implementation-considerations",
			Remediation: "Rate-limit log messages, put context in `data`, keep logger names consistent and strip sensitive information.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Consistency and relevance of log content are judgements over the few logs a scan triggers.",
				WouldSettle: "A review of captured log notifications over a representative session.",
			},
			Requires:  FeatureLogging,
			Areas:     []Area{AreaLogging, AreaDeprecations},
			Catalogue: 215,
		},
		{
			Name:        "logging-security-controls",
			Level:       Should,
			Requirement: "Rate-limit log messages, validate all data fields, control access to logs and monitor them for sensitive content.",
			SpecURL:     SpecBase + "server/utilities/logging#security",
			Remediation: "Rate-limit and validate log output, restrict who can read logs and monitor them for sensitive content.",
			Check:       CheckIndeterminate,
			Indeterminacy: &Indeterminacy{
				Reason:      "Access control and monitoring of logs happen inside the server's deployment.",
				WouldSettle: "A review of the logging pipeline and its access controls.",
			},
			Requires:  FeatureLogging,
			Areas:     []Area{AreaLogging, AreaSecurity},
			Catalogue: 216,
		},
	}
}
