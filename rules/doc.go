// Package rules is Sentinel's registry of the normative requirements of the MCP 2026-07-28
// revision that bind a server reached over Streamable HTTP (and intermediaries in front of one),
// plus the registry of deprecated and removed features. Everything a check, a report or a command
// says about a rule comes from here, so a rule is written once.
//
// The package is data and pure functions only: no I/O, no network, no clock except a time passed
// in. It must not import any Sentinel package other than wire (and today it needs none), and never
// active, passive, proxy, report, findings, broker or fixtures. Code elsewhere names a rule only
// through IDOf(name), so that a level corrected here breaks nothing.
package rules
