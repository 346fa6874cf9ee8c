package active

import (
	"context"

	"github.com/mcp-sentinel/sentinel/rules"
)

// stdioProbes are the probes of the stdio binding; the other stdio rules are judged by the stdio
// checks over every line of the scan (passive.RunStdio, at the end of Scan).
func stdioProbes() []Probe {
	return []Probe{{
		Name:    "stdio-exit-on-stdin-close",
		RuleIDs: ids("stdio-exit-on-stdin-close"),
		AnyEra:  true,
		Run: func(ctx context.Context, t *Target) ([]rules.Outcome, error) {
			if t.stdio == nil {
				return nil, nil // an HTTP target: the runner reports the rule n/a
			}
			spec := discoverWith()
			if t.LegacySession {
				spec = LegacyInitialize(LegacyVersion)
			}
			return []rules.Outcome{t.stdio.exitOnStdinClose(ctx, spec)}, nil
		},
	}}
}

// asideKey marks a context whose requests go to a throwaway process of a stdio server.
type asideKey struct{}

// withAside marks ctx so that its requests to a stdio server go to a throwaway process: the
// legacy initialize a modern server must not see on the scan's own process.
func withAside(ctx context.Context) context.Context { return context.WithValue(ctx, asideKey{}, true) }

func aside(ctx context.Context) bool {
	v, _ := ctx.Value(asideKey{}).(bool)
	return v
}
