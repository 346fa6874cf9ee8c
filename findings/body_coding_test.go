package findings

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-sentinel/sentinel/internal/pgtest"
)

// storedBodies are bodies on each side of the compression threshold and of the stored-body cap,
// compressible and not, with a field the redactor removes.
func storedBodies(t *testing.T) map[string][]byte {
	t.Helper()
	noise := make([]byte, 48<<10)
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	json := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"content":[`)
		for i := 0; b.Len() < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"type":"text","text":"line of a tool's result, more or less like the one before"}`)
		}
		b.WriteString(`],"password":"hunter2"}}`)
		return b.Bytes()
	}
	return map[string][]byte{
		"empty":                  nil,
		"short json":             json(100),
		"just under the minimum": bytes.Repeat([]byte("y"), compressBodyMin-1),
		"at the minimum":         bytes.Repeat([]byte("y"), compressBodyMin),
		"json of 20 KiB":         json(20 << 10),
		"json past the cap":      json(DefaultMaxStoredBody + 5000),
		"incompressible":         []byte(base64.StdEncoding.EncodeToString(noise)),
		"binary noise":           noise,
		"one repeated byte":      bytes.Repeat([]byte("x"), 256<<10),
	}
}

// bodiesRoundTrip: whatever a body's coding in the store, Exchanges returns what a store that
// kept every body as it came would have returned (redacted, capped, cut to MaxBody, Truncated),
// and the larger compressible ones are stored smaller than that.
func bodiesRoundTrip(t *testing.T, s Store) {
	ctx := t.Context()
	ss := s.(*sqlStore)
	for name, body := range storedBodies(t) {
		id := "coding-" + strings.ReplaceAll(name, " ", "-")
		if err := s.RecordExchange(ctx, Exchange{ID: id, Target: "http://coding/" + id, Start: t0,
			RequestBody: body, ResponseBody: body, Graded: "graded"}); err != nil {
			t.Fatalf("%s: RecordExchange = %v", name, err)
		}
		want, cut := ss.body(body)
		for _, max := range []int{0, 100, ListBodyBytesForTest, 1 << 20} {
			got, err := s.Exchanges(ctx, Filter{Target: "http://coding/" + id, MaxBody: max})
			if err != nil || len(got) != 1 {
				t.Fatalf("%s, MaxBody %d: Exchanges = %d rows, %v", name, max, len(got), err)
			}
			w, wcut := want, cut
			if max > 0 && len(w) > max {
				w, wcut = w[:max], true
			}
			for side, b := range map[string][]byte{"request": got[0].RequestBody, "response": got[0].ResponseBody} {
				if !bytes.Equal(b, w) {
					t.Errorf("%s, MaxBody %d: %s body of %d bytes read back, want the %d stored", name, max, side, len(b), len(w))
				}
			}
			if got[0].Truncated != wcut {
				t.Errorf("%s, MaxBody %d: Truncated %v, want %v", name, max, got[0].Truncated, wcut)
			}
		}
		var stored sql.NullInt64
		if err := ss.db.QueryRowContext(ctx, ss.d.bind(`SELECT `+ss.d.length("request_body")+` FROM exchanges WHERE id = ?`), id).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		compressible := map[string]bool{"at the minimum": true, "json of 20 KiB": true, "json past the cap": true, "one repeated byte": true}[name]
		if n := int(stored.Int64); compressible && n >= len(want)/2 {
			t.Errorf("%s: %d bytes stored for a body of %d; want it compressed", name, n, len(want))
		} else if !compressible && n != len(want) {
			t.Errorf("%s: %d bytes stored for a body of %d; want it as it is", name, n, len(want))
		}
	}
}

// ListBodyBytesForTest is the cut an exchange listing asks for (proxy.ListBodyBytes).
const ListBodyBytesForTest = 16 << 10

// TestStoreMadeBeforeBodyCodingOpens: a store whose exchanges table predates body_coding gains the
// column on Open, its rows read back as they were stored, and new rows are compressed beside
// them. Both back ends.
func TestStoreMadeBeforeBodyCodingOpens(t *testing.T) {
	old := bytes.Repeat([]byte(`{"k":"an old uncompressed body"}`), 1000)
	dsns := map[string]string{"sqlite": filepath.Join(t.TempDir(), "old.db"), "postgres": pgtest.Start(t).DSN}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			s, err := Open(ctx, dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			ss := s.(*sqlStore)
			// Back to the table as it was: no body_coding, one row written then.
			mustExec(ctx, t, ss.db, `DROP TABLE exchanges`)
			mustExec(ctx, t, ss.db, `CREATE TABLE exchanges (
				id TEXT PRIMARY KEY, target TEXT NOT NULL, started BIGINT NOT NULL,
				duration_ns BIGINT NOT NULL, http_method TEXT NOT NULL, url TEXT NOT NULL,
				rpc_method TEXT NOT NULL, key TEXT NOT NULL, status INTEGER NOT NULL,
				request_header TEXT NOT NULL, request_body `+ss.d.blob+`,
				response_header TEXT NOT NULL, response_body `+ss.d.blob+`,
				truncated INTEGER NOT NULL, graded TEXT NOT NULL, error TEXT NOT NULL,
				findings INTEGER NOT NULL)`)
			mustExec(ctx, t, ss.db, ss.d.bind(`INSERT INTO exchanges VALUES ('old-1','http://old',1,0,'POST','u','','',200,'null',?,'null',?,0,'graded','',0)`), old, old)
			_ = s.Close()

			s, err = Open(ctx, dsn, nil)
			if err != nil {
				t.Fatalf("Open of a store made before body_coding = %v", err)
			}
			defer s.Close()
			if err := s.RecordExchange(ctx, Exchange{ID: "new-1", Target: "http://old", Start: t0, RequestBody: old, ResponseBody: old}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Exchanges(ctx, Filter{Target: "http://old"})
			if err != nil || len(got) != 2 {
				t.Fatalf("Exchanges = %d rows, %v; want 2", len(got), err)
			}
			for _, ex := range got {
				if !bytes.Equal(ex.RequestBody, old) || !bytes.Equal(ex.ResponseBody, old) {
					t.Errorf("%s: bodies of %d and %d bytes, want %d each", ex.ID, len(ex.RequestBody), len(ex.ResponseBody), len(old))
				}
			}
		})
	}
}

func mustExec(ctx context.Context, t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(ctx, q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestDecodeBodyRejectsDamage: a damaged compressed body is an error naming the exchange, never a
// panic or a huge allocation.
func TestDecodeBodyRejectsDamage(t *testing.T) {
	enc, buf, ok := compressBody(bytes.Repeat([]byte("abc"), 4000))
	if !ok {
		t.Fatal("a repetitive 12 KB body was not compressed")
	}
	good := append([]byte(nil), enc...)
	giveBackEncoded(buf)
	for name, b := range map[string][]byte{
		"cut":         good[:len(good)/2],
		"empty":       {},
		"huge length": {0xff, 0xff, 0xff, 0xff, 0x7f},
	} {
		if _, err := decodeBody("x-1", b); err == nil || !strings.Contains(err.Error(), "x-1") {
			t.Errorf("%s: decodeBody = %v, want an error naming the exchange", name, err)
		}
	}
}

// TestSQLiteStoresUpgradeTogether: proxies upgraded together open one file made before
// body_coding at the same moment; each must open (one adds the column, the others find it or
// retry on SQLITE_BUSY), and the column is there once.
func TestSQLiteStoresUpgradeTogether(t *testing.T) {
	const rounds, together = 10, 4
	for r := range rounds {
		path := filepath.Join(t.TempDir(), "old.db")
		s, err := Open(t.Context(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t.Context(), t, s.(*sqlStore).db, `ALTER TABLE exchanges DROP COLUMN body_coding`)
		_ = s.Close()
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
		}
		var n int
		if err := stores[0].(*sqlStore).db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pragma_table_info('exchanges') WHERE name = 'body_coding'`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("round %d: body_coding columns %d, %v; want 1", r, n, err)
		}
		for _, s := range stores {
			_ = s.Close()
		}
	}
}
