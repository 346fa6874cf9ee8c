package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mcp-sentinel/sentinel/internal/sqlitebusy"
	"github.com/mcp-sentinel/sentinel/internal/sqlitefile"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Dialect names.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// IsPostgres reports whether dsn names a PostgreSQL database: a postgres:// or postgresql:// URL,
// or a libpq key=value string (it contains "host=" or "dbname="). Everything else is a SQLite
// file path, optionally written sqlite://PATH.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") ||
		strings.Contains(dsn, "host=") || strings.Contains(dsn, "dbname=")
}

// Open connects to the database dsn names (see IsPostgres) without migrating it; call Migrate.
// A SQLite file and its folder are created when missing.
func Open(ctx context.Context, dsn string, opts ...Option) (Store, error) {
	if dsn == "" {
		return nil, fmt.Errorf("opening the broker store: empty --db (give a file path, sqlite://PATH or postgres://...)")
	}
	var (
		s   *sqlStore
		err error
	)
	if IsPostgres(dsn) {
		s, err = openPostgres(ctx, dsn)
	} else {
		s, err = openSQLite(ctx, strings.TrimPrefix(dsn, "sqlite://"))
	}
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(s)
	}
	s.commit = newCommitter(s)
	return s, nil
}

func openPostgres(ctx context.Context, dsn string) (*sqlStore, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("opening the broker store: parsing the PostgreSQL DSN: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the broker store: connecting to PostgreSQL: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	return &sqlStore{db: db, rdb: db, dialect: DialectPostgres, closeFn: pool.Close}, nil
}

// sqliteReaders is how many connections read a SQLite store while its one writer commits: in WAL
// mode readers do not wait for the writer, so a tenant's policies are read while the previous
// group of calls commits.
const sqliteReaders = 4

func openSQLite(ctx context.Context, path string) (*sqlStore, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("opening the broker store: creating %s: %w", dir, err)
		}
	}
	if err := sqlitefile.Check(path); err != nil {
		return nil, fmt.Errorf("opening the broker store: %w", err)
	}
	// immediate transactions take the write lock at BEGIN, so two processes sharing the file
	// serialise instead of failing at commit; busy_timeout makes the loser wait, not error. The
	// pragmas run in order on every new connection and busy_timeout comes first: switching a
	// fresh file to WAL takes a write lock, and a replica opening the file at the same moment
	// must already wait for it rather than fail.
	src := "file:" + path + "?_txlock=immediate&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)"
	db, err := sql.Open("sqlite", src)
	if err != nil {
		return nil, fmt.Errorf("opening the broker store %s: %w", path, err)
	}
	// One connection: SQLite has one writer anyway, and this makes every transaction in the
	// process strictly serial (the audit chain's append order among them).
	db.SetMaxOpenConns(1)
	if err := sqlitebusy.Retry(ctx, func() error { return db.PingContext(ctx) }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("opening the broker store %s: %w", path, err)
	}
	rdb, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)&_pragma=foreign_keys(ON)")
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("opening the broker store %s for reading: %w", path, err)
	}
	rdb.SetMaxOpenConns(sqliteReaders)
	return &sqlStore{db: db, rdb: rdb, dialect: DialectSQLite, closeFn: func() { _ = rdb.Close() }}, nil
}
