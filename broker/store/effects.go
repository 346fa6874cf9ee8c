package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrKeyInUse is returned by Once when the idempotency key was recorded for another tenant or
// tool: keys are derived from both, so this means a collision or a forged key, never a replay.
var ErrKeyInUse = errors.New("idempotency key already used by another request")

// Once claims key with an insert that conflicts on the primary key. In PostgreSQL a concurrent
// duplicate's insert waits for the claimant's transaction: if it commits, the duplicate sees the
// conflict and replays the recorded result; if it rolls back, the duplicate claims the key
// itself. In SQLite transactions are serial. Either way the effect runs once per key.
func (s *sqlStore) Once(ctx context.Context, key, tenant, tool, fingerprint string, fn EffectFunc) ([]byte, bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, fmt.Errorf("starting the %s effect: %w", tool, err)
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, s.q(`INSERT INTO effects (idempotency_key, tenant, tool, fingerprint, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`), key, tenant, tool, fingerprint, micros(time.Now()))
	if err != nil {
		return nil, false, fmt.Errorf("claiming the %s effect: %w", tool, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, false, fmt.Errorf("claiming the %s effect: %w", tool, err)
	}
	if n == 0 {
		_ = tx.Rollback()
		out, gotFP, ok, err := s.recorded(ctx, key, tenant, tool)
		switch {
		case err != nil:
			return nil, false, err
		case !ok:
			return nil, false, fmt.Errorf("reading the recorded %s result: the key is claimed but has no result", tool)
		case fingerprint != gotFP:
			return nil, false, ErrKeyReused
		}
		return out, true, nil
	}
	out, err := fn(ctx, &sqlTx{s: s, tx: tx})
	if err != nil {
		return nil, false, err
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE effects SET result = ? WHERE idempotency_key = ?`), string(out), key); err != nil {
		return nil, false, fmt.Errorf("recording the %s result: %w", tool, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, false, fmt.Errorf("committing the %s effect: %w", tool, err)
	}
	return out, false, nil
}

// Recorded returns the result recorded under key.
func (s *sqlStore) Recorded(ctx context.Context, key, tenant, tool string) ([]byte, bool, error) {
	out, _, ok, err := s.recorded(ctx, key, tenant, tool)
	return out, ok, err
}

func (s *sqlStore) recorded(ctx context.Context, key, tenant, tool string) ([]byte, string, bool, error) {
	var (
		gotTenant, gotTool, fingerprint string
		result                          sql.NullString
	)
	err := s.queryRow(ctx, s.q(`SELECT tenant, tool, fingerprint, result FROM effects WHERE idempotency_key = ?`), key).
		Scan(&gotTenant, &gotTool, &fingerprint, &result)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, "", false, nil
	case err != nil:
		return nil, "", false, fmt.Errorf("reading the recorded %s result: %w", tool, err)
	case gotTenant != tenant || gotTool != tool:
		return nil, "", false, ErrKeyInUse
	case !result.Valid:
		return nil, "", false, nil
	}
	return []byte(result.String), fingerprint, true, nil
}
