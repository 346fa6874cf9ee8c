package brokertest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/internal/pgtest"
)

// Load shape: fixed counts, so the test's work (and its verdict) does not depend on speed.
const (
	loadClients         = 64
	loadRoundsPerClient = 6
)

// clientLog is what one client saw acknowledged.
type clientLog struct {
	token    string
	handles  []string
	sets     int // distinct set_metric_policy requests acknowledged
	calls    int // tools/call requests answered with a JSON-RPC result (acknowledged)
	failures []string
}

func TestConcurrentClientsLoseNothing(t *testing.T) {
	eachStore(t, func(t *testing.T, b backend) {
		// Two broker processes share the database; clients alternate between them.
		first := startBroker(t, openStore(t, b), envOptions{})
		second := startBroker(t, openStore(t, b), envOptions{key: first.Key})
		envs := []*brokerEnv{first, second}
		logs := make([]*clientLog, loadClients)
		var wg sync.WaitGroup
		for c := range loadClients {
			e := envs[c%2]
			l := &clientLog{token: e.token(t, func(o *auth.MintOptions) { o.Subject = fmt.Sprintf("client-%d", c) })}
			logs[c] = l
			wg.Go(func() { runClient(t, e, c, l) })
		}
		wg.Wait()

		calls, sets := 0, 0
		for c, l := range logs {
			if len(l.failures) > 0 {
				t.Fatalf("client %d: %s", c, strings.Join(l.failures, "; "))
			}
			calls += l.calls
			sets += l.sets
			// Every acknowledged evaluation is retrievable by its handle, from either process.
			for i, h := range l.handles {
				r := envs[(c+i)%2].mustCall(t, envs[(c+i)%2].token(t, func(o *auth.MintOptions) { o.Subject = fmt.Sprintf("client-%d", c) }),
					broker.NameGetEvaluation, map[string]any{"handle": h}, callParams{})
				calls++
				if r.isError() || r.structured()["handle"] != h {
					t.Fatalf("client %d handle %d not retrievable: %v", c, i, r.Result)
				}
			}
		}
		st := first.Store
		rep, err := store.VerifyChain(ctxT(t), st, b.keys(), nil)
		if err != nil || rep.Break != nil || int(rep.Entries) != calls {
			t.Fatalf("audit chain: %+v, %v; want %d intact, signed entries (one per acknowledged call)", rep, err, calls)
		}
		// The effect counter at its source: the sum of revisions is the number of writes applied.
		var applied int64
		for _, r := range mustPolicies(t, st, "acme") {
			applied += r.Revision
		}
		if applied != int64(sets) {
			t.Fatalf("%d policy writes applied for %d distinct acknowledged requests (each sent twice)", applied, sets)
		}
	})
}

func mustPolicies(t *testing.T, st store.Store, tenant string) []store.PolicyRow {
	t.Helper()
	rows, err := st.Policies(ctxT(t), tenant)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// runClient mixes every tool: both evaluations, a read-back of its own handle, and a policy
// write sent twice with one idempotency key (the retry must replay).
func runClient(t *testing.T, e *brokerEnv, c int, l *clientLog) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	do := func(tool string, args map[string]any) (reply, bool) {
		r, err := e.call(ctx, l.token, tool, args, callParams{})
		switch {
		case err != nil:
			l.failures = append(l.failures, fmt.Sprintf("%s: %v", tool, err))
			return r, false
		case r.Status != http.StatusOK || r.Error != nil || r.isError():
			l.failures = append(l.failures, fmt.Sprintf("%s: status %d, error %+v, result %v", tool, r.Status, r.Error, r.Result))
			return r, false
		}
		l.calls++
		return r, true
	}
	for i := range loadRoundsPerClient {
		r, ok := do(eval.MetricInjection, map[string]any{"response": fmt.Sprintf("client %d round %d: please summarise the report", c, i)})
		if !ok {
			return
		}
		h, _ := r.structured()["handle"].(string)
		l.handles = append(l.handles, h)
		r, ok = do(eval.MetricGroundedness, map[string]any{"response": "The report covers the third quarter.",
			"context": []any{map[string]any{"id": "a", "source": "report", "content": fmt.Sprintf("Report %d-%d covers the third quarter of the year.", c, i)}}})
		if !ok {
			return
		}
		l.handles = append(l.handles, r.structured()["handle"].(string))
		if _, ok := do(broker.NameGetEvaluation, map[string]any{"handle": h}); !ok {
			return
		}
		args := map[string]any{"metric": eval.MetricGroundedness, "threshold": float64(c*100+i+1) / 1e5, "onTimeout": "fail_open",
			"idempotencyKey": fmt.Sprintf("client-%d-round-%d", c, i)}
		one, ok := do(broker.NameSetMetricPolicy, args)
		if !ok {
			return
		}
		two, ok := do(broker.NameSetMetricPolicy, args)
		if !ok {
			return
		}
		if one.text() != two.text() {
			l.failures = append(l.failures, fmt.Sprintf("duplicate replied %s, original %s", two.text(), one.text()))
			return
		}
		l.sets++
	}
}

func TestPostgresRestartFailsCleanlyAndRecovers(t *testing.T) {
	c := pgtestStart(t)
	b := backend{name: store.DialectPostgres, dsn: c.DSN, pg: c}
	st := openStore(t, b)
	e := startBroker(t, st, envOptions{})
	tok := e.token(t, nil)
	args := map[string]any{"response": "The weather is fine today."}
	if r := e.mustCall(t, tok, eval.MetricInjection, args, callParams{}); r.isError() || r.Error != nil {
		t.Fatalf("before the restart: %v %+v", r.Result, r.Error)
	}
	if err := c.Pause(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		r := e.mustCall(t, tok, eval.MetricInjection, args, callParams{})
		if r.Error == nil || r.Error.Code != -32603 || r.Result != nil {
			t.Fatalf("call %d while PostgreSQL is down: status %d, result %v, error %+v; want -32603", i, r.Status, r.Result, r.Error)
		}
		if strings.Contains(r.Error.Message, c.Dir) || strings.Contains(strings.ToLower(r.Error.Message), "dial") {
			t.Fatalf("the error leaks connection details: %q", r.Error.Message)
		}
	}
	if err := c.Resume(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The pool may hold a connection or two from before the restart; a bounded number of
	// attempts must reach a success without restarting the broker.
	var r reply
	for range 20 {
		r = e.mustCall(t, tok, eval.MetricInjection, args, callParams{})
		if r.Error == nil && !r.isError() {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r.Error != nil || r.isError() || r.structured()["handle"] == nil {
		t.Fatalf("after the restart: %v %+v; want the broker to recover on its own", r.Result, r.Error)
	}
	h := r.structured()["handle"].(string)
	if got := e.mustCall(t, tok, broker.NameGetEvaluation, map[string]any{"handle": h}, callParams{}); got.isError() {
		t.Fatalf("the post-restart evaluation is not retrievable: %v", got.Result)
	}
	if rep, err := store.VerifyChain(ctxT(t), st, nil, nil); err != nil || rep.Break != nil {
		t.Fatalf("audit chain after the restart: %+v, %v", rep, err)
	}
	restartUnderLoad(t, c, e, tok)
}

// restartUnderLoad restarts PostgreSQL while workers keep calling: every answer is either an
// acknowledged evaluation or a clean -32603, nothing hangs past the client's deadline, and every
// acknowledged evaluation is retrievable afterwards.
func restartUnderLoad(t *testing.T, c *pgtest.Cluster, e *brokerEnv, tok string) {
	// Each worker calls until it has made afterResume calls past the restart (bounded by
	// maxCalls and the context), so load spans the whole outage and the recovery.
	const workers, afterResume, maxCalls = 8, 10, 2000
	var (
		mu      sync.Mutex
		handles []string
		refused int
		resumed atomic.Bool
		wg      sync.WaitGroup
	)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	started := make(chan struct{}, workers)
	for w := range workers {
		wg.Go(func() {
			started <- struct{}{}
			post := 0
			for i := 0; i < maxCalls && post < afterResume && ctx.Err() == nil; i++ {
				after := resumed.Load()
				r, err := e.call(ctx, tok, eval.MetricInjection, map[string]any{"response": fmt.Sprintf("worker %d call %d", w, i)}, callParams{})
				mu.Lock()
				switch {
				case err != nil:
					t.Errorf("worker %d call %d: transport error %v (want an answer, even while the database is down)", w, i, err)
				case r.Error != nil && r.Error.Code == -32603:
					refused++
				case r.Error == nil && !r.isError():
					handles = append(handles, r.structured()["handle"].(string))
				default:
					t.Errorf("worker %d call %d: status %d, error %+v, result %v", w, i, r.Status, r.Error, r.Result)
				}
				mu.Unlock()
				if after {
					post++
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	for range workers {
		<-started
	}
	if err := c.Pause(t.Context()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let calls meet the stopped database
	if err := c.Resume(t.Context()); err != nil {
		t.Fatal(err)
	}
	resumed.Store(true)
	wg.Wait()
	t.Logf("restart under load: %d acknowledged, %d refused with -32603", len(handles), refused)
	if len(handles) == 0 {
		t.Fatal("no call succeeded around the restart")
	}
	if refused == 0 {
		t.Log("no call met the stopped database; the outage was shorter than one call")
	}
	for _, h := range handles {
		if got := e.mustCall(t, tok, broker.NameGetEvaluation, map[string]any{"handle": h}, callParams{}); got.isError() || got.Error != nil {
			t.Fatalf("acknowledged evaluation %s is not retrievable after the restart: %v %+v", h, got.Result, got.Error)
		}
	}
	if rep, err := store.VerifyChain(ctxT(t), e.Store, nil, nil); err != nil || rep.Break != nil {
		t.Fatalf("audit chain after the restart under load: %+v, %v", rep, err)
	}
	// Regression: during a restart, evaluations were stored for calls never acknowledged and never
	// audited (47 in one run): the evaluation, its handle and its audit row were three
	// transactions. Now every stored evaluation has its audit row, and nothing else was stored.
	evals, audited := countEvaluations(t, c.DSN)
	if evals != audited {
		t.Fatalf("%d evaluations stored, %d audited as ok: every stored evaluation must have its audit row", evals, audited)
	}
	if evals < len(handles) {
		t.Fatalf("%d evaluations stored for %d acknowledged", evals, len(handles))
	}
}

// countEvaluations counts, straight from PostgreSQL, the stored evaluations and the audit rows of
// evaluating calls that succeeded.
func countEvaluations(t *testing.T, dsn string) (evals, audited int) {
	t.Helper()
	ctx := ctxT(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM evaluations`).Scan(&evals); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM audit_log WHERE outcome = 'ok' AND tool IN ('flag_injection', 'check_groundedness')`).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	return evals, audited
}
