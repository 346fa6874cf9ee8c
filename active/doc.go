// Package active is Sentinel's prober: it sends crafted HTTP requests to any MCP endpoint and
// turns what comes back into rule outcomes. The runner (Scan) owns the common envelope — the era
// gate, capability gating, concurrency, deadlines, panic recovery and merging — and each probe
// does only its own exchanges.
//
//	Scan ─► discover (era gate, capabilities, lists) ─► probes (bounded, concurrent)
//	           │                                         │
//	           └──── every exchange ─► passive.Run ◄─────┘ ─► report.Merge ─► Output
//
// The era gate decides how answers count. A modern server (its server/discover lists
// 2026-07-28) is graded as is. A legacy server that completes the 2025 initialize is scanned
// inside the session it minted, with ping standing in for server/discover: every failure it
// commits is kept, with what was sent and what came back, and every would-be pass becomes
// indeterminate, since a 2025 answer proves nothing about the new era. A server that neither
// discovers nor initializes gets only the probes that grade that fact.
//
// Probes are registered without init(): each probe_<area>.go file defines one function
// returning its []Probe, and Probes concatenates them.
//
// active imports rules, wire, passive and report; it never imports broker or fixtures: it
// grades servers it did not write.
package active
