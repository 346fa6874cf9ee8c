package store

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/internal/pgtest"
)

// grantStatements reads deploy/postgres/grants.sql and returns its statements, leaving out the
// proxies' tables, which this database does not have.
func grantStatements(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../deploy/postgres/grants.sql")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.Index(l, "--"); i >= 0 {
			l = l[:i]
		}
		lines = append(lines, l)
	}
	var out []string
	for _, st := range strings.Split(strings.Join(lines, "\n"), ";") {
		st = strings.TrimSpace(st)
		if st == "" || strings.Contains(st, "findings") || strings.Contains(st, "SEQUENCES") {
			continue
		}
		out = append(out, st)
	}
	return out
}

func TestPostgresGrantsLetTheBrokerRoleAppendButNeverAlterTheAuditLog(t *testing.T) {
	c := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	owner := openStore(t, backend{name: DialectPostgres, dsn: c.DSN})
	for _, st := range grantStatements(t) {
		if _, err := owner.db.ExecContext(ctx, st); err != nil {
			t.Fatalf("grants.sql: %s: %v", st, err)
		}
	}
	appDSN := strings.Replace(c.DSN, "user=postgres", "user=broker_app", 1)
	app := openStore(t, backend{name: DialectPostgres, dsn: appDSN}) // its Migrate must only read
	r, err := app.Append(ctx, audit.Entry{At: time.Now(), Tenant: "t", Tool: "x", Outcome: "ok"})
	if err != nil {
		t.Fatalf("broker_app Append = %v", err)
	}
	if err := app.PutCheckpoint(ctx, audit.Checkpoint{Seq: r.Seq, Hash: r.Hash, At: 1, KeyID: "k", Sig: "s"}); err != nil {
		t.Fatalf("broker_app PutCheckpoint = %v", err)
	}
	if err := app.PutEvaluation(ctx, Evaluation{ID: "ev", Tenant: "t", Policy: []byte(`{}`), Result: []byte(`{}`)}); err != nil {
		t.Fatalf("broker_app PutEvaluation = %v", err)
	}
	if err := app.PutHandle(ctx, Handle{Digest: "d", EvaluationID: "ev", Tenant: "t", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatalf("broker_app PutHandle = %v", err)
	}
	if err := app.RevokeHandle(ctx, "d", time.Now()); err != nil {
		t.Fatalf("broker_app RevokeHandle = %v", err)
	}
	if _, _, err := app.Once(ctx, "k", "t", "set_metric_policy", "", func(ctx context.Context, tx Tx) ([]byte, error) {
		_, err := tx.PutPolicy(ctx, "t", eval.MetricPolicy{Metric: "m", Enabled: true})
		return []byte("ok"), err
	}); err != nil {
		t.Fatalf("broker_app Once = %v", err)
	}
	conn, err := pgx.Connect(ctx, appDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []string{`UPDATE audit_log SET outcome = 'x'`, `DELETE FROM audit_log`, `TRUNCATE audit_log`,
		`UPDATE audit_checkpoints SET seq = 0`, `DELETE FROM audit_checkpoints`, `TRUNCATE audit_checkpoints`,
		`DELETE FROM evaluations`, `DROP TABLE audit_log`, `ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change`} {
		_, err := conn.Exec(ctx, stmt)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || (pe.Code != "42501" && pe.Code != "42P01") {
			t.Errorf("broker_app %s = %v; want permission denied", stmt, err)
		}
	}
	if rep, err := VerifyChain(ctx, app, nil, nil); err != nil || rep.Entries != 1 {
		t.Fatalf("VerifyChain as broker_app = %+v, %v", rep, err)
	}
}
