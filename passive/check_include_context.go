package passive

import (
	"github.com/mcp-sentinel/sentinel/rules"
)

// checkStreamedSampling grades includeContext on a sampling/createMessage request the server
// sent on a response stream, the 2025 way of asking (the MRTR form, inputRequests, is graded by
// checkMRTRCapabilities). The request itself already fails no-server-initiated-requests; this
// check adds what it asked for.
//
//	includeContext thisServer/allServers "SHOULD NOT" be used, and not at all unless the client
//	declared sampling.context.
func checkStreamedSampling(v *view, _ *History) []rules.Outcome {
	for _, m := range v.msgs {
		if !m.IsRequest() || m.Method != "sampling/createMessage" {
			continue
		}
		ic, _ := stringOf(m.ParamsMembers()["includeContext"])
		if ic == "thisServer" || ic == "allServers" {
			return []rules.Outcome{fail("include-context-declared", "the server's sampling/createMessage request on the %s stream uses includeContext %q", v.methodLabel(), ic)}
		}
	}
	return nil
}
