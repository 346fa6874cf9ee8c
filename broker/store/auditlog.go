package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mcp-sentinel/sentinel/broker/audit"
)

// Append reads the head and inserts its successor in one transaction. PostgreSQL serialises
// appenders with a transaction-scoped advisory lock (no table privilege beyond INSERT and SELECT
// needed); SQLite's immediate transactions are already serial. The primary key on seq and the
// unique hash are the last line: a forked append fails instead of landing.
func (s *sqlStore) Append(ctx context.Context, e audit.Entry) (audit.Record, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return audit.Record{}, fmt.Errorf("appending to the audit log: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if s.dialect == DialectPostgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, auditLockKey); err != nil {
			return audit.Record{}, fmt.Errorf("appending to the audit log: taking the append lock: %w", err)
		}
	}
	var (
		head audit.Record
		prev *audit.Record
	)
	err = tx.QueryRowContext(ctx, `SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1`).Scan(&head.Seq, &head.Hash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return audit.Record{}, fmt.Errorf("appending to the audit log: reading the head: %w", err)
	default:
		prev = &head
	}
	r := audit.Link(prev, e)
	_, err = tx.ExecContext(ctx, s.q(`INSERT INTO audit_log
		(seq, at, tenant, subject, tool, args_digest, outcome, decided_by, prev_hash, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		r.Seq, micros(r.Entry.At), r.Entry.Tenant, r.Entry.Subject, r.Entry.Tool, r.Entry.ArgsDigest,
		r.Entry.Outcome, r.Entry.DecidedBy, r.PrevHash, r.Hash)
	if err != nil {
		return audit.Record{}, fmt.Errorf("appending to the audit log: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return audit.Record{}, fmt.Errorf("appending to the audit log: committing: %w", err)
	}
	return r, nil
}

// Walk streams the log in sequence order.
func (s *sqlStore) Walk(ctx context.Context, fn func(audit.Record) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, at, tenant, subject, tool, args_digest, outcome, decided_by, prev_hash, hash
		FROM audit_log ORDER BY seq`)
	if err != nil {
		return fmt.Errorf("reading the audit log: %w", err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var (
			r  audit.Record
			at int64
		)
		if err := rows.Scan(&r.Seq, &at, &r.Entry.Tenant, &r.Entry.Subject, &r.Entry.Tool, &r.Entry.ArgsDigest,
			&r.Entry.Outcome, &r.Entry.DecidedBy, &r.PrevHash, &r.Hash); err != nil {
			return fmt.Errorf("reading the audit log: %w", err)
		}
		r.Entry.At = fromMicros(at)
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the audit log: %w", err)
	}
	return nil
}

// VerifyChain walks a's log and returns how many entries verified and the first break (an
// *audit.Break) or nil.
func VerifyChain(ctx context.Context, a Audit) (int64, string, error) {
	var v audit.Verifier
	err := a.Walk(ctx, v.Next)
	return v.Count(), v.Head(), err
}
