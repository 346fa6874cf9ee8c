// Package proxy is `sentinel proxy`: a transparent HTTP proxy (reverse mode for one or more
// upstreams by path prefix; forward mode, when asked for, to allowed hosts, with HTTPS
// interception by the user's own CA) that grades the MCP traffic it carries without ever
// altering or delaying it.
//
//	client ──► goproxy (dispatch, policy) ──► httputil.ReverseProxy ──► Tap (RoundTripper) ──► upstream
//	                                                            │ keeps gradable bodies, within the Budget
//	                                                            ▼ once per exchange, never waiting
//	              Pipeline: queue (bytes accounted) ──► workers: Grader(s), panics recovered
//	                                                            │
//	                        findings.Store ◄── every exchange, graded or with why not ──► Hub (live)
//	                              ▲                                                      │
//	                 admin API (NewAdmin, bearer token, own listener): /findings /exchanges /events /probe /metrics
//
// The listener's handler is github.com/elazarl/goproxy's ProxyHttpServer, which does what a proxy
// library is good at: it tells origin-form, absolute-form and CONNECT requests apart (origin-form
// to its NonproxyHandler, the reverse routes), expresses the --allow-host policy as its request
// conditions, and takes CONNECT over (a byte tunnel, or a hijack that answers TLS with a leaf from
// the user's CA). It never writes a forwarded response: its own response path flushes only
// lowercase text/event-stream, passes hop-by-hop headers on, drops 1xx responses and writes
// intercepted responses by hand. Every request it accepts, intercepted ones included, is served
// by httputil.ReverseProxy with the Tap as its transport (dispatch.go says how).
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
