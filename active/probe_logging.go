package active

import (
	"context"
	"fmt"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// loggingProbes grade the deprecated Logging feature on servers that still declare it: the
// per-request level is validated and honoured, so the feature keeps behaving while it lasts.
func loggingProbes() []Probe {
	return []Probe{
		{Name: "log-level-invalid", DiscoverOnly: true, Requires: rules.FeatureLogging, RuleIDs: ids("invalid-loglevel-32602"), Run: probeInvalidLogLevel},
		{Name: "log-level-honoured", Requires: rules.FeatureCallableTool, RuleIDs: ids("log-at-or-above-level", "deprecated-features-correct"), Run: probeLogLevelHonoured},
	}
}

// probeInvalidLogLevel: an unrecognised io.modelcontextprotocol/logLevel SHOULD get -32602.
func probeInvalidLogLevel(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	label := `server/discover with _meta logLevel "sentinel-not-a-level"`
	ex := t.Call(ctx, "server/discover", map[string]any{"_meta": map[string]any{wire.MetaLogLevel: "sentinel-not-a-level"}}, wire.WithLabel(label))
	return []rules.Outcome{reject(rules.IDOf("invalid-loglevel-32602"), label, ex, 0, wire.CodeInvalidParams)}, nil
}

// probeLogLevelHonoured calls the callable tools asking for "error" and above: log messages a
// tool emits must be at or above that level. Deprecated features a server supports MUST still
// behave correctly, so the same evidence settles deprecated-features-correct for Logging.
func probeLogLevelHonoured(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	level, correct := rules.IDOf("log-at-or-above-level"), rules.IDOf("deprecated-features-correct")
	if !t.HasCapability("logging") {
		why := "the server does not declare the logging capability"
		return []rules.Outcome{rules.Absent(level, why), rules.Absent(correct, why)}, nil
	}
	for n, d := range callableDefs(t) {
		if n >= 5 {
			break
		}
		label := fmt.Sprintf(`tools/call %q with _meta logLevel "error"`, d.Name)
		ex := t.Call(ctx, "tools/call", map[string]any{"name": d.Name, "arguments": sampleArguments(d.InputSchema),
			"_meta": map[string]any{wire.MetaLogLevel: "error"}}, wire.WithLabel(label))
		outs := passiveFor(ex, nil, "log-at-or-above-level")
		if len(outs) == 0 {
			continue
		}
		for _, o := range outs {
			c := o
			c.RuleID = correct
			outs = append(outs, c)
		}
		return outs, nil
	}
	why := "no callable tool emitted a log message, so the level could not be checked"
	return []rules.Outcome{rules.Undecided(level, why), rules.Undecided(correct, why)}, nil
}
