package active

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestSubscriptionProbes(t *testing.T) {
	P, F := rules.Pass, rules.Fail
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{}, Options{}, map[string]rules.Status{
			"listen-is-open-sse": P, "listen-ack-first": P, "listen-ack-honoured-subset": P, "listen-subscription-id": P}},
		{"no acknowledgement", &areaServer{noAck: true}, Options{}, map[string]rules.Status{
			"listen-is-open-sse": P, "listen-ack-first": F, "listen-only-requested-types": F}},
	})
}
