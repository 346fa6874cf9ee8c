package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Prepared statements: the hot queries (a tenant's policies on every evaluation, the audit head and
// the multi-row inserts of every commit) are prepared once per store, not parsed again on every
// call. database/sql prepares a statement on each pooled connection as it is first used there and
// again after a reconnect, so a restarted database needs nothing of the store.

// prepared returns query, prepared once on the writer. It needs a connection of its own, so
// inside a transaction use cached instead (SQLite has one writer connection, which the
// transaction holds).
func (s *sqlStore) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	return prepareOnce(ctx, s.db, &s.stmts, query)
}

func prepareOnce(ctx context.Context, db *sql.DB, cache *sync.Map, query string) (*sql.Stmt, error) {
	if st, ok := cache.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("preparing a statement: %w", err)
	}
	if prev, loaded := cache.LoadOrStore(query, st); loaded {
		_ = st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// cached returns query's statement when it was prepared before; otherwise it notes query for
// warm to prepare once the transaction is over, and returns nil.
func (s *sqlStore) cached(query string) *sql.Stmt {
	if st, ok := s.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	s.pending.Store(query, struct{}{})
	return nil
}

// warm prepares the queries transactions used unprepared (outside any transaction).
func (s *sqlStore) warm(ctx context.Context) {
	s.pending.Range(func(k, _ any) bool {
		s.pending.Delete(k)
		_, _ = s.prepared(ctx, k.(string))
		return true
	})
}

// txExec runs query in tx, prepared when it was before.
func (s *sqlStore) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.cached(query); st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// txQueryRow runs query in tx, prepared when it was before.
func (s *sqlStore) txQueryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st := s.cached(query); st != nil {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}

// query runs the prepared read query outside a transaction, on the readers.
func (s *sqlStore) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := prepareOnce(ctx, s.rdb, &s.rstmts, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// queryRow runs the prepared read query outside a transaction, on the readers; a failure to
// prepare surfaces from Scan.
func (s *sqlStore) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := prepareOnce(ctx, s.rdb, &s.rstmts, query)
	if err != nil {
		return s.rdb.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// closeStatements closes every prepared statement (at Close).
func (s *sqlStore) closeStatements() {
	for _, m := range []*sync.Map{&s.stmts, &s.rstmts} {
		m.Range(func(k, v any) bool {
			_ = v.(*sql.Stmt).Close()
			m.Delete(k)
			return true
		})
	}
}
