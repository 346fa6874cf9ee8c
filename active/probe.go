package active

import (
	"context"

	"github.com/mcp-sentinel/sentinel/rules"
)

// Probe is one active test. Run crafts its requests with Target.Send and returns outcomes only
// for rules in RuleIDs; it returns an error only when it could not run at all (the runner turns
// that into indeterminate outcomes for its rules). The runner handles Requires (n/a when the
// feature is absent, indeterminate when it cannot be used), the era gate, the deadline carried
// by ctx and panics.
type Probe struct {
	// Name identifies the probe in notes and logs (kebab-case, unique).
	Name string
	// RuleIDs are the rules the probe can produce outcomes for, cited through rules.IDOf.
	RuleIDs []string
	// Requires is the feature the probe needs; FeatureNone runs it on every modern server.
	Requires rules.Feature
	// AnyEra runs the probe even when the server does not speak 2026-07-28 (the discover probe,
	// which is what fails such a server). Other probes are not run then: their rules become
	// indeterminate, because a rejection from a server that rejects everything proves nothing.
	AnyEra bool
	// DiscoverOnly marks a probe that needs nothing discovery learns after server/discover: it
	// reads no list, callable tool or legacy handshake from the Target (t.Tools, t.Prompts,
	// t.Resources, t.Callable, t.MRTRTool, t.Paginated, Listed, ServesLegacy and what reads
	// them) and sends no request whose meaning depends on them. On an HTTP target it starts as
	// soon as the era gate has passed, while discovery reads the lists, instead of after them:
	// the scan's workers would otherwise sit idle for those round trips. Its Requires must be
	// one the DiscoverResult settles (discoverSettles; TestDiscoverOnlyProbesNeedOnlyTheDiscover).
	DiscoverOnly bool
	// Run performs the probe.
	Run func(ctx context.Context, t *Target) ([]rules.Outcome, error)
}

// discoverSettles reports whether the DiscoverResult alone decides whether feature f is present
// and usable (a declared capability), so that a DiscoverOnly probe needing it can be gated before
// discovery has read the lists.
func discoverSettles(f rules.Feature) bool {
	switch f {
	case rules.FeatureNone, rules.FeatureTools, rules.FeatureResources, rules.FeaturePrompts, rules.FeatureCompletions,
		rules.FeatureLogging, rules.FeatureExtensions, rules.FeatureSubscribe, rules.FeatureListChanged, rules.FeatureListen:
		return true
	}
	return false
}

// Probes returns every probe, built fresh on each call (callers may filter the slice). Each
// group comes from its own probe_<area>.go file as a plain function — no init(), no mutable
// package variable. A new area adds one file with `func <area>Probes() []Probe` and one line
// below.
func Probes() []Probe {
	groups := [][]Probe{
		discoverProbes(),
		transportProbes(),
		headerProbes(),
		paramProbes(),
		metaProbes(),
		versioningProbes(),
		errorProbes(),
		originProbes(),
		cancellationProbes(),
		cachingProbes(),
		toolProbes(),
		resourceProbes(),
		promptProbes(),
		completionProbes(),
		subscriptionProbes(),
		mrtrProbes(),
		authProbes(),
		loggingProbes(),
		outOfReachProbes(),
		stdioProbes(),
	}
	var out []Probe
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// ids resolves rule names to IDs through the registry, so a corrected level breaks nothing.
func ids(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = rules.IDOf(n)
	}
	return out
}

// RuleIDs returns the union of the rule IDs every probe can produce outcomes for.
func RuleIDs() map[string]bool {
	out := map[string]bool{}
	for _, p := range Probes() {
		for _, id := range p.RuleIDs {
			out[id] = true
		}
	}
	return out
}
