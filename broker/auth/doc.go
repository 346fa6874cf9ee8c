// Package auth is the broker's resource-server side of MCP authorization: it verifies bearer JWTs
// against configured keys (a PEM public key or a JWKS file), turns a valid token into a Principal
// (tenant and subject come only from the token), answers 401 with the WWW-Authenticate challenge the
// 2026-07-28 authorization page asks for, serves the RFC 9728 protected-resource metadata, and mints
// development keys and tokens.
//
// The raw token never leaves Verify: a Principal holds claims, not the credential, so nothing
// downstream can forward it (the spec's "no token passthrough").
//
// auth must not import the MCP SDK's server package, eval, or anything of Sentinel's harness
// (rules, wire, active, passive, proxy, findings, report, tui).
//
// [authorization]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
package auth
