package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/eval"
)

const evaluationColumns = `id, tenant, subject, tool, created_at, metric_version, judge_model, input_digest, input, policy, result`

// PutEvaluation stores e on its own, outside any call record (tests, tools).
func (s *sqlStore) PutEvaluation(ctx context.Context, e Evaluation) error {
	return s.exec(ctx, func(tx *sql.Tx) error { return s.insertEvaluations(ctx, tx, []*Evaluation{&e}) })
}

// exec runs fn in a transaction of its own.
func (s *sqlStore) exec(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// insertEvaluations inserts evs in one statement.
func (s *sqlStore) insertEvaluations(ctx context.Context, tx *sql.Tx, evs []*Evaluation) error {
	if len(evs) == 0 {
		return nil
	}
	args := make([]any, 0, len(evs)*11)
	for _, e := range evs {
		var input any
		if e.Input != nil {
			input = string(e.Input)
		}
		args = append(args, e.ID, e.Tenant, e.Subject, e.Tool, micros(e.CreatedAt), e.MetricVersion, e.JudgeModel,
			e.InputDigest, input, string(e.Policy), string(e.Result))
	}
	if _, err := s.txExec(ctx, tx, s.insertSQL("evaluations", evaluationColumns, 11, len(evs)), args...); err != nil {
		return fmt.Errorf("storing %d evaluations (first %s): %w", len(evs), evs[0].ID, err)
	}
	return nil
}

func (s *sqlStore) GetEvaluation(ctx context.Context, id string) (Evaluation, error) {
	var (
		e              Evaluation
		at             int64
		input          sql.NullString
		policy, result string
	)
	err := s.queryRow(ctx, s.q(`SELECT id, tenant, subject, tool, created_at, metric_version,
		judge_model, input_digest, input, policy, result FROM evaluations WHERE id = ?`), id).
		Scan(&e.ID, &e.Tenant, &e.Subject, &e.Tool, &at, &e.MetricVersion, &e.JudgeModel, &e.InputDigest, &input, &policy, &result)
	if errors.Is(err, sql.ErrNoRows) {
		return Evaluation{}, ErrNotFound
	}
	if err != nil {
		return Evaluation{}, fmt.Errorf("reading evaluation %s: %w", id, err)
	}
	e.CreatedAt = fromMicros(at)
	if input.Valid {
		e.Input = []byte(input.String)
	}
	e.Policy, e.Result = []byte(policy), []byte(result)
	return e, nil
}

// PutHandle stores h on its own, outside any call record.
func (s *sqlStore) PutHandle(ctx context.Context, h Handle) error {
	return s.exec(ctx, func(tx *sql.Tx) error { return s.insertHandles(ctx, tx, []*Handle{&h}) })
}

// insertHandles inserts hs in one statement.
func (s *sqlStore) insertHandles(ctx context.Context, tx *sql.Tx, hs []*Handle) error {
	if len(hs) == 0 {
		return nil
	}
	args := make([]any, 0, len(hs)*7)
	for _, h := range hs {
		var revoked any
		if !h.RevokedAt.IsZero() {
			revoked = micros(h.RevokedAt)
		}
		args = append(args, h.Digest, h.EvaluationID, h.Tenant, h.Subject, micros(h.CreatedAt), micros(h.ExpiresAt), revoked)
	}
	if _, err := s.txExec(ctx, tx, s.insertSQL("handles", `digest, evaluation_id, tenant, subject, created_at, expires_at, revoked_at`, 7, len(hs)), args...); err != nil {
		return fmt.Errorf("storing %d handles: %w", len(hs), err)
	}
	return nil
}

func (s *sqlStore) GetHandle(ctx context.Context, digest string) (Handle, error) {
	var (
		h               Handle
		created, expire int64
		revoked         sql.NullInt64
	)
	err := s.queryRow(ctx, s.q(`SELECT digest, evaluation_id, tenant, subject, created_at, expires_at, revoked_at
		FROM handles WHERE digest = ?`), digest).
		Scan(&h.Digest, &h.EvaluationID, &h.Tenant, &h.Subject, &created, &expire, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return Handle{}, ErrNotFound
	}
	if err != nil {
		return Handle{}, fmt.Errorf("reading a handle: %w", err)
	}
	h.CreatedAt, h.ExpiresAt = fromMicros(created), fromMicros(expire)
	if revoked.Valid {
		h.RevokedAt = fromMicros(revoked.Int64)
	}
	return h, nil
}

func (s *sqlStore) RevokeHandle(ctx context.Context, digest string, at time.Time) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE handles SET revoked_at = COALESCE(revoked_at, ?) WHERE digest = ?`), micros(at), digest)
	if err != nil {
		return fmt.Errorf("revoking a handle: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *sqlStore) Policies(ctx context.Context, tenant string) ([]PolicyRow, error) {
	rows, err := s.query(ctx, s.q(`SELECT body, revision, updated_at FROM policies WHERE tenant = ? ORDER BY metric`), tenant)
	if err != nil {
		return nil, fmt.Errorf("reading the policies of tenant %q: %w", tenant, err)
	}
	defer func() { _ = rows.Close() }()
	var out []PolicyRow
	for rows.Next() {
		var (
			body string
			r    PolicyRow
			at   int64
		)
		if err := rows.Scan(&body, &r.Revision, &at); err != nil {
			return nil, fmt.Errorf("reading the policies of tenant %q: %w", tenant, err)
		}
		if err := json.Unmarshal([]byte(body), &r.Policy); err != nil {
			return nil, fmt.Errorf("decoding a stored policy of tenant %q: %w", tenant, err)
		}
		r.Tenant, r.At = tenant, fromMicros(at)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the policies of tenant %q: %w", tenant, err)
	}
	return out, nil
}

// sqlTx is the Tx an effect writes through.
type sqlTx struct {
	s  *sqlStore
	tx *sql.Tx
}

// Append links e to the head inside the effect's transaction.
func (t *sqlTx) Append(ctx context.Context, e audit.Entry) (audit.Record, error) {
	recs, err := t.s.appendTx(ctx, t.tx, []audit.Entry{e})
	if err != nil {
		return audit.Record{}, err
	}
	return recs[0], nil
}

func (t *sqlTx) PutPolicy(ctx context.Context, tenant string, p eval.MetricPolicy) (int64, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return 0, fmt.Errorf("encoding the policy: %w", err)
	}
	var rev int64
	err = t.tx.QueryRowContext(ctx, t.s.q(`INSERT INTO policies (tenant, metric, body, revision, updated_at)
		VALUES (?, ?, ?, 1, ?)
		ON CONFLICT (tenant, metric) DO UPDATE SET body = excluded.body, revision = policies.revision + 1,
			updated_at = excluded.updated_at
		RETURNING revision`), tenant, p.Metric, string(body), micros(time.Now())).Scan(&rev)
	if err != nil {
		return 0, fmt.Errorf("writing the %s policy of tenant %q: %w", p.Metric, tenant, err)
	}
	return rev, nil
}
