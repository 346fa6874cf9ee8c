// Package broker assembles Sentinel's reference MCP server: an evaluation service speaking the
// 2026-07-28 (stateless) revision on the official Go SDK. It builds the tool manifest once,
// binds the transport-free handler core (broker/tools) to an SDK server, and serves it over
// streamable HTTP behind its guards, or over stdio.
//
//	HTTP request
//	  -> method guard (405, Allow: POST)       broker/http.go
//	  -> Origin guard (403)                     broker/origin.go
//	  -> bearer-token guard (401 + challenge)   broker/auth
//	  -> SDK StreamableHTTPHandler, stateless   (Host, headers, _meta, versions)
//	  -> tool adapter (principal from context)  broker/server.go
//	  -> tools.Core (validation, policy, scoring, recording)
//
//	stdio: SDK StdioTransport -> the same tool adapter -> the same tools.Core,
//	       with the configured single-tenant principal.
//
// broker must not import Sentinel's harness: rules, wire, active, passive, proxy, findings, report,
// tui. It must be correct on its own, because Sentinel grades it.
package broker
