// Package store is the broker's persistence: one interface per concern (Evaluations, Handles,
// Effects, Policies, Audit) and one implementation of all of them over database/sql in two
// dialects — SQLite (modernc.org/sqlite, the embedded default: a file, zero set-up) and
// PostgreSQL (pgx through a pgxpool, for many broker replicas sharing one database). Both pass the
// same contract suite (contract_test.go), run in `go test` against a file and against a
// throwaway PostgreSQL cluster (internal/pgtest).
//
// Guarantees that matter for correctness are enforced by the database, not by convention:
// the audit log refuses UPDATE and DELETE by trigger (and, in PostgreSQL, by grants — see
// deploy/postgres/grants.sql); an effect and its recorded result commit in one transaction keyed
// by the idempotency key; audit appends are serialised so the hash chain never forks.
//
// store must not import Sentinel's harness (rules, wire, active, passive, proxy, findings,
// report, tui) nor the broker's transport; it may use broker/audit and eval's plain types.
package store
