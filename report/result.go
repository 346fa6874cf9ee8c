// Package report holds Sentinel's one result model and every renderer of it. Each output format
// (text, JSON, SARIF 2.1.0, JUnit XML, Markdown, HTML, an SVG badge) is one file that registers
// itself (register): every command that writes a report finds its renderer with New, and
// `--format` help is generated from the registry. Any saved JSON result can be rendered again in
// another format, which is how `sentinel findings export`, `sentinel diff` and `sentinel badge`
// work.
//
// The model sorts itself (by rule ID) so renderers never re-derive order. Failing rules are
// grouped into findings, distinct behaviours counted once (Result.Findings), and every count a
// report prints comes from one Tally, so all formats agree. The gate yields a verdict (passed,
// failed, incomplete, could-not-run), evaluated from the model, never inside a renderer; only
// cmd/internal/cli turns it into an exit code. A Comparison (a baseline, or the older result of a
// diff) marks known failures, which do not fail the gate.
//
// Guarantees, pinned by golden tests under testdata/: output is deterministic (no clock is
// read; times come from the Result), the JSON form is canonical and round-trips through Decode,
// every SARIF log validates against the SARIF 2.1.0 schema (report/sarifcheck), the HTML page
// loads nothing (checked in headless Chromium), and strings from the target are neutralised for
// each medium (terminal escapes in text, Markdown and HTML syntax, XML-illegal characters in
// JUnit). The schema and the mappings are documented in docs/result-schema.md.
//
// report imports rules and internal/termtext; it never imports broker, fixtures, active or debt.
package report

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// SchemaVersion is the version of the JSON result schema (docs/result-schema.md). It changes
// when a field is removed or its meaning changes; adding a field does not change it.
const SchemaVersion = "sentinel.result/v1"

// Result is one scan (or one export of stored findings) of one target.
type Result struct {
	// Schema is SchemaVersion when written by this version of Sentinel.
	Schema string `json:"schema"`
	// Tool names the producer and its version, e.g. "sentinel 0.1.0".
	Tool string `json:"tool"`
	// Target is the endpoint URL scanned (credentials stripped).
	Target string `json:"target"`
	// Started is when the scan began; Duration how long it took.
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNs"`
	// Era is what the scan established about the protocol the target speaks, e.g. "2026-07-28",
	// "legacy (2025-11-25)", or "unknown".
	Era string `json:"era,omitempty"`
	// Notes are scan-level remarks shown before the rules (era gate verdict, skipped probes).
	Notes []string `json:"notes,omitempty"`
	// Probes is how the scan spent its time: discovery, then every probe that ran, in the order
	// they started, each with when it started, how long it took and how many requests it sent,
	// so the slowest probes and the scan's critical path are visible. Timings vary from run to
	// run; no verdict depends on them. Empty for results not produced by an active scan.
	Probes []ProbeRun `json:"probes,omitempty"`
	// Rules holds one entry per rule evaluated, sorted by rule ID.
	Rules []RuleResult `json:"rules"`
	// Incomplete is set when the scan did not finish every probe it selected (its --timeout ran
	// out, or it was interrupted). The rules the unfinished probes would have settled are then
	// indeterminate, and the result can never pass: an incomplete scan exits 2.
	Incomplete *Incomplete `json:"incomplete,omitempty"`
	// CouldNotRun is set when the scan could not grade the target at all (it is not an MCP
	// endpoint, it requires authorization the scan was not given, it cannot be reached). Rules is
	// then empty or partial; the result exists so every format can still say why (a SARIF upload
	// step, for one, must find a valid file). Such a result exits 2.
	CouldNotRun *CouldNotRun `json:"couldNotRun,omitempty"`
	// Gate is the gate the result was judged by (`--gate`); empty means none was recorded, and
	// renderers then judge by GateMust, the default.
	Gate Gate `json:"gate,omitempty"`
	// Comparison is set when the result was judged against what was known before: a baseline
	// file (`--baseline`) or the older result of `sentinel diff`. Known failures then do not
	// fail the gate; new ones do.
	Comparison *Comparison `json:"comparison,omitempty"`
	// Deprecations is the deprecation inventory of the target, when the command that produced
	// the result built one (`sentinel deprecations`, the HTML report of a scan).
	Deprecations *Inventory `json:"deprecations,omitempty"`
}

// Incomplete says how much of a scan did not finish, and why.
type Incomplete struct {
	// Unfinished and Total count probes: Unfinished of Total did not finish.
	Unfinished int `json:"unfinished"`
	Total      int `json:"total"`
	// Reason is one sentence a user can act on, e.g. "3 of 41 probes did not finish before
	// --timeout 2s; raise --timeout".
	Reason string `json:"reason"`
	// Probes names the unfinished probes, sorted.
	Probes []string `json:"probes,omitempty"`
}

// ProbeRun is how one step of a scan ran. Times are milliseconds with microsecond precision.
type ProbeRun struct {
	// Name is the probe's name, or DiscoveryStep for the era gate and the reading of the lists
	// that every probe waits for, but those that need only server/discover: over HTTP they may
	// start while the lists are read.
	Name string `json:"name"`
	// StartMs is when the step started, after the start of the scan.
	StartMs float64 `json:"startMs"`
	// DurationMs is how long the step took, from its start to its last outcome.
	DurationMs float64 `json:"durationMs"`
	// Requests counts the requests the step sent.
	Requests int `json:"requests"`
	// Cut says why the step did not finish ("scan-timeout", "probe-timeout", "interrupted");
	// empty when it finished.
	Cut string `json:"cut,omitempty"`
}

// DiscoveryStep names the ProbeRun of discovery: server/discover, the legacy initialize and the
// first page of each declared list, which every probe depends on (those that need only
// server/discover start, over HTTP, once it is answered).
const DiscoveryStep = "discovery"

// Millis converts d to milliseconds with microsecond precision, the unit of ProbeRun.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// CouldNotRun says why a scan could not grade its target.
type CouldNotRun struct {
	// Reason is one sentence saying what was seen and what to do, e.g. "not an MCP endpoint:
	// POST / → 501 text/html" or "the endpoint requires authorization (401, ...): pass
	// --token-file or SENTINEL_TOKEN".
	Reason string `json:"reason"`
}

// RuleResult is the merged outcome of one rule on the target, with the rule's own data so a
// saved result renders without the registry that produced it.
type RuleResult struct {
	Rule rules.Rule `json:"rule"`
	// Status is the merged outcome: one fail makes the rule fail.
	Status rules.Status `json:"status"`
	// Evidence are the outcomes behind the status, most telling first; at most a few are kept.
	Evidence []rules.Outcome `json:"evidence,omitempty"`
	// Observations are the fingerprints (ObservationFingerprint) of every distinct failing
	// observation Merge saw, not only the Evidence kept, sorted. Baselines and diffs match on
	// them. Empty unless Status is fail; a result built elsewhere may leave it empty, and
	// ObservationKeys then reads the evidence.
	Observations []string `json:"observations,omitempty"`
}

// MaxEvidence bounds how many outcomes a RuleResult keeps, so a long proxy run stays small.
const MaxEvidence = 5

// Merge folds outcomes into per-rule results for the given rules. A rule with no outcome is
// indeterminate ("no check ran") if it is checkable and carries its registry reason otherwise: a
// scan always says what it could not see. Outcomes for unknown rule IDs are ignored.
func Merge(all []rules.Rule, outcomes []rules.Outcome) []RuleResult {
	// The outcomes are grouped by rule in one array, each rule's in the order given (a counting
	// sort): a slice per rule grown by appending was most of what a merge allocated, and a scan
	// merges a few thousand outcomes on its way out.
	type span struct{ at, n int }
	spans := make(map[string]span, len(all))
	for _, o := range outcomes {
		s := spans[o.RuleID]
		s.n++
		spans[o.RuleID] = s
	}
	at := 0
	for id, s := range spans {
		spans[id] = span{at: at}
		at += s.n
	}
	grouped := make([]rules.Outcome, len(outcomes))
	for _, o := range outcomes {
		s := spans[o.RuleID]
		grouped[s.at+s.n] = o
		s.n++
		spans[o.RuleID] = s
	}
	out := make([]RuleResult, 0, len(all))
	for _, r := range all {
		s := spans[r.ID]
		os := grouped[s.at : s.at+s.n : s.at+s.n]
		rr := RuleResult{Rule: r}
		if len(os) == 0 {
			rr.Status = rules.Indeterminate
			why := noEvidence
			if r.Indeterminacy != nil {
				// What would settle it stays on the rule (RuleResult.WouldSettle) so renderers
				// print the two separately.
				why = r.Indeterminacy.Reason
			}
			rr.Evidence = []rules.Outcome{rules.Undecided(r.ID, why)}
			out = append(out, rr)
			continue
		}
		slices.SortStableFunc(os, evidenceOrder)
		os = slices.CompactFunc(os, func(a, b rules.Outcome) bool { return a == b })
		rr.Status = os[0].Status
		if rr.Status == rules.Fail {
			rr.Observations = observationKeys(r.ID, os)
		}
		if len(os) > MaxEvidence {
			os = os[:MaxEvidence]
		}
		rr.Evidence = os
		out = append(out, rr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rule.ID < out[j].Rule.ID })
	return out
}

// evidenceOrder puts the most telling outcome first: the strongest status, then a probe's own
// request before a passive reading, then by text, so which evidence is kept does not depend
// on the order concurrent probes finished in.
func evidenceOrder(a, b rules.Outcome) int {
	if a.Status.Rank() != b.Status.Rank() {
		return b.Status.Rank() - a.Status.Rank()
	}
	as, bs := strings.HasPrefix(a.Observed, "sent "), strings.HasPrefix(b.Observed, "sent ")
	if as != bs {
		if as {
			return -1
		}
		return 1
	}
	return cmp.Or(strings.Compare(a.Observed, b.Observed), strings.Compare(a.Why, b.Why), strings.Compare(a.Exchange, b.Exchange))
}

// Counts tallies outcomes for one level group.
type Counts struct {
	Pass          int `json:"pass"`
	Fail          int `json:"fail"`
	Indeterminate int `json:"indeterminate"`
	NotApplicable int `json:"na"`
}

// Add counts one status.
func (c *Counts) Add(s rules.Status) {
	switch s {
	case rules.Pass:
		c.Pass++
	case rules.Fail:
		c.Fail++
	case rules.Indeterminate:
		c.Indeterminate++
	case rules.NotApplicable:
		c.NotApplicable++
	}
}

// Evaluated is how many rules were settled (pass or fail).
func (c Counts) Evaluated() int { return c.Pass + c.Fail }

// Summary counts outcomes for MUST-level (MUST, MUST NOT) and SHOULD-level (SHOULD, SHOULD NOT)
// rules separately, the two lines every text report prints.
func (r *Result) Summary() (must, should Counts) {
	for _, rr := range r.Rules {
		if rr.Rule.Level.Mandatory() {
			must.Add(rr.Status)
		} else {
			should.Add(rr.Status)
		}
	}
	return must, should
}
