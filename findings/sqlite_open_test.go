package findings

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSQLiteStoresOpenTogetherOnAFreshFile: proxies started together open one fresh SQLite file at
// the same moment. Switching a new file to WAL takes a write lock, so the busy timeout must be in
// force before journal_mode is set; with the pragmas the other way round, one Open in a few dozen
// failed at once with SQLITE_BUSY (seen in TestConcurrentWritersShareOneStore on CI).
func TestSQLiteStoresOpenTogetherOnAFreshFile(t *testing.T) {
	const rounds, together = 30, 4
	for r := range rounds {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("fresh-%d.db", r))
		var wg sync.WaitGroup
		errs := make([]error, together)
		stores := make([]Store, together)
		for i := range together {
			wg.Go(func() { stores[i], errs[i] = Open(t.Context(), path, nil) })
		}
		wg.Wait()
		for i := range together {
			if errs[i] != nil {
				t.Fatalf("round %d: Open #%d of %d at once = %v", r, i, together, errs[i])
			}
			_ = stores[i].Close()
		}
	}
}

// TestSQLiteFileLayout: a new findings file gets 64 KiB pages and WAL (sqliteLayout), a file made
// before keeps its page size and still opens in WAL, both with the capped page cache
// (sqliteCachePages), and a "file:" DSN keeps its own pragmas.
func TestSQLiteFileLayout(t *testing.T) {
	layout := func(t *testing.T, dsn string) (int, string) {
		t.Helper()
		s, err := Open(t.Context(), dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		db := s.(*sqlStore).db
		var size, cache int
		var mode string
		if err := db.QueryRowContext(t.Context(), "PRAGMA page_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if want := sqliteCachePages; !strings.HasPrefix(dsn, "file:") && cache != want {
			t.Errorf("%s: cache_size %d, want %d pages", dsn, cache, want)
		}
		if err := db.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		return size, mode
	}
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.db")
	if size, mode := layout(t, fresh); size != sqlitePageSize || mode != "wal" {
		t.Errorf("new file: page size %d, journal %q; want %d, wal", size, mode, sqlitePageSize)
	}
	if size, mode := layout(t, fresh); size != sqlitePageSize || mode != "wal" {
		t.Errorf("reopened: page size %d, journal %q; want %d, wal", size, mode, sqlitePageSize)
	}
	old := filepath.Join(dir, "old.db")
	if size, _ := layout(t, "file:"+old+"?_pragma=busy_timeout(5000)"); size != 4096 {
		t.Errorf("file: DSN: page size %d, want the default 4096", size)
	}
	if size, mode := layout(t, old); size != 4096 || mode != "wal" {
		t.Errorf("file made before: page size %d, journal %q; want 4096 kept, wal", size, mode)
	}
}

// TestOpenRefusesAFileThatIsNotADatabase: SQLite takes a file shorter than its header for an
// empty database and writes one over it, so `sentinel proxy --db notes.txt` would have cost the
// operator notes.txt (it did: a 1-byte file became a 448 KiB database). The store refuses it,
// by path or file: URI, and leaves it byte for byte as it was.
func TestOpenRefusesAFileThatIsNotADatabase(t *testing.T) {
	for _, content := range []string{"x", "remember the milk\n"} {
		for _, asURI := range []bool{false, true} {
			path := filepath.Join(t.TempDir(), "notes.txt")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			dsn := path
			if asURI {
				dsn = "file:" + path + "?_pragma=busy_timeout(5000)"
			}
			s, err := Open(t.Context(), dsn, nil)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open(%q holding %q) succeeded, want a refusal", dsn, content)
			}
			if !strings.Contains(err.Error(), "is not a SQLite database") {
				t.Errorf("Open(%q) = %v, want it to say the file is not a SQLite database", dsn, err)
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Errorf("the file now holds %q, want %q untouched", got, content)
			}
		}
	}
}
