package active

import (
	"cmp"
	"slices"
)

// probeWeights are the probes that send many requests in turn or wait on the server, with
// about how many requests' time each takes (counted on the everything-server and the conformant
// fixture: `requests` and `durationMs` in the result's probes). The scan starts the heaviest
// first: a probe is one goroutine's sequence of round trips, so the scan can end no sooner than
// its longest probe ends, and one started last — tool-call, twenty-three requests, was started
// halfway through on the conformant fixture — was the scan's tail while the other workers sat
// idle. Every other probe weighs one and keeps the registry's order. The order changes only when
// a probe starts; what a probe sees and what it concludes does not depend on it (probes run
// concurrently in any order, up to --concurrency 32).
var probeWeights = map[string]int{
	"tool-call":               23,
	"mrtr":                    20,
	"tool-progress":           16,
	"mrtr-prompt":             12,
	"mrtr-elicitation":        11,
	"listen":                  8, // up to 3 s on a server that sends nothing
	"list-changed":            8, // waits for the acknowledgement, then for the notification
	"mcp-param-headers":       7,
	"mrtr-prompt-elicitation": 7,
	"tools-list":              5,
	"removed-methods":         5,
	"prompt-get":              5,
	"mcp-name-header":         5,
}

// weight is p's entry in probeWeights, 1 for a probe not listed.
func weight(p Probe) int {
	if w, ok := probeWeights[p.Name]; ok {
		return w
	}
	return 1
}

// startOrder returns probes heaviest first, the registry's order among equals. probes is not
// modified.
func startOrder(probes []Probe) []Probe {
	out := slices.Clone(probes)
	slices.SortStableFunc(out, func(a, b Probe) int { return cmp.Compare(weight(b), weight(a)) })
	return out
}
