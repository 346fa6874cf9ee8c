package tui

import (
	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/wire"
)

// featuresOf lists the deprecated or removed features (rules.Deprecation or rules.Removal
// keys) the server shows in use on a stored exchange, by the same pure function the proxy's
// checks and the deprecation inventory use. The header names a feature only from this
// evidence, never by guessing from a rule that grades several features at once.
func featuresOf(ex findings.Exchange) []string {
	wex := &wire.Exchange{ID: ex.ID, Target: ex.Target, Started: ex.Start,
		Request: wire.Request{Method: ex.HTTPMethod, URL: ex.URL, Header: ex.RequestHeader, Body: ex.RequestBody}}
	if ex.Status != 0 {
		wex.Response = &wire.Response{Status: ex.Status, Header: ex.ResponseHeader, Body: ex.ResponseBody, Truncated: ex.Truncated}
	}
	wex.Parse(wire.Limits{})
	var out []string
	for _, s := range passive.Deprecations(wex) {
		if s.Side == passive.SideServer {
			out = append(out, s.Feature)
		}
	}
	return out
}
