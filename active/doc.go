// Package active is Sentinel's prober: it sends crafted HTTP requests to any MCP endpoint and
// turns what comes back into rule outcomes. The runner (Scan) owns the common envelope — the era
// gate, capability gating, concurrency, deadlines, panic recovery and merging — and each probe
// does only its own exchanges.
//
//	Scan ─► discover (era gate, capabilities, lists) ─► probes (bounded, concurrent)
//	           │                                         │
//	           └──── every exchange ─► passive.Run ◄─────┘ ─► report.Merge ─► Output
//
// Probes are registered without init(): each probe_<area>.go file defines one function
// returning its []Probe, and Probes concatenates them.
//
// active imports rules, wire, passive and report; it never imports broker or fixtures: it
// grades servers it did not write.
package active
