// Package proxy is `sentinel proxy`: a transparent HTTP proxy (reverse mode for one or more
// upstreams by path prefix; forward mode, when asked for, to allowed hosts, with HTTPS
// interception by the user's own CA) that grades the MCP traffic it carries without ever
// altering or delaying it.
//
//	client ──► Proxy (listener) ──► httputil.ReverseProxy ──► Tap (RoundTripper) ──► upstream
//	                                                            │ keeps gradable bodies, within the Budget
//	                                                            ▼ once per exchange, never waiting
//	              Pipeline: queue (bytes accounted) ──► workers: Grader(s), panics recovered
//	                                                            │
//	                        findings.Store ◄── every exchange, graded or with why not ──► Hub (live)
//	                              ▲                                                      │
//	                 admin API (NewAdmin, bearer token, own listener): /findings /exchanges /events /probe /metrics
//
// Transparency is the first property: forwarding is httputil.ReverseProxy's, so status,
// end-to-end headers, bodies, trailers and 1xx responses cross as through a plain reverse proxy,
// hop-by-hop headers are dropped both ways, every write of a response of unknown length is
// flushed, client cancellation reaches the upstream, and a cut upstream looks cut. Grading holds
// at most its memory budget; past it exchanges are recorded without grading. The Pipeline and the
// admin API are independent of the HTTP front end, so another front end (a stdio shim) can feed
// and serve them.
//
// proxy imports rules, wire, passive, findings and report; never broker or fixtures.
package proxy
