package findings

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/mcp-sentinel/sentinel/internal/sqlitebusy"
	"github.com/mcp-sentinel/sentinel/internal/sqlitefile"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// DefaultMaxStoredBody caps each stored body (64 KiB); the rest is dropped and Truncated set.
// Grading sees up to the proxy's own (larger) cap: this bound keeps the database small and the
// store cheap. SQLite writes every page of a body twice (to the WAL, then at the
// checkpoint), one system call each, so a stored 256 KiB body cost about 3 ms of the grading
// worker's time, ten times what grading it did, and a busy proxy's worker fell behind on storing,
// not grading (BenchmarkGradeOneExchange256KiB: 3-4x faster at this cap than at 256 KiB). 64 KiB
// holds the whole of most MCP messages and four times what an exchange listing inlines; of a
// longer body the store keeps a prefix, marked Truncated (the TUI says so before replaying it).
const DefaultMaxStoredBody = 64 << 10

// Options configures a store. A nil *Options means all defaults.
type Options struct {
	// RedactKeys are JSON field names removed from stored payloads on top of DefaultRedactKeys.
	RedactKeys []string
	// MaxStoredBody caps each stored body in bytes; 0 means DefaultMaxStoredBody, negative
	// means store no bodies at all.
	MaxStoredBody int
}

// Open opens (creating if needed) the store named by dsn: a postgres:// or postgresql:// URL
// (or a libpq "host=..." string) selects PostgreSQL, anything else is a SQLite file path.
func Open(ctx context.Context, dsn string, opts *Options) (Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	d := sqliteDialect
	driver, source := "sqlite", sqliteSource(dsn)
	if IsPostgres(dsn) {
		d, driver, source = postgresDialect, "pgx", dsn
	} else if err := sqlitefile.Check(sqlitePath(dsn)); err != nil {
		return nil, fmt.Errorf("opening the sqlite findings store: %w", err)
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, fmt.Errorf("opening the %s findings store: %w", d.name, err)
	}
	if d.name == "sqlite" {
		// One connection serialises writers, which SQLite needs anyway, and avoids SQLITE_BUSY.
		db.SetMaxOpenConns(1)
	}
	s := &sqlStore{db: db, d: d, redact: NewRedactor(opts.RedactKeys), maxBody: opts.MaxStoredBody,
		layout: d.name == "sqlite" && source != dsn}
	if s.maxBody == 0 {
		s.maxBody = DefaultMaxStoredBody
	}
	if err := s.migrateWhenFree(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if s.insFinding, err = db.PrepareContext(ctx, d.bind(insertFinding)); err == nil {
		s.insExchange, err = db.PrepareContext(ctx, d.bind(insertExchange))
	}
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("preparing the %s findings inserts: %w", d.name, err)
	}
	return s, nil
}

// sqlitePath is the file a SQLite DSN names: the path itself, or a file: URI's path before its
// query.
func sqlitePath(dsn string) string {
	if p, ok := strings.CutPrefix(dsn, "file:"); ok {
		p, _, _ = strings.Cut(p, "?")
		return p
	}
	return dsn
}

// IsPostgres reports whether dsn names a PostgreSQL database rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") ||
		strings.HasPrefix(dsn, "host=")
}

// sqliteSource is the DSN of a SQLite file path. The pragmas run on every new connection, and
// the busy timeout first: switching a fresh file to WAL takes a write lock, and without the
// timeout already set a second store opening the file at the same moment (proxies started
// together) failed at once with SQLITE_BUSY. The switch to WAL itself is not here but in
// migrate (sqliteLayout), after the page size: the driver runs DSN pragmas in alphabetical
// order, journal_mode before page_size, and a file in WAL mode keeps the page size it had.
// The page cache is capped at sqliteCachePages. A "file:" DSN is the caller's own and used as it
// is.
func sqliteSource(path string) string {
	if strings.HasPrefix(path, "file:") {
		return path
	}
	return "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=cache_size(" + strconv.Itoa(sqliteCachePages) +
		")&_pragma=synchronous(NORMAL)"
}

// sqliteCachePages caps the connection's page cache, in pages (8 MiB at 64 KiB pages, 512 KiB in
// a 4 KiB file made before). SQLite's default is 2000 KiB, counted in default 4 KiB pages when
// the pragma runs, before the file's page size is read: about 500 of our 64 KiB pages, 31 MiB the
// store kept resident, each page a fresh allocation that the pure-Go allocator maps afresh and
// that page-faults 16 times when SQLite zeroes it. That is a warm-up cost, paid while the cache
// fills (the first 30 MiB or so of stored bodies), not a cost per exchange: short benchmarks
// showed it (BenchmarkProxiedToolsCall256KiB at 2000 calls: 863 -> 763 cpu-µs/op, medians of 3;
// BenchmarkRecordBatchLargeBodies at 100 rounds: 127 -> 94 cpu-us/row), runs four times as long
// did not (8000 calls: 636-658 against 549-681; 400 rounds: 120-122 against 115-122). What stays
// is the memory: 8 MiB instead of 31. 16 to 128 pages cost the same CPU; a 4 KiB file is no
// slower at 128. The store's own reads (the admin API's listings) find the rest in the operating
// system's file cache.
const sqliteCachePages = 128

// sqlitePageSize is the page size of a new SQLite findings file (64 KiB, SQLite's largest; the
// default is 4 KiB). SQLite writes a changed page whole, to the WAL with a system call for the
// frame header and one for the page, and copies it at the checkpoint with a read and a write:
// a stored 64 KiB body was 16 pages, 48 system calls and most of what recording a 256 KiB
// exchange cost the grading worker; at 64 KiB it is two pages (BenchmarkRecordBatchLargeBodies:
// about half the time per batch). Small exchanges cost about the same either way. The page size
// of an existing file does not change.
const sqlitePageSize = 64 << 10

// sqliteLayout gives a new file its page size, then switches it to WAL (a no-op on a file in
// WAL already: the mode is kept in the file). WAL lets the admin API, the TUI and `sentinel
// findings` read while the proxy writes, and with synchronous=NORMAL a commit is durable against
// a crash of the process (kill -9) without an fsync per commit; a power loss may lose the last
// commits, never the database.
func sqliteLayout(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", sqlitePageSize)); err != nil {
		return fmt.Errorf("setting the sqlite findings store's page size: %w", err)
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return fmt.Errorf("switching the sqlite findings store to WAL: %w", err)
	}
	return nil
}

// dialect holds what differs between the two databases; queries are written with ? and rebound.
type dialect struct {
	name    string
	blob    string
	dollarN bool
}

var (
	sqliteDialect   = dialect{name: "sqlite", blob: "BLOB"}
	postgresDialect = dialect{name: "postgres", blob: "BYTEA", dollarN: true}
)

// prefix is an expression for the first n bytes of a blob column (SQLite's substr counts
// bytes on a BLOB; PostgreSQL's substring does on bytea).
func (d dialect) prefix(col string, n int) string {
	if d.dollarN {
		return fmt.Sprintf("substring(%s from 1 for %d)", col, n)
	}
	return fmt.Sprintf("substr(%s, 1, %d)", col, n)
}

// prefixUnless is prefix(col, n) for rows whose body_coding lacks bit, and the whole column
// for those that have it (a compressed body is cut once decoded).
func (d dialect) prefixUnless(col string, n, bit int) string {
	return fmt.Sprintf("CASE WHEN body_coding & %d = 0 THEN %s ELSE %s END", bit, d.prefix(col, n), col)
}

// length is an expression for the byte length of a blob column.
func (d dialect) length(col string) string {
	if d.dollarN {
		return "octet_length(" + col + ")"
	}
	return "length(" + col + ")"
}

// bind rewrites ? placeholders to $1, $2 ... for PostgreSQL.
func (d dialect) bind(q string) string {
	if !d.dollarN {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

type sqlStore struct {
	db *sql.DB
	// The two inserts every grading round runs, parsed once.
	insFinding, insExchange *sql.Stmt
	d                       dialect
	redact                  *Redactor
	maxBody                 int
	// layout is set when the store chose the SQLite file's pragmas (a plain path, not a
	// "file:" DSN): migrate then sets the page size and WAL (sqliteLayout).
	layout bool
}

var _ Store = (*sqlStore)(nil)

// migrateWhenFree runs migrate, retrying while SQLite answers SQLITE_BUSY (sqlitebusy.Retry): two
// stores opening one fresh file together (proxies started at once) race to switch it to WAL, and
// the loser's connection can fail before its busy timeout applies (one Open in a few dozen did, in
// TestSQLiteStoresOpenTogetherOnAFreshFile). PostgreSQL's errors are returned as they are.
func (s *sqlStore) migrateWhenFree(ctx context.Context) error {
	if s.d.name != "sqlite" {
		return s.migrate(ctx)
	}
	return sqlitebusy.Retry(ctx, func() error { return s.migrate(ctx) })
}

func (s *sqlStore) migrate(ctx context.Context) error {
	if s.layout {
		if err := sqliteLayout(ctx, s.db); err != nil {
			return err
		}
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS findings (
			target TEXT NOT NULL, rule_id TEXT NOT NULL, key TEXT NOT NULL,
			level TEXT NOT NULL, status TEXT NOT NULL, observed TEXT NOT NULL,
			remediation TEXT NOT NULL, spec_url TEXT NOT NULL, exchange_id TEXT NOT NULL,
			first_seen BIGINT NOT NULL, last_seen BIGINT NOT NULL, count BIGINT NOT NULL,
			PRIMARY KEY (target, rule_id, key))`,
		`CREATE INDEX IF NOT EXISTS findings_last_seen ON findings (last_seen)`,
		`CREATE TABLE IF NOT EXISTS exchanges (
			id TEXT PRIMARY KEY, target TEXT NOT NULL, started BIGINT NOT NULL,
			duration_ns BIGINT NOT NULL, http_method TEXT NOT NULL, url TEXT NOT NULL,
			rpc_method TEXT NOT NULL, key TEXT NOT NULL, status INTEGER NOT NULL,
			request_header TEXT NOT NULL, request_body ` + s.d.blob + `,
			response_header TEXT NOT NULL, response_body ` + s.d.blob + `,
			truncated INTEGER NOT NULL, graded TEXT NOT NULL, error TEXT NOT NULL,
			findings INTEGER NOT NULL, body_coding INTEGER NOT NULL DEFAULT 0)`,
		`CREATE INDEX IF NOT EXISTS exchanges_started ON exchanges (started)`,
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("opening the %s findings store: %w", s.d.name, err)
	}
	defer func() { _ = tx.Rollback() }()
	if s.d.dollarN {
		// Proxies starting together against one PostgreSQL store create the schema one at a time.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7306394519247431)`); err != nil {
			return fmt.Errorf("locking the postgres findings schema: %w", err)
		}
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("creating the %s findings schema: %w", s.d.name, err)
		}
	}
	if err := s.addBodyCoding(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("creating the %s findings schema: %w", s.d.name, err)
	}
	return nil
}

// addBodyCoding gives an exchanges table made before stored bodies were compressed its
// body_coding column (0, stored as they are, for every row it holds). PostgreSQL says IF NOT
// EXISTS itself; SQLite's ALTER TABLE cannot, so the table is asked first.
func (s *sqlStore) addBodyCoding(ctx context.Context, tx *sql.Tx) error {
	const add = `ALTER TABLE exchanges ADD COLUMN `
	const col = `body_coding INTEGER NOT NULL DEFAULT 0`
	q := add + "IF NOT EXISTS " + col
	if !s.d.dollarN {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info('exchanges') WHERE name = 'body_coding'`).Scan(&n); err != nil {
			return fmt.Errorf("reading the sqlite findings schema: %w", err)
		}
		if n > 0 {
			return nil
		}
		q = add + col
	}
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("adding body_coding to the %s findings store: %w", s.d.name, err)
	}
	return nil
}

// Close releases the statements and the database.
func (s *sqlStore) Close() error {
	_ = s.insFinding.Close()
	_ = s.insExchange.Close()
	return s.db.Close()
}

// Prune deletes rows older than before.
func (s *sqlStore) Prune(ctx context.Context, before time.Time) (int64, error) {
	cut := before.UnixMicro()
	var total int64
	for _, q := range []string{
		`DELETE FROM exchanges WHERE started < ?`,
		`DELETE FROM findings WHERE last_seen < ?`,
	} {
		res, err := s.db.ExecContext(ctx, s.d.bind(q), cut)
		if err != nil {
			return total, fmt.Errorf("pruning the findings store before %s: %w", before.Format(time.RFC3339), err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}

func limitOf(f Filter) int {
	switch {
	case f.Limit == 0:
		return DefaultLimit
	case f.Limit < 0:
		return -1
	}
	return f.Limit
}
