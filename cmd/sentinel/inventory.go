package main

import (
	"time"

	"github.com/mcp-sentinel/sentinel/debt"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/wire"
)

// inventoryOf is the server's deprecation inventory as the result model carries it: what the
// exchanges show, as of today, without the scan's own deliberate legacy probes (Sentinel is the
// client; its debt is nobody's).
func inventoryOf(exchanges []*wire.Exchange, today time.Time) *report.Inventory {
	return toInventory(debt.Inventory(exchanges, today).ServerOnly())
}

// toInventory copies a debt report into report's own type, so renderers never import debt.
func toInventory(d debt.Report) *report.Inventory {
	inv := &report.Inventory{Today: d.Today, Exchanges: d.Exchanges, LegacyOnly: d.LegacyOnly, Items: []report.DebtItem{}}
	for _, it := range d.Items {
		item := report.DebtItem{Key: it.Key, Name: it.Name, Status: string(it.Status), Side: it.Side, Source: it.Source,
			SpecURL: it.SpecURL, DeprecatedIn: it.DeprecatedIn, RemovableOn: it.RemovableOn, Months: it.Months,
			Due: it.Due, Replacement: it.Replacement, Rules: it.Rules, Note: it.Note}
		for _, e := range it.Evidence {
			item.Evidence = append(item.Evidence, report.DebtEvidence{Exchange: e.Exchange, What: e.What})
		}
		inv.Items = append(inv.Items, item)
	}
	return inv
}
