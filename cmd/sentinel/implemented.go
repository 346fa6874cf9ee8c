package main

import (
	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/passive"
)

// implementedRuleIDs is set here, next to the registries it reads, so `sentinel rules list` can
// say which rules a probe or a passive check stands behind.
func init() {
	implementedRuleIDs = func() map[string]bool {
		ids := active.RuleIDs()
		for _, id := range passive.StdioRuleIDs() {
			ids[id] = true
		}
		for _, e := range passive.All() {
			for _, id := range e.RuleIDs {
				ids[id] = true
			}
		}
		return ids
	}
}
