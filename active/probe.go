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
	// Run performs the probe.
	Run func(ctx context.Context, t *Target) ([]rules.Outcome, error)
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
