package active

import (
	"context"

	"github.com/mcp-sentinel/sentinel/rules"
)

// outOfReachProbes cite the active rules whose evidence needs what a scan from outside with one
// token does not have: a second principal, or knowing that the target is an intermediary in front
// of another server. The runner's feature gate makes their rules indeterminate with that reason
// (the features are never usable); Run says the same should a future gate let them through. They
// exist so that every rule the registry calls active is reached by some probe and its outcome
// says why, instead of "no check produced evidence".
func outOfReachProbes() []Probe {
	return []Probe{
		undecidedProbe("second-principal", rules.FeatureTwoPrincipals, "needs credentials for a second principal, which a one-token scan does not have",
			"access-control-not-cachescope", "handle-not-authentication", "resource-access-checks", "cache-scope-accurate"),
		undecidedProbe("intermediary", rules.FeatureIntermediary, "the scan cannot tell from outside whether the target is an intermediary in front of another server",
			"intermediary-forwards-param-headers", "intermediary-validation-http-error"),
	}
}

// undecidedProbe is a probe that settles nothing and says why for each of its rules.
func undecidedProbe(name string, needs rules.Feature, why string, names ...string) Probe {
	ruleIDs := ids(names...)
	return Probe{Name: name, Requires: needs, RuleIDs: ruleIDs, Run: func(context.Context, *Target) ([]rules.Outcome, error) {
		return each(ruleIDs, func(id string) rules.Outcome { return rules.Undecided(id, why) }), nil
	}}
}
