// Package proxy is `sentinel proxy`: a transparent HTTP proxy (reverse mode for one or more
// upstreams by path prefix, forward mode for clients with HTTP_PROXY set, HTTPS interception with
// the user's own CA) that grades the MCP traffic it carries without ever altering or delaying it.
//
//	client ──► goproxy ──► Tap (RoundTripper) ──────────────► upstream
//	                        │ tees ≤ MaxBody of each body, delivers once
//	                        ▼
//	                   Capture ──select/default──► bounded queue ──► workers
//	                                                                   │ Grader(s), panics recovered
//	                                                                   ▼
//	                                     findings.Store ◄── findings, exchanges ──► Hub (live SSE)
//	                                           ▲                                     │
//	                                     Admin API: /findings /exchanges /events /probe /metrics
//
// Transparency is the first property: status, headers and bodies are forwarded byte for byte, SSE
// flows event by event, client cancellation reaches the upstream, and an upstream that fails or
// closes mid-stream looks to the client exactly as it would through net/http/httputil's reverse
// proxy. Grading never blocks traffic: when the queue is full the exchange is counted and skipped.
//
// proxy imports rules, wire, passive, findings and report; never broker or fixtures.
package proxy
