// Package broker assembles Sentinel's reference MCP server: an evaluation service speaking the
// 2026-07-28 (stateless) revision on the official Go SDK. It builds the tool manifest once,
// binds the transport-free handler core (broker/tools) to an SDK server, and serves it over
// streamable HTTP behind its guards, or over stdio.
//
//	HTTP request
//	  -> method guard (405, Allow: POST)       broker/http.go
//	  -> Origin guard (403)                     broker/origin.go
//	  -> bearer-token guard (401 + challenge)   broker/auth
//	  -> admission (one check, both transports) broker/admission.go
//	  -> SDK StreamableHTTPHandler, stateless   (Host, header-vs-body checks)
//	  -> audit middleware (one transaction)     broker/stateful_server.go, broker/callaudit.go
//	  -> tool adapter (principal, strict args)  broker/server.go
//	  -> tools.Core (validation, policy, scoring, staging the record)
//
//	stdio: bounded line reader -> admission -> the SDK server -> the same middleware, adapter and
//	       core, with the configured single-tenant principal (broker/stdio.go).
//
// The published shapes are broker/schema's versioned document; the audit chain is anchored by
// signed checkpoints (broker/checkpoint.go) that `broker audit verify` checks (auditverify.go).
//
// broker must not import Sentinel's harness: rules, wire, active, passive, proxy, findings, report,
// tui. It must be correct on its own, because Sentinel grades it.
package broker
