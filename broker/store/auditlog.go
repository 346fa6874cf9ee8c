package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-sentinel/sentinel/broker/audit"
)

const auditColumns = `seq, at, tenant, subject, tool, args_digest, outcome, decided_by, request_id, detail, prev_hash, hash, key_id, sig`

// appendTx links entries, in order, to the head and inserts them in tx, signed with the store's
// key. PostgreSQL serialises appenders with a transaction-scoped advisory lock (no table privilege
// beyond INSERT and SELECT needed); SQLite's immediate transactions are already serial. The
// primary key on seq and the unique hash are the last line: a forked append fails instead of
// landing.
func (s *sqlStore) appendTx(ctx context.Context, tx *sql.Tx, entries []audit.Entry) ([]audit.Record, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	if s.dialect == DialectPostgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, auditLockKey); err != nil {
			return nil, fmt.Errorf("appending to the audit log: taking the append lock: %w", err)
		}
	}
	var (
		head audit.Record
		prev *audit.Record
	)
	err := s.txQueryRow(ctx, tx, `SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1`).Scan(&head.Seq, &head.Hash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("appending to the audit log: reading the head: %w", err)
	default:
		prev = &head
	}
	recs := make([]audit.Record, len(entries))
	args := make([]any, 0, len(entries)*14)
	for i, e := range entries {
		r := audit.Link(prev, e)
		if s.signer != nil {
			s.signer.SignRecord(&r)
		}
		recs[i] = r
		prev = &recs[i]
		args = append(args, r.Seq, micros(r.Entry.At), r.Entry.Tenant, r.Entry.Subject, r.Entry.Tool, r.Entry.ArgsDigest,
			r.Entry.Outcome, r.Entry.DecidedBy, r.Entry.RequestID, r.Entry.Detail, r.PrevHash, r.Hash, r.KeyID, r.Sig)
	}
	if _, err := s.txExec(ctx, tx, s.insertSQL("audit_log", auditColumns, 14, len(entries)), args...); err != nil {
		return nil, fmt.Errorf("appending to the audit log: %w", err)
	}
	return recs, nil
}

// insertSQL is a multi-row INSERT of rows rows of cols placeholders, in the store's dialect.
func (s *sqlStore) insertSQL(table, columns string, cols, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (")
	b.WriteString(columns)
	b.WriteString(") VALUES ")
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return s.q(b.String())
}

// Walk streams the log in sequence order.
func (s *sqlStore) Walk(ctx context.Context, fn func(audit.Record) error) error {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log ORDER BY seq`)
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
			&r.Entry.Outcome, &r.Entry.DecidedBy, &r.Entry.RequestID, &r.Entry.Detail, &r.PrevHash, &r.Hash, &r.KeyID, &r.Sig); err != nil {
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

// Head returns the last record's position and hash.
func (s *sqlStore) Head(ctx context.Context) (audit.Record, error) {
	r := audit.Record{Hash: audit.Genesis}
	err := s.rdb.QueryRowContext(ctx, `SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1`).Scan(&r.Seq, &r.Hash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return audit.Record{}, fmt.Errorf("reading the audit head: %w", err)
	}
	return r, nil
}

// PutCheckpoint stores a signed checkpoint.
func (s *sqlStore) PutCheckpoint(ctx context.Context, c audit.Checkpoint) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO audit_checkpoints (seq, hash, at, key_id, sig) VALUES (?, ?, ?, ?, ?)`),
		c.Seq, c.Hash, c.At, c.KeyID, c.Sig)
	if err != nil {
		return fmt.Errorf("storing an audit checkpoint: %w", err)
	}
	return nil
}

// Checkpoints returns every stored checkpoint.
func (s *sqlStore) Checkpoints(ctx context.Context) ([]audit.Checkpoint, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT seq, hash, at, key_id, sig FROM audit_checkpoints ORDER BY seq, at`)
	if err != nil {
		return nil, fmt.Errorf("reading audit checkpoints: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []audit.Checkpoint
	for rows.Next() {
		var c audit.Checkpoint
		if err := rows.Scan(&c.Seq, &c.Hash, &c.At, &c.KeyID, &c.Sig); err != nil {
			return nil, fmt.Errorf("reading audit checkpoints: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading audit checkpoints: %w", err)
	}
	return out, nil
}

// VerifyChain walks a's log and checks it against keys (nil: links only) and checkpoints.
func VerifyChain(ctx context.Context, a Audit, keys audit.Keys, checkpoints []audit.Checkpoint) (audit.Report, error) {
	v := audit.NewVerifier(keys, checkpoints)
	err := a.Walk(ctx, v.Next)
	var b *audit.Break
	if err != nil && !errors.As(err, &b) {
		return audit.Report{}, err
	}
	return v.Finish(), nil
}
