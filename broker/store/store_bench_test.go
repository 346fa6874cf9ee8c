package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/internal/pgtest"
)

// benchStores opens a migrated store per dialect for a benchmark.
func benchStores(b *testing.B, fn func(b *testing.B, st *sqlStore)) {
	b.Run("sqlite", func(b *testing.B) {
		fn(b, openStore(b, backend{name: DialectSQLite, dsn: filepath.Join(b.TempDir(), "b.db")}))
	})
	b.Run("postgres", func(b *testing.B) {
		c := pgtest.Start(b)
		fn(b, openStore(b, backend{name: DialectPostgres, dsn: c.DSN}))
	})
}

// BenchmarkAppend is one serialised, hash-chained audit append.
func BenchmarkAppend(b *testing.B) {
	benchStores(b, func(b *testing.B, st *sqlStore) {
		b.ReportAllocs()
		ctx := context.Background()
		e := audit.Entry{At: time.Now(), Tenant: "acme", Subject: "alice", Tool: "flag_injection", ArgsDigest: audit.Genesis, Outcome: "ok"}
		for b.Loop() {
			if _, err := st.Append(ctx, e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOnce is one exactly-once policy write (claim, write, record, commit).
func BenchmarkOnce(b *testing.B) {
	benchStores(b, func(b *testing.B, st *sqlStore) {
		b.ReportAllocs()
		ctx := context.Background()
		i := 0
		for b.Loop() {
			i++
			_, _, err := st.Once(ctx, fmt.Sprint("k", i), "acme", "set_metric_policy", "", func(ctx context.Context, tx Tx) ([]byte, error) {
				_, err := tx.PutPolicy(ctx, "acme", eval.MetricPolicy{Metric: "flag_injection", Enabled: true, Threshold: 0.5, OnTimeout: eval.FailOpen})
				return []byte(`{}`), err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
