package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSQLiteStoresOpenTogetherOnAFreshFile: broker replicas started together on one fresh SQLite
// file each Open and Migrate it at the same moment. Switching a new file to WAL takes a write
// lock; without the busy timeout in force first, and a bounded retry for the connection that
// still loses the race, one Open in a few dozen failed at once with SQLITE_BUSY (the same race
// the findings store had).
func TestSQLiteStoresOpenTogetherOnAFreshFile(t *testing.T) {
	const rounds, together = 30, 4
	for r := range rounds {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("fresh-%d.db", r))
		var wg sync.WaitGroup
		errs := make([]error, together)
		stores := make([]Store, together)
		for i := range together {
			wg.Go(func() {
				stores[i], errs[i] = Open(t.Context(), path)
				if errs[i] == nil {
					errs[i] = stores[i].Migrate(t.Context())
				}
			})
		}
		wg.Wait()
		for i := range together {
			if stores[i] != nil {
				_ = stores[i].Close()
			}
			if errs[i] != nil {
				t.Fatalf("round %d: Open and Migrate #%d of %d at once = %v", r, i, together, errs[i])
			}
		}
	}
}

// TestOpenRefusesAFileThatIsNotADatabase: SQLite takes a file shorter than its header for an
// empty database and writes one over it, so `--db notes.txt` would have cost the operator
// notes.txt. The store refuses it and leaves it byte for byte as it was.
func TestOpenRefusesAFileThatIsNotADatabase(t *testing.T) {
	for _, content := range []string{"x", "remember the milk\n"} {
		path := filepath.Join(t.TempDir(), "notes.txt")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(t.Context(), path)
		if err == nil {
			_ = s.Close()
			t.Fatalf("Open(%q holding %q) succeeded, want a refusal", path, content)
		}
		if !strings.Contains(err.Error(), "is not a SQLite database") {
			t.Errorf("Open = %v, want it to say the file is not a SQLite database", err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("the file now holds %q, want %q untouched", got, content)
		}
	}
}
