// Package audit defines the broker's hash-chained audit log: the shape of one entry, how each
// entry's hash commits to its predecessor, and Verify, which walks a chain and names the first
// broken link. Storage (and the database-enforced immutability) lives in broker/store; this
// package is pure so the same verification runs over SQLite and PostgreSQL rows alike.
//
// audit imports nothing of Sentinel's; in particular never rules, wire, active, passive, proxy,
// findings, report or tui.
package audit
