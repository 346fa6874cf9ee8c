// Package tui is `sentinel tui`: a keyboard-first terminal view of a running `sentinel proxy`,
// attached through the proxy's admin API (GET /findings, GET /exchanges, GET /events, POST
// /probe). It shows live exchanges with their verdicts, the detail of one exchange, findings
// grouped by rule, runs the active prober on demand and exports what the filter shows.
//
// Data flow:
//
//	admin API ──HTTP/SSE──▶ Watch (goroutine) ──▶ Cache ──changedMsg──▶ Model (dirty)
//	                                                 ▲                    │ tick, ≤5/s
//	                                                 └──── Snapshot ◀─────┘
//
// All I/O happens in Watch or in tea.Cmd closures that return typed XMsg values, so the UI never
// waits on a slow API. Every string a server supplied is passed through Clean before it is
// rendered. Severity is always written as a word and a symbol, never as colour alone.
//
// tui imports findings, report, rules and wire; it never imports proxy, broker or fixtures: it
// talks to the proxy only over HTTP, so it can attach to any proxy version that serves the API.
package tui
