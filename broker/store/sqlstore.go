package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
)

// sqlStore implements Store over database/sql for both dialects; the few statements that differ
// branch on dialect.
type sqlStore struct {
	// db writes (SQLite: the one writer connection); rdb reads (SQLite: a pool of read-only
	// connections, which WAL lets run beside the writer; PostgreSQL: the same pool as db).
	db      *sql.DB
	rdb     *sql.DB
	dialect string
	closeFn func()
	// signer signs every audit row; nil leaves rows unsigned (WithSigner).
	signer  *audit.Signer
	commit  *committer
	stmts   sync.Map // query -> *sql.Stmt on db (prepared.go)
	rstmts  sync.Map // query -> *sql.Stmt on rdb
	pending sync.Map // queries to prepare after the transaction that used them
}

// Option configures Open.
type Option func(*sqlStore)

// WithSigner signs every audit row the store appends with s, a key the database never holds.
func WithSigner(s *audit.Signer) Option { return func(st *sqlStore) { st.signer = s } }

var _ Store = (*sqlStore)(nil)

// auditLockKey is the PostgreSQL advisory-lock key that serialises audit appends across replicas.
const auditLockKey = 0x5e471e1a

// migrateLockKey serialises replicas migrating at start.
const migrateLockKey = 0x5e471e1b

func (s *sqlStore) Dialect() string { return s.dialect }

func (s *sqlStore) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("pinging the %s store: %w", s.dialect, err)
	}
	return nil
}

func (s *sqlStore) Close() error {
	s.commit.stop()
	s.closeStatements()
	err := s.db.Close()
	if s.closeFn != nil {
		s.closeFn()
	}
	return err
}

// q rewrites ? placeholders to $n for PostgreSQL.
func (s *sqlStore) q(query string) string {
	if s.dialect != DialectPostgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

// Migrate applies every migration newer than the database's version. On an up-to-date database it
// only reads, so a role without DDL rights (broker_app) can run it at start.
func (s *sqlStore) Migrate(ctx context.Context) error {
	if v, err := s.version(ctx); err == nil && v >= SchemaVersion {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrating the %s store: %w", s.dialect, err)
	}
	defer func() { _ = tx.Rollback() }()
	if s.dialect == DialectPostgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockKey); err != nil {
			return fmt.Errorf("migrating: taking the migration lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("migrating: creating schema_migrations: %w", err)
	}
	var cur sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&cur); err != nil {
		return fmt.Errorf("migrating: reading the schema version: %w", err)
	}
	for _, m := range migrations {
		if int64(m.version) <= cur.Int64 {
			continue
		}
		stmts := m.sqlite
		if s.dialect == DialectPostgres {
			stmts = m.postgres
		}
		for _, st := range stmts {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("migrating to version %d: %w", m.version, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), m.version, micros(time.Now())); err != nil {
			return fmt.Errorf("migrating: recording version %d: %w", m.version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating the %s store: committing: %w", s.dialect, err)
	}
	return nil
}

func (s *sqlStore) version(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, err
	}
	return int(v.Int64), nil
}

// Version reports the schema version of the database behind st (0 when never migrated).
func Version(ctx context.Context, st Store) (int, error) {
	s, ok := st.(*sqlStore)
	if !ok {
		return 0, errors.New("reading the schema version: not a SQL store")
	}
	v, err := s.version(ctx)
	if err != nil {
		return 0, nil //nolint:nilerr // no schema_migrations table means version 0
	}
	return v, nil
}
