package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
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

// BenchmarkCommitParallel is the group commit under many concurrent callers: each op is one
// call's evaluation, handle and signed audit row, acknowledged after its transaction committed.
func BenchmarkCommitParallel(b *testing.B) {
	benchStores(b, func(b *testing.B, st *sqlStore) {
		key, err := audit.GenerateSigner()
		if err != nil {
			b.Fatal(err)
		}
		st.signer = key
		ctx := context.Background()
		var n atomic.Int64
		b.ReportAllocs()
		b.SetParallelism(32) // 64 callers on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := st.Commit(ctx, callRecord(int(n.Add(1)))); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}
