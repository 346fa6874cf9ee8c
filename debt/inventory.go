// Package debt turns observed traffic into a server's migration debt: every deprecated or removed
// feature of the 2026-07-28 revision it still relies on, with the evidence, the SEP, the date it
// was deprecated and the date it may be removed, counted from a date the caller passes in.
//
// Debt is information, not a verdict: the inventory never decides a gate. debt imports rules,
// wire and passive only; never active, proxy, broker or fixtures, and it reads no clock.
package debt

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// SchemaVersion versions the JSON form of Report; it changes when a field changes meaning.
const SchemaVersion = "sentinel.debt/1"

// Status says where a feature is in its lifecycle.
type Status string

// The two statuses an inventory item can have.
const (
	// Deprecated: still in the spec, removable on or after RemovableOn.
	Deprecated Status = "deprecated"
	// Removed: gone from 2026-07-28 outright; a server relying on it speaks an older revision.
	Removed Status = "removed"
)

// Seen is one piece of evidence that a feature is in use.
type Seen struct {
	// Exchange is the ID of the exchange it was seen on; empty when the use is implied (a
	// legacy-only server relies on every handshake-era feature even if this scan did not touch it).
	Exchange string `json:"exchange,omitempty"`
	// Kind is the evidence kind (rules.Evidence* or passive.EvidenceClient*).
	Kind string `json:"kind"`
	// What says what was seen.
	What string `json:"what"`
}

// Item is one deprecated or removed feature still in use by one side.
type Item struct {
	// Key is the rules.Deprecation or rules.Removal key ("logging", "sessions").
	Key string `json:"key"`
	// Name is the feature's name in the registry.
	Name string `json:"name"`
	// Status is Deprecated or Removed.
	Status Status `json:"status"`
	// Side is who relies on it: passive.SideServer or passive.SideClient.
	Side string `json:"side"`
	// Source is the SEP (or pull request) that deprecated or removed it.
	Source string `json:"source"`
	// SpecURL is the clause to read.
	SpecURL string `json:"specUrl"`
	// DeprecatedIn is when the feature became deprecated; zero for removals.
	DeprecatedIn time.Time `json:"deprecatedIn,omitzero"`
	// RemovableOn is the earliest removal date for a deprecation, or the release of the revision
	// that removed it for a removal.
	RemovableOn time.Time `json:"removableOn"`
	// Months is the number of whole months from the inventory's date to RemovableOn; negative when
	// that date has passed.
	Months int `json:"months"`
	// Due is the human sentence: "removable on or after 2027-07-28 (8 months from now)".
	Due string `json:"due"`
	// Replacement is the migration path.
	Replacement string `json:"replacement"`
	// Rules are the IDs of the rules that grade the feature.
	Rules []string `json:"rules,omitempty"`
	// Evidence lists what was seen, in exchange order, at most maxEvidence entries.
	Evidence []Seen `json:"evidence"`
	// Note carries the registry's caveat on the dates, when it has one.
	Note string `json:"note,omitempty"`
}

// Report is the migration debt of one target: the inventory.
type Report struct {
	// SchemaVersion is the constant SchemaVersion.
	SchemaVersion string `json:"schemaVersion"`
	// Target is the endpoint the exchanges were sent to (the first exchange's), "" when unknown.
	Target string `json:"target,omitempty"`
	// Today is the date the months are counted from.
	Today time.Time `json:"today"`
	// Exchanges is how many exchanges were examined.
	Exchanges int `json:"exchanges"`
	// LegacyOnly is true when the server spoke only the initialize-era protocol: it answered the
	// handshake or minted sessions and never answered a server/discover offering 2026-07-28.
	LegacyOnly bool `json:"legacyOnly"`
	// Items are sorted: server debt first, then by RemovableOn, then by Key.
	Items []Item `json:"items"`
}

// maxEvidence bounds the evidence kept per item; a long proxy run repeats the same sighting.
const maxEvidence = 5

// legacyRemovals are the removals an initialize-era server relies on by construction.
var legacyRemovals = []string{"initialize", "sessions", "get-stream", "resumability", "ping",
	"logging-set-level", "resources-subscribe", "server-requests", "roots-list-changed"}

// Inventory computes the migration debt the exchanges show, as of today. It is pure: the same
// exchanges and date give the same report, and the exchanges are not modified.
func Inventory(exchanges []*wire.Exchange, today time.Time) Report {
	inv := Report{SchemaVersion: SchemaVersion, Today: today.UTC(), Items: []Item{}}
	features := registry()
	byKey := map[string]*Item{}
	discovered, legacy := false, false
	absent := map[string]string{} // implied removals the evidence contradicts, with why
	for _, ex := range exchanges {
		if ex == nil {
			continue
		}
		noteAbsence(ex, absent)
		inv.Exchanges++
		if inv.Target == "" {
			inv.Target = ex.Target
		}
		if passive.AnsweredDiscover(ex) {
			discovered = true
		}
		for _, s := range passive.Deprecations(ex) {
			if s.Side == passive.SideServer && (s.Kind == rules.EvidenceInitialize || s.Kind == rules.EvidenceSessionID) {
				legacy = true
			}
			f, ok := features[s.Feature]
			if !ok {
				continue
			}
			it := itemFor(byKey, f, s.Side, today)
			if len(it.Evidence) < maxEvidence {
				it.Evidence = append(it.Evidence, Seen{Exchange: s.Exchange, Kind: s.Kind, What: s.Evidence})
			}
		}
	}
	inv.LegacyOnly = legacy && !discovered
	if inv.LegacyOnly {
		for _, k := range legacyRemovals {
			f, ok := features[k]
			if !ok {
				continue
			}
			if _, seen := byKey[passive.SideServer+"/"+k]; !seen && absent[k] != "" {
				continue // the evidence says the server does not have it: nothing to imply
			}
			it := itemFor(byKey, f, passive.SideServer, today)
			if len(it.Evidence) == 0 {
				it.Evidence = append(it.Evidence, Seen{Kind: "implied:legacy-only",
					What: "implied: the server speaks only the initialize-era protocol (no server/discover offering 2026-07-28)"})
			}
		}
	}
	for _, it := range byKey {
		inv.Items = append(inv.Items, *it)
	}
	sort.Slice(inv.Items, func(i, j int) bool {
		a, b := inv.Items[i], inv.Items[j]
		if a.Side != b.Side {
			return a.Side == passive.SideServer
		}
		if !a.RemovableOn.Equal(b.RemovableOn) {
			return a.RemovableOn.Before(b.RemovableOn)
		}
		return a.Key < b.Key
	})
	return inv
}

// noteAbsence records what an exchange shows a server does not have, so no "implied" row claims
// it: a GET on the endpoint answered 405 means no GET stream (and nothing to resume on it), a
// removed method answered -32601 means it is not served, a legacy initialize answered without
// Mcp-Session-Id means no sessions (a session id seen later overrides that), and a server reached
// over stdio has none of HTTP's GET stream, resumption or session ids.
func noteAbsence(ex *wire.Exchange, absent map[string]string) {
	if ex.Stdio() {
		// The HTTP-only removals have no stdio form: a stdio server cannot rely on them.
		absent["get-stream"] = "the server was reached over stdio, which has no HTTP GET stream"
		absent["resumability"] = "the server was reached over stdio, which has no SSE stream to resume"
		absent["sessions"] = "the server was reached over stdio, which has no Mcp-Session-Id"
	}
	if ex.Response == nil {
		return
	}
	if ex.Request.Method == http.MethodGet && ex.Status() == http.StatusMethodNotAllowed && !strings.Contains(ex.Request.URL, "/.well-known/") {
		absent["get-stream"] = "GET answered 405"
		absent["resumability"] = "GET answered 405"
	}
	m := ex.Request.Message
	if m == nil {
		var err error
		if m, err = wire.DecodeMessage(bytes.TrimSpace(ex.Request.Body)); err != nil {
			return
		}
	}
	var reply *wire.Message
	_, msgs, _ := ex.Response.Decoded(wire.Limits{})
	for _, rm := range msgs {
		if rm.IsResponse() {
			reply = rm
			break
		}
	}
	if code, isErr := reply.ErrorCode(); isErr && code == wire.CodeMethodNotFound {
		switch m.Method {
		case "ping":
			absent["ping"] = "ping answered -32601"
		case "logging/setLevel":
			absent["logging-set-level"] = "logging/setLevel answered -32601"
		case "resources/subscribe":
			absent["resources-subscribe"] = "resources/subscribe answered -32601"
		}
	}
	const sessionSeen = "sessions:seen" // not a feature key: remembers that a session id was seen
	switch {
	case ex.Response.Header.Get(wire.HeaderSessionID) != "":
		delete(absent, "sessions")
		absent[sessionSeen] = "yes"
	case m.Method == "initialize" && reply != nil && reply.Error == nil && absent[sessionSeen] == "":
		absent["sessions"] = "the initialize answer minted no Mcp-Session-Id"
	}
}

// feature is a registry entry reduced to what an item needs.
type feature struct {
	key, name, source, specURL, replacement, note string
	status                                        Status
	deprecatedIn, removableOn                     time.Time
	rules                                         []string
}

// registry merges the deprecation and removal registries into one lookup by key.
func registry() map[string]feature {
	out := map[string]feature{}
	for _, d := range rules.Deprecations() {
		out[d.Key] = feature{key: d.Key, name: d.Name, source: d.Source, specURL: d.SpecURL, replacement: d.Replacement,
			note: d.Note, status: Deprecated, deprecatedIn: d.DeprecatedIn, removableOn: d.RemovableOn(), rules: d.Rules}
	}
	for _, r := range rules.Removals() {
		out[r.Key] = feature{key: r.Key, name: r.Name, source: r.Source, specURL: r.SpecURL, replacement: r.Replacement,
			status: Removed, removableOn: rules.ReleaseDate, rules: r.Rules}
	}
	return out
}

// itemFor returns the item of feature f on side, creating it.
func itemFor(byKey map[string]*Item, f feature, side string, today time.Time) *Item {
	k := side + "/" + f.key
	if it, ok := byKey[k]; ok {
		return it
	}
	months := rules.MonthsUntil(today, f.removableOn)
	it := &Item{Key: f.key, Name: f.name, Status: f.status, Side: side, Source: f.source, SpecURL: f.specURL,
		DeprecatedIn: f.deprecatedIn, RemovableOn: f.removableOn, Months: months, Due: due(f.status, f.removableOn, months),
		Replacement: f.replacement, Note: f.note}
	for _, n := range f.rules {
		it.Rules = append(it.Rules, rules.IDOf(n))
	}
	byKey[k] = it
	return it
}

// due writes the removal sentence.
func due(s Status, on time.Time, months int) string {
	date := on.Format(time.DateOnly)
	if s == Removed {
		return fmt.Sprintf("removed in revision %s (%s)", date, relative(months))
	}
	if months < 0 {
		return fmt.Sprintf("removable since %s (%s)", date, relative(months))
	}
	return fmt.Sprintf("removable on or after %s (%s)", date, relative(months))
}

// relative says "N month(s) from now", "N month(s) ago" or "less than a month from now".
func relative(months int) string {
	switch {
	case months == 0:
		return "less than a month away"
	case months == 1:
		return "1 month from now"
	case months > 1:
		return fmt.Sprintf("%d months from now", months)
	case months == -1:
		return "1 month ago"
	default:
		return fmt.Sprintf("%d months ago", -months)
	}
}

// ServerOnly returns r without client-side items. A scan's client is the scanner itself, whose
// deliberate legacy probes (initialize, ping, ...) are not anyone's debt; client debt matters
// when the exchanges come from real clients, through the proxy.
func (r Report) ServerOnly() Report {
	kept := make([]Item, 0, len(r.Items))
	for _, it := range r.Items {
		if it.Side == passive.SideServer {
			kept = append(kept, it)
		}
	}
	r.Items = kept
	return r
}
