// Package findings is Sentinel's findings store: what `sentinel proxy` learned from live traffic,
// kept so that `sentinel findings list|export`, the admin API and the TUI can read it later.
//
// A finding is one failing rule for one target and one method or tool (not one per request): it
// counts how often it was seen, when first and last, and which exchange showed it most recently.
// Exchanges are stored too, so a finding can be traced to the bytes behind it.
//
// Two back ends satisfy the same contract tests: an embedded SQLite file (modernc.org/sqlite, the
// default, zero setup) and PostgreSQL through pgx (`--db postgres://...`), which lets many proxies
// share one store. Credentials never reach either: Authorization, cookies and token-like headers
// are dropped and token-like JSON fields (plus any named with Options.RedactKeys) are replaced
// before a payload is written.
//
// findings imports rules and report only; never proxy, broker or fixtures.
package findings
