// Package tools is the broker's handler core: the plain functions behind the flag_injection and
// check_groundedness tools. Both transports (streamable HTTP and stdio) call these same functions,
// and every argument is validated here again, after the MCP layer's schema check, so that no
// transport can skip a check.
//
// The principal is a parameter, established by the transport from a validated token or from
// configuration; no argument can name a tenant. Scoring is behind the Scorer interface (the eval
// package's Evaluator in production), tenant policy behind Policies, and persistence behind
// Recorder, the seam the later storage work plugs into.
//
// tools must not import the MCP SDK, net/http, or anything of Sentinel's harness (rules, wire,
// active, passive, proxy, findings, report, tui).
package tools
