package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/eval"
)

func callRecord(i int) CallRecord {
	id := fmt.Sprintf("ev_%04d", i)
	at := time.Now().UTC()
	return CallRecord{
		Audit:      audit.Entry{At: at, Tenant: "t", Subject: "s", Tool: "flag_injection", ArgsDigest: "d", Outcome: "ok", DecidedBy: "heuristic", RequestID: id},
		Evaluation: &Evaluation{ID: id, Tenant: "t", Subject: "s", Tool: "flag_injection", CreatedAt: at, MetricVersion: "v", JudgeModel: "none", InputDigest: "x", Policy: []byte(`{}`), Result: []byte(`{}`)},
		Handle:     &Handle{Digest: "h" + id, EvaluationID: id, Tenant: "t", Subject: "s", CreatedAt: at, ExpiresAt: at.Add(time.Hour)},
	}
}

// Many concurrent commits on two stores sharing one database: every one acknowledged has its
// evaluation, its handle and its audit row (naming it), and the chain is one signed line.
func TestConcurrentCommitsLeaveEveryRecordWhole(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		key, err := audit.GenerateSigner()
		if err != nil {
			t.Fatal(err)
		}
		stores := []*sqlStore{openSigned(t, b, key), openSigned(t, b, key)}
		ctx := testCtx(t)
		const n = 200
		var wg sync.WaitGroup
		recs := make([]audit.Record, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() { recs[i], errs[i] = stores[i%2].Commit(ctx, callRecord(i)) })
		}
		wg.Wait()
		seqs := map[int64]bool{}
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("commit %d: %v", i, errs[i])
			}
			seqs[recs[i].Seq] = true
			if recs[i].Entry.RequestID != fmt.Sprintf("ev_%04d", i) || recs[i].Sig == "" {
				t.Fatalf("commit %d returned %+v", i, recs[i])
			}
			if _, err := stores[0].GetEvaluation(ctx, recs[i].Entry.RequestID); err != nil {
				t.Fatalf("commit %d's evaluation: %v", i, err)
			}
			if _, err := stores[1].GetHandle(ctx, "h"+recs[i].Entry.RequestID); err != nil {
				t.Fatalf("commit %d's handle: %v", i, err)
			}
		}
		if len(seqs) != n {
			t.Fatalf("%d distinct sequences for %d commits", len(seqs), n)
		}
		keys := audit.Keys{}
		keys.Add(key.Public())
		rep, err := VerifyChain(ctx, stores[0], keys, nil)
		if err != nil || rep.Break != nil || rep.Entries != n {
			t.Fatalf("VerifyChain = %+v, %v", rep, err)
		}
	})
}

// Regression: an evaluation, its handle and its audit row were three transactions, so a failure
// between them (47 times during one PostgreSQL restart) left evaluations stored for calls never
// acknowledged and never audited. A record that cannot be written whole is not written at all.
func TestACallRecordCommitsWholeOrNotAtAll(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		if _, err := st.Commit(ctx, callRecord(1)); err != nil {
			t.Fatal(err)
		}
		// The same evaluation id again: the audit insert would succeed, the evaluation's fails.
		bad := callRecord(1)
		bad.Handle.Digest = "another"
		if _, err := st.Commit(ctx, bad); err == nil {
			t.Fatal("a record whose evaluation cannot be stored committed")
		}
		if _, err := st.GetHandle(ctx, "another"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("the failed record's handle was stored: %v", err)
		}
		if rep, _ := VerifyChain(ctx, st, nil, nil); rep.Entries != 1 {
			t.Fatalf("the failed record left %d audit rows, want the first call's 1", rep.Entries)
		}
		// A bad record among good ones fails alone.
		var wg sync.WaitGroup
		errs := make([]error, 20)
		for i := range 20 {
			wg.Go(func() {
				r := callRecord(100 + i)
				if i == 7 {
					r = bad
				}
				_, errs[i] = st.Commit(ctx, r)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if (err != nil) != (i == 7) {
				t.Errorf("commit %d: %v", i, err)
			}
		}
		if rep, _ := VerifyChain(ctx, st, nil, nil); rep.Entries != 20 || rep.Break != nil {
			t.Fatalf("%d audit rows after 19 good commits and the first, want 20: %+v", rep.Entries, rep)
		}
	})
}

func TestCommitAfterCloseSaysSo(t *testing.T) {
	st := openStore(t, backend{name: DialectSQLite, dsn: t.TempDir() + "/b.db"})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(context.Background(), callRecord(1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Commit after Close = %v, want ErrClosed", err)
	}
}

func TestOnceRefusesAKeyReusedForAnotherRequest(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		write := func(fp string) ([]byte, bool, error) {
			return st.Once(ctx, "k", "t", "set_metric_policy", fp, func(ctx context.Context, tx Tx) ([]byte, error) {
				if _, err := tx.PutPolicy(ctx, "t", eval.MetricPolicy{Metric: "flag_injection", Enabled: true, Threshold: 0.5, OnTimeout: eval.FailOpen}); err != nil {
					return nil, err
				}
				if _, err := tx.Append(ctx, audit.Entry{At: time.Now(), Tenant: "t", Tool: "set_metric_policy", Outcome: "ok", Detail: fp}); err != nil {
					return nil, err
				}
				return []byte(fp), nil
			})
		}
		if out, rep, err := write("args-a"); err != nil || rep || string(out) != "args-a" {
			t.Fatalf("first write = %s, %v, %v", out, rep, err)
		}
		if out, rep, err := write("args-a"); err != nil || !rep || string(out) != "args-a" {
			t.Fatalf("retry = %s, %v, %v; want a replay", out, rep, err)
		}
		if _, _, err := write("args-b"); !errors.Is(err, ErrKeyReused) {
			t.Fatalf("the key for another request = %v, want ErrKeyReused", err)
		}
		if out, ok, err := st.Recorded(ctx, "k", "t", "set_metric_policy"); err != nil || !ok || string(out) != "args-a" {
			t.Fatalf("Recorded = %s, %v, %v", out, ok, err)
		}
		if _, ok, err := st.Recorded(ctx, "nope", "t", "set_metric_policy"); err != nil || ok {
			t.Fatalf("Recorded(unknown) = %v, %v", ok, err)
		}
		// The effect's audit row committed with it: exactly one, recording the value.
		var details []string
		_ = st.Walk(ctx, func(r audit.Record) error { details = append(details, r.Entry.Detail); return nil })
		if len(details) != 1 || details[0] != "args-a" {
			t.Fatalf("audit rows after one write and two refusals = %v, want [args-a]", details)
		}
	})
}

func TestCheckpointsRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		ctx := testCtx(t)
		if h, err := st.Head(ctx); err != nil || h.Seq != 0 || h.Hash != audit.Genesis {
			t.Fatalf("Head of an empty log = %+v, %v", h, err)
		}
		r, err := st.Append(ctx, audit.Entry{At: time.Now(), Tenant: "t", Tool: "x", Outcome: "ok"})
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := st.Head(ctx); h.Seq != 1 || h.Hash != r.Hash {
			t.Fatalf("Head = %+v, want %d %s", h, r.Seq, r.Hash)
		}
		key, _ := audit.GenerateSigner()
		cp := key.SignCheckpoint(audit.Checkpoint{Seq: 1, Hash: r.Hash, At: 42})
		if err := st.PutCheckpoint(ctx, cp); err != nil {
			t.Fatal(err)
		}
		got, err := st.Checkpoints(ctx)
		if err != nil || len(got) != 1 || got[0] != cp {
			t.Fatalf("Checkpoints = %+v, %v; want [%+v]", got, err, cp)
		}
	})
}

func openSigned(t *testing.T, b backend, key *audit.Signer) *sqlStore {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	st, err := Open(ctx, b.dsn, WithSigner(key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st.(*sqlStore)
}
