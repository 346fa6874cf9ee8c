package findings

import (
	"fmt"
	"path/filepath"
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
