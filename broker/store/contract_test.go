package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/internal/pgtest"
)

// backend opens stores on one database: twice for the same DSN means two "broker processes"
// sharing it (two pools in PostgreSQL, two connections to the file in SQLite).
type backend struct {
	name string
	dsn  string
}

// eachBackend runs fn against a fresh SQLite file and a fresh throwaway PostgreSQL cluster. The
// PostgreSQL half fails, never skips, when the server binaries are missing.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		fn(t, backend{name: DialectSQLite, dsn: filepath.Join(t.TempDir(), "broker.db")})
	})
	t.Run("postgres", func(t *testing.T) {
		c := pgtest.Start(t)
		fn(t, backend{name: DialectPostgres, dsn: c.DSN})
	})
}

func openStore(t testing.TB, b backend) *sqlStore {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	st, err := Open(ctx, b.dsn)
	if err != nil {
		t.Fatalf("Open(%s) = %v", b.name, err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("Migrate(%s) = %v", b.name, err)
	}
	return st.(*sqlStore)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestMigrateIsIdempotentAndRecordsVersion(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("second Migrate = %v", err)
		}
		v, err := Version(ctx, st)
		if err != nil || v != SchemaVersion {
			t.Fatalf("Version = %d, %v; want %d", v, err, SchemaVersion)
		}
	})
}

func TestEvaluationRoundTripKeepsPayloadOnlyWhenGiven(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		at := time.Date(2026, 7, 28, 1, 2, 3, 456789000, time.UTC)
		for _, e := range []Evaluation{
			{ID: "ev1", Tenant: "t", Subject: "s", Tool: "flag_injection", CreatedAt: at, MetricVersion: "inj-1", JudgeModel: "none",
				InputDigest: "d1", Input: []byte(`{"response":"hi"}`), Policy: []byte(`{}`), Result: []byte(`{"action":"allow"}`)},
			{ID: "ev2", Tenant: "t", Subject: "s", Tool: "check_groundedness", CreatedAt: at, MetricVersion: "gr-1", JudgeModel: "m",
				InputDigest: "d2", Policy: []byte(`{}`), Result: []byte(`{"action":"warn"}`)},
		} {
			if err := st.PutEvaluation(ctx, e); err != nil {
				t.Fatalf("PutEvaluation(%s) = %v", e.ID, err)
			}
			got, err := st.GetEvaluation(ctx, e.ID)
			if err != nil {
				t.Fatalf("GetEvaluation(%s) = %v", e.ID, err)
			}
			if !got.CreatedAt.Equal(at) || string(got.Result) != string(e.Result) || (got.Input == nil) != (e.Input == nil) ||
				got.MetricVersion != e.MetricVersion || got.JudgeModel != e.JudgeModel {
				t.Fatalf("GetEvaluation(%s) = %+v, want %+v", e.ID, got, e)
			}
		}
		if err := st.PutEvaluation(ctx, Evaluation{ID: "ev1", Policy: []byte(`{}`), Result: []byte(`{}`)}); err == nil {
			t.Fatal("PutEvaluation with a reused id = nil, want an error")
		}
		if _, err := st.GetEvaluation(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("GetEvaluation(unknown) = %v, want ErrNotFound", err)
		}
	})
}

func TestHandleRevocationKeepsFirstTime(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		now := time.Now().UTC().Truncate(time.Microsecond)
		if err := st.PutEvaluation(ctx, Evaluation{ID: "ev", Tenant: "t", Policy: []byte(`{}`), Result: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if err := st.PutHandle(ctx, Handle{Digest: "hd", EvaluationID: "ev", Tenant: "t", Subject: "s", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
			t.Fatalf("PutHandle = %v", err)
		}
		if err := st.PutHandle(ctx, Handle{Digest: "orphan", EvaluationID: "missing", Tenant: "t", CreatedAt: now, ExpiresAt: now}); err == nil {
			t.Fatal("PutHandle for a missing evaluation = nil, want a foreign-key error")
		}
		h, err := st.GetHandle(ctx, "hd")
		if err != nil || !h.RevokedAt.IsZero() || !h.ExpiresAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("GetHandle = %+v, %v", h, err)
		}
		if err := st.RevokeHandle(ctx, "hd", now.Add(time.Minute)); err != nil {
			t.Fatalf("RevokeHandle = %v", err)
		}
		if err := st.RevokeHandle(ctx, "hd", now.Add(2*time.Minute)); err != nil {
			t.Fatalf("second RevokeHandle = %v", err)
		}
		h, _ = st.GetHandle(ctx, "hd")
		if !h.RevokedAt.Equal(now.Add(time.Minute)) {
			t.Fatalf("RevokedAt = %v, want the first revocation %v", h.RevokedAt, now.Add(time.Minute))
		}
		if err := st.RevokeHandle(ctx, "unknown", now); !errors.Is(err, ErrNotFound) {
			t.Fatalf("RevokeHandle(unknown) = %v, want ErrNotFound", err)
		}
	})
}

func TestOnceRunsTheEffectOnceUnderConcurrentDuplicates(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		// Two stores on one database stand for two broker processes.
		stores := []*sqlStore{openStore(t, b), openStore(t, b)}
		ctx := testCtx(t)
		var calls atomic.Int64
		effect := func(ctx context.Context, tx Tx) ([]byte, error) {
			calls.Add(1)
			rev, err := tx.PutPolicy(ctx, "t", eval.MetricPolicy{Metric: "flag_injection", Enabled: true, Threshold: 0.7, OnTimeout: eval.FailClosed})
			if err != nil {
				return nil, err
			}
			return fmt.Appendf(nil, `{"revision":%d}`, rev), nil
		}
		const n = 100
		var (
			wg       sync.WaitGroup
			replayed atomic.Int64
			results  = make([]string, n)
			errs     = make([]error, n)
		)
		for i := range n {
			wg.Go(func() {
				out, rep, err := stores[i%2].Once(ctx, "key-1", "t", "set_metric_policy", "", effect)
				results[i], errs[i] = string(out), err
				if rep {
					replayed.Add(1)
				}
			})
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("call %d: %v", i, errs[i])
			}
			if results[i] != results[0] {
				t.Fatalf("call %d got %q, call 0 got %q: a replay must be verbatim", i, results[i], results[0])
			}
		}
		rows, err := stores[0].Policies(ctx, "t")
		if err != nil || len(rows) != 1 {
			t.Fatalf("Policies = %v, %v", rows, err)
		}
		if rows[0].Revision != 1 || calls.Load() != 1 || replayed.Load() != n-1 {
			t.Fatalf("revision %d, effect ran %d times, %d replays; want 1, 1, %d", rows[0].Revision, calls.Load(), replayed.Load(), n-1)
		}
		if _, _, err := stores[0].Once(ctx, "key-1", "other", "set_metric_policy", "", effect); !errors.Is(err, ErrKeyInUse) {
			t.Fatalf("Once with another tenant's key = %v, want ErrKeyInUse", err)
		}
	})
}

func TestOnceLeavesTheKeyFreeWhenTheEffectFails(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		boom := errors.New("boom")
		_, _, err := st.Once(ctx, "k", "t", "set_metric_policy", "", func(ctx context.Context, tx Tx) ([]byte, error) {
			if _, err := tx.PutPolicy(ctx, "t", eval.MetricPolicy{Metric: "m"}); err != nil {
				return nil, err
			}
			return nil, boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Once = %v, want boom", err)
		}
		if rows, _ := st.Policies(ctx, "t"); len(rows) != 0 {
			t.Fatalf("a failed effect left %d policy rows", len(rows))
		}
		out, rep, err := st.Once(ctx, "k", "t", "set_metric_policy", "", func(context.Context, Tx) ([]byte, error) { return []byte("ok"), nil })
		if err != nil || rep || string(out) != "ok" {
			t.Fatalf("retry after failure = %q, %v, %v; want ok, fresh", out, rep, err)
		}
	})
}

func TestAuditAppendsNeverForkUnderConcurrency(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		stores := []*sqlStore{openStore(t, b), openStore(t, b)}
		ctx := testCtx(t)
		const n = 60
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				_, errs[i] = stores[i%2].Append(ctx, audit.Entry{At: time.Now(), Tenant: "t", Subject: "s", Tool: "flag_injection", ArgsDigest: fmt.Sprint(i), Outcome: "ok"})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("append %d: %v", i, err)
			}
		}
		rep, err := VerifyChain(ctx, stores[0], nil, nil)
		if err != nil || rep.Break != nil || rep.Entries != n {
			t.Fatalf("VerifyChain = %+v, %v; want %d intact entries", rep, err, n)
		}
	})
}

func TestAuditLogRefusesUpdateAndDelete(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		if _, err := st.Append(ctx, audit.Entry{At: time.Now(), Tenant: "t", Tool: "x", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
		if err := st.PutCheckpoint(ctx, audit.Checkpoint{Seq: 1, Hash: "h", At: 1, KeyID: "k", Sig: "s"}); err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{`UPDATE audit_log SET outcome = 'error'`, `DELETE FROM audit_log`,
			`UPDATE audit_checkpoints SET seq = 9`, `DELETE FROM audit_checkpoints`} {
			if _, err := st.db.ExecContext(ctx, stmt); err == nil {
				t.Errorf("%s succeeded; the database must refuse it", stmt)
			}
		}
		rep, err := VerifyChain(ctx, st, nil, nil)
		if err != nil || rep.Break != nil || rep.Entries != 1 {
			t.Fatalf("after refused edits VerifyChain = %+v, %v", rep, err)
		}
	})
}

func TestStoreStoresPoliciesAsJSON(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		want := eval.MetricPolicy{Metric: "check_groundedness", Enabled: true, Threshold: 0.25, OnTimeout: eval.FailOpen, MaxJudgeLatencyMs: 300}
		for i := range 2 {
			out, _, err := st.Once(ctx, fmt.Sprint("k", i), "t", "set_metric_policy", "", func(ctx context.Context, tx Tx) ([]byte, error) {
				rev, err := tx.PutPolicy(ctx, "t", want)
				if err != nil {
					return nil, err
				}
				return json.Marshal(rev)
			})
			if err != nil || string(out) != fmt.Sprint(i+1) {
				t.Fatalf("write %d = %s, %v", i, out, err)
			}
		}
		rows, err := st.Policies(ctx, "t")
		if err != nil || len(rows) != 1 || rows[0].Policy != want || rows[0].Revision != 2 {
			t.Fatalf("Policies = %+v, %v", rows, err)
		}
	})
}
