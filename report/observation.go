package report

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
)

// An outcome's Observed text follows one of two shapes, written by the prober's and the passive
// checks' helpers:
//
//	sent LABEL; got SUMMARY; what was expected     (an active probe: stimulus and response)
//	on SUMMARY: what is wrong with it              (a passive check over one exchange)
//
// SUMMARY is the exchange in one phrase ("POST tools/call → 200 application/json error -32042").
// The helpers below take those shapes apart to say when two outcomes say the same thing and to
// build fingerprints that survive a rescan. Anything else (text from the findings store,
// a hand-written result) falls back to the whole text.

// detail returns what a passive check says is wrong, without the "on SUMMARY: " prefix.
func detail(obs string) string {
	if strings.HasPrefix(obs, "on ") {
		if i := strings.Index(obs, ": "); i >= 0 {
			return obs[i+2:]
		}
	}
	return obs
}

// signature is the part of an observation that stays the same when the same server is scanned
// again: for a probe the request it sent (its label), for a passive check the request kind and
// the JSON-RPC error code of the answer. Free text, counts, session IDs, ports and timings are
// left out on purpose, so a baseline does not break on a reworded message or a new session.
func signature(obs string) string {
	switch {
	case strings.HasPrefix(obs, "sent "):
		label := strings.TrimPrefix(obs, "sent ")
		if i := strings.Index(label, "; "); i >= 0 {
			label = label[:i]
		}
		return "sent " + normaliseVolatile(label)
	case strings.HasPrefix(obs, "on "):
		summary := strings.TrimPrefix(obs, "on ")
		if i := strings.Index(summary, ": "); i >= 0 {
			summary = summary[:i]
		}
		req, resp, _ := strings.Cut(summary, " → ")
		sig := "on " + req
		if _, code, ok := strings.Cut(resp, " error "); ok {
			sig += " error " + strings.Fields(code + " ")[0]
		}
		return sig
	}
	if i := strings.Index(obs, " (seen "); i >= 0 { // the findings store's counts and times
		obs = obs[:i]
	}
	return normaliseVolatile(obs)
}

// normaliseVolatile replaces every token that carries a digit (numbers, IDs, session IDs,
// times) with "#", so two texts that differ only in those compare equal.
func normaliseVolatile(s string) string {
	fields := strings.FieldsFunc(s, unicode.IsSpace)
	for i, f := range fields {
		if strings.ContainsFunc(f, unicode.IsDigit) {
			fields[i] = "#"
		}
	}
	return strings.Join(fields, " ")
}

// ObservationFingerprint is the stable key of one failing observation of one rule: 16 hex digits
// of a SHA-256 over the rule ID and the observation's signature. Baselines, diffs and SARIF
// partialFingerprints are built on it; it never depends on message wording.
func ObservationFingerprint(ruleID, observed string) string {
	sum := sha256.Sum256([]byte(ruleID + "\x00" + signature(observed)))
	return hex.EncodeToString(sum[:8])
}
