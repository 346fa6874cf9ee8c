package active

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestLoggingProbes(t *testing.T) {
	P, F, NA := rules.Pass, rules.Fail, rules.NotApplicable
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{logging: true}, Options{}, map[string]rules.Status{
			"invalid-loglevel-32602": P, "log-at-or-above-level": P, "deprecated-features-correct": P}},
		{"logs below the level, accepts a bad level", &areaServer{logging: true, logBelow: true, acceptBadLevel: true}, Options{}, map[string]rules.Status{
			"invalid-loglevel-32602": F, "log-at-or-above-level": F, "deprecated-features-correct": F}},
		{"no logging", &areaServer{}, Options{}, map[string]rules.Status{"invalid-loglevel-32602": NA, "log-at-or-above-level": NA}},
	})
}
