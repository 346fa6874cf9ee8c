package rules

import "strings"

// Revision is the protocol revision this registry encodes. It is part of every rule ID so that a
// later revision can live beside this one without renaming anything.
const Revision = "2026-07-28"

// SpecBase is the URL prefix every rule's SpecURL must start with; the registry test enforces it.
const SpecBase = "https://modelcontextprotocol.io/specification/2026-07-28/"

// Level is the RFC 2119 keyword a requirement is stated with. The gate reads it: `--gate must`
// counts MUST and MUST NOT failures, `--gate should` counts all four.
type Level string

// The four levels a rule can carry. MAY statements are not requirements and have no rules.
const (
	Must      Level = "MUST"
	MustNot   Level = "MUST NOT"
	Should    Level = "SHOULD"
	ShouldNot Level = "SHOULD NOT"
)

// IDPart is the level as it appears inside a rule ID ("MUST NOT" becomes "MUST-NOT").
func (l Level) IDPart() string { return strings.ReplaceAll(string(l), " ", "-") }

// Mandatory reports whether the level is MUST or MUST NOT, the levels `--gate must` counts.
func (l Level) Mandatory() bool { return l == Must || l == MustNot }

// Valid reports whether l is one of the four levels.
func (l Level) Valid() bool {
	switch l {
	case Must, MustNot, Should, ShouldNot:
		return true
	}
	return false
}

// CheckMode says how Sentinel can establish whether a server meets a rule from the outside.
type CheckMode string

// The check modes. Indeterminate rules are still listed and reported on every scan, with the
// reason black-box testing cannot settle them: the registry covers the spec, not just what is easy.
const (
	// CheckActive: a probe sends a request crafted for this rule.
	CheckActive CheckMode = "active"
	// CheckPassive: a pure check runs over every exchange the prober or the proxy sees.
	CheckPassive CheckMode = "passive"
	// CheckBoth: an active probe exists and the passive check also runs on live traffic.
	CheckBoth CheckMode = "both"
	// CheckIndeterminate: no black-box test can settle the rule; Indeterminacy says why.
	CheckIndeterminate CheckMode = "indeterminate"
)

// Valid reports whether m is one of the four modes.
func (m CheckMode) Valid() bool {
	switch m {
	case CheckActive, CheckPassive, CheckBoth, CheckIndeterminate:
		return true
	}
	return false
}

// Area groups rules for `--area` filters and for the report's sections.
type Area string

// Areas a rule can belong to. A rule belongs to at least one.
const (
	AreaJSONRPC      Area = "jsonrpc"
	AreaMeta         Area = "meta"
	AreaHeaders      Area = "headers"
	AreaTransport    Area = "transport"
	AreaSSE          Area = "sse"
	AreaSecurity     Area = "security"
	AreaCancellation Area = "cancellation"
	AreaVersioning   Area = "versioning"
	AreaDiscover     Area = "discover"
	AreaCaching      Area = "caching"
	AreaMRTR         Area = "mrtr"
	AreaSubscription Area = "subscriptions"
	AreaTools        Area = "tools"
	AreaResources    Area = "resources"
	AreaPrompts      Area = "prompts"
	AreaCompletion   Area = "completion"
	AreaLogging      Area = "logging"
	AreaProgress     Area = "progress"
	AreaErrors       Area = "errors"
	AreaAuth         Area = "auth"
	AreaDeprecations Area = "deprecations"
	AreaStateless    Area = "stateless"
	AreaIntermediary Area = "intermediary"
	AreaStdio        Area = "stdio"
)

// AllAreas lists every area in display order; the registry test rejects a rule with any other.
var AllAreas = []Area{
	AreaJSONRPC, AreaMeta, AreaHeaders, AreaTransport, AreaSSE, AreaSecurity, AreaCancellation,
	AreaVersioning, AreaDiscover, AreaCaching, AreaMRTR, AreaSubscription, AreaTools, AreaResources,
	AreaPrompts, AreaCompletion, AreaLogging, AreaProgress, AreaErrors, AreaAuth, AreaDeprecations,
	AreaStateless, AreaIntermediary, AreaStdio,
}

// Feature names a server capability or operator permission a rule depends on. When the scanned
// server does not offer it, the rule's outcome is n/a (never a failure); when it does but the probe
// may not use it (a tool nobody allowed to be called), the outcome is indeterminate.
type Feature string

// Features a rule can depend on. The zero Feature means the rule applies to every server.
const (
	FeatureNone          Feature = ""
	FeatureTools         Feature = "tools"
	FeatureResources     Feature = "resources"
	FeatureSubscribe     Feature = "resources.subscribe"
	FeaturePrompts       Feature = "prompts"
	FeatureCompletions   Feature = "completions"
	FeatureLogging       Feature = "logging"
	FeatureListChanged   Feature = "listChanged"
	FeatureCallableTool  Feature = "callable-tool"  // a tool the scan may call (readOnlyHint or --allow-call)
	FeatureMRTRTool      Feature = "mrtr-tool"      // an allowed tool or a listed prompt that answers input_required
	FeatureAuth          Feature = "auth"           // the server requires authorization
	FeatureExtensions    Feature = "extensions"     // the server declares capabilities.extensions
	FeatureIntermediary  Feature = "intermediary"   // the target is a proxy or gateway
	FeatureProgress      Feature = "progress"       // a callable tool that reports progress
	FeatureLegacyClients Feature = "legacy-clients" // the server also serves pre-2026 clients
	FeaturePagination    Feature = "pagination"     // a list result carried nextCursor
	FeatureListen        Feature = "listen"         // subscriptions/listen is offered (listChanged or resources.subscribe declared)
	FeatureHeaderParams  Feature = "x-mcp-header"   // a tool declares x-mcp-header parameters (Mcp-Param-* headers)
	FeatureFileResources Feature = "file-resources" // resources or templates with file:// URIs
	FeatureTwoPrincipals Feature = "two-principals" // the operator supplied credentials for a second principal
)

// AllFeatures lists every feature a rule may require; Validate rejects any other value.
var AllFeatures = []Feature{
	FeatureTools, FeatureResources, FeatureSubscribe, FeaturePrompts, FeatureCompletions, FeatureLogging,
	FeatureListChanged, FeatureCallableTool, FeatureMRTRTool, FeatureAuth, FeatureExtensions,
	FeatureIntermediary, FeatureProgress, FeatureLegacyClients, FeaturePagination, FeatureListen,
	FeatureHeaderParams, FeatureFileResources, FeatureTwoPrincipals,
}

// Valid reports whether f is FeatureNone or one of AllFeatures.
func (f Feature) Valid() bool {
	if f == FeatureNone {
		return true
	}
	for _, x := range AllFeatures {
		if x == f {
			return true
		}
	}
	return false
}

// Valid reports whether a is one of AllAreas.
func (a Area) Valid() bool {
	for _, x := range AllAreas {
		if x == a {
			return true
		}
	}
	return false
}

// Indeterminacy explains why a rule cannot be settled black-box and what would settle it. Every
// rule whose Check is Indeterminate carries one; the registry test enforces both fields.
type Indeterminacy struct {
	// Reason says what a black-box scan cannot see, in one sentence.
	Reason string `json:"reason"`
	// WouldSettle says what evidence would decide the rule (a code review, a fixture, host access).
	WouldSettle string `json:"wouldSettle"`
}

// Rule is one normative requirement of the 2026-07-28 revision that applies to a server reached
// over Streamable HTTP, or to an intermediary in front of one.
type Rule struct {
	// ID is stable and unique: MCP/2026-07-28/<LEVEL>/<Name>, with the level's spaces as dashes.
	ID string `json:"id"`
	// Name is the kebab-case tail of the ID, unique on its own.
	Name string `json:"name"`
	// Level is the keyword the spec states the requirement with.
	Level Level `json:"level"`
	// Requirement restates the rule in one sentence of our own.
	Requirement string `json:"requirement"`
	// SpecURL points at the clause, with its anchor, under SpecBase.
	SpecURL string `json:"specUrl"`
	// Remediation says concretely what a server author changes to comply.
	Remediation string `json:"remediation"`
	// Check is how Sentinel establishes compliance.
	Check CheckMode `json:"check"`
	// Indeterminacy is set exactly when Check is CheckIndeterminate.
	Indeterminacy *Indeterminacy `json:"indeterminacy,omitempty"`
	// Requires is the feature the rule depends on; empty means it applies to every server.
	Requires Feature `json:"requires,omitempty"`
	// Areas are the groups the rule belongs to; the first is its primary area.
	Areas []Area `json:"areas"`
	// Catalogue is the row number in the shared spec digest's catalogue (0 for rules the digest
	// missed and that were added from the spec itself).
	Catalogue int `json:"catalogue,omitempty"`
	// Note records a divergence from the digest or a spec ambiguity, empty when there is none.
	Note string `json:"note,omitempty"`
	// Transport is the binding the rule is stated for: empty for a protocol-level rule, "http"
	// or "stdio" for a rule of one binding. catalog() derives it (transportOf) for rules that
	// do not set it; a scan over the other transport reports the rule n/a (AppliesOver).
	Transport Transport `json:"transport,omitempty"`
}

// MakeID builds the stable rule ID from a level and a kebab-case name.
func MakeID(l Level, name string) string {
	return "MCP/" + Revision + "/" + l.IDPart() + "/" + name // not Sprintf: catalog() builds 223
}

// HasArea reports whether the rule belongs to area a.
func (r Rule) HasArea(a Area) bool {
	for _, x := range r.Areas {
		if x == a {
			return true
		}
	}
	return false
}

// Checkable reports whether Sentinel has a check for the rule (active, passive or both).
func (r Rule) Checkable() bool { return r.Check != CheckIndeterminate }
