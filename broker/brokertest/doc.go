// Package brokertest holds the broker's acceptance tests: the tests a scan cannot replace
// (foreign-audience tokens, token passthrough to the judge, cross-principal handles, duplicate
// retries counted at the effect's source, audit-chain tampering) and the MRTR, load and fault
// tests, each run over in-process HTTP against both stores — a SQLite file and a throwaway
// PostgreSQL cluster (internal/pgtest; it fails, never skips, without PostgreSQL).
//
// It has no non-test code. Like the broker it must not import Sentinel's harness (rules, wire,
// active, passive, proxy, findings, report, tui): the broker is graded by others, not itself.
package brokertest
