package deploy

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
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/internal/pgtest"
)

// brokerTables are the broker's tables (broker/store/schema.go).
var brokerTables = []string{"evaluations", "handles", "effects", "policies", "audit_log", "audit_checkpoints", "schema_migrations"}

// statements splits a SQL file into statements, dropping comments.
func statements(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
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
		if st = strings.TrimSpace(st); st != "" {
			out = append(out, st)
		}
	}
	return out
}

func as(dsn, role string) string { return strings.Replace(dsn, "user=postgres", "user="+role, 1) }

func run(t *testing.T, ctx context.Context, dsn string, stmts ...string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, st := range stmts {
		if _, err := conn.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

func openBroker(t *testing.T, ctx context.Context, dsn string) store.Store {
	t.Helper()
	key, err := audit.GenerateSigner()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dsn, store.WithSigner(key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrating as %s: %v", dsn, err)
	}
	return st
}

// The deployment's roles and grants, applied in the documented order to a real cluster: the
// broker's tables belong to sentinel_owner, which no service uses, and neither service role can
// alter, drop, truncate or un-trigger them, nor edit the audit log, nor create a table beside
// them; each service still does its job and starts up on the prepared schema.
func TestPostgresRolesKeepTheAuditLogOutOfTheServicesReach(t *testing.T) {
	c := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	run(t, ctx, c.DSN, statements(t, "postgres/roles.sql")...)
	openBroker(t, ctx, as(c.DSN, "sentinel_owner")) // broker migrate, as the owner
	run(t, ctx, c.DSN, statements(t, "postgres/grants.sql")...)

	conn, err := pgx.Connect(ctx, c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, table := range brokerTables {
		var owner string
		if err := conn.QueryRow(ctx, `SELECT tableowner FROM pg_tables WHERE schemaname = 'public' AND tablename = $1`, table).Scan(&owner); err != nil {
			t.Fatalf("table %s: %v", table, err)
		}
		if owner != "sentinel_owner" {
			t.Errorf("table %s belongs to %s, want sentinel_owner", table, owner)
		}
	}
	for _, role := range []string{"broker_app", "sentinel_proxy"} {
		var super, createRole, createDB, bypass bool
		if err := conn.QueryRow(ctx, `SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = $1`, role).
			Scan(&super, &createRole, &createDB, &bypass); err != nil || super || createRole || createDB || bypass {
			t.Errorf("role %s: super %v, createrole %v, createdb %v, bypassrls %v (%v); want none", role, super, createRole, createDB, bypass, err)
		}
	}

	// Each service starts and works on the prepared schema.
	app := openBroker(t, ctx, as(c.DSN, "broker_app")) // its migration check only reads
	r, err := app.Commit(ctx, store.CallRecord{
		Audit:      audit.Entry{At: time.Now(), Tenant: "t", Subject: "s", Tool: "flag_injection", Outcome: "ok", RequestID: "ev_1"},
		Evaluation: &store.Evaluation{ID: "ev_1", Tenant: "t", Subject: "s", Tool: "flag_injection", Policy: []byte(`{}`), Result: []byte(`{}`)},
		Handle:     &store.Handle{Digest: "d", EvaluationID: "ev_1", Tenant: "t", Subject: "s", ExpiresAt: time.Now().Add(time.Hour)},
	})
	if err != nil {
		t.Fatalf("broker_app Commit = %v", err)
	}
	if err := app.PutCheckpoint(ctx, audit.Checkpoint{Seq: r.Seq, Hash: r.Hash, At: 1, KeyID: "k", Sig: "s"}); err != nil {
		t.Fatalf("broker_app PutCheckpoint = %v", err)
	}
	if err := app.RevokeHandle(ctx, "d", time.Now()); err != nil {
		t.Fatalf("broker_app RevokeHandle = %v", err)
	}
	if _, _, err := app.Once(ctx, "k", "t", "set_metric_policy", "", func(ctx context.Context, tx store.Tx) ([]byte, error) {
		return []byte("ok"), nil
	}); err != nil {
		t.Fatalf("broker_app Once = %v", err)
	}
	fs, err := findings.Open(ctx, as(c.DSN, "sentinel_proxy"), nil)
	if err != nil {
		t.Fatalf("the proxy's findings store as sentinel_proxy: %v", err)
	}
	_ = fs.Close()

	// Schema-qualified, so a role's own search_path cannot make a statement miss its target.
	forbidden := []string{
		`UPDATE public.audit_log SET outcome = 'x'`, `DELETE FROM public.audit_log`, `TRUNCATE public.audit_log`,
		`UPDATE public.audit_checkpoints SET seq = 0`, `DELETE FROM public.audit_checkpoints`, `TRUNCATE public.audit_checkpoints`,
		`ALTER TABLE public.audit_log DISABLE TRIGGER audit_log_no_change`, `ALTER TABLE public.audit_log DISABLE TRIGGER ALL`,
		`DROP TRIGGER audit_log_no_change ON public.audit_log`, `DROP TRIGGER audit_checkpoints_no_change ON public.audit_checkpoints`,
		`ALTER TABLE public.audit_log ADD COLUMN x TEXT`, `ALTER TABLE public.audit_log OWNER TO broker_app`,
		`DROP TABLE public.audit_log`, `DROP TABLE public.audit_checkpoints`, `DROP TABLE public.evaluations`,
		`DROP FUNCTION public.audit_log_append_only() CASCADE`,
		`CREATE OR REPLACE FUNCTION public.audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`,
		`DELETE FROM public.evaluations`, `UPDATE public.evaluations SET result = '{}'`, `CREATE TABLE public.shadow (x int)`,
		`SET session_replication_role = replica`,
	}
	for _, role := range []string{"broker_app", "sentinel_proxy"} {
		conn, err := pgx.Connect(ctx, as(c.DSN, role))
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range forbidden {
			_, err := conn.Exec(ctx, stmt)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "42501" {
				t.Errorf("%s: %s = %v; want permission denied", role, stmt, err)
			}
		}
		conn.Close(ctx)
	}

	var rows int
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM audit_log`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("audit_log has %d rows (%v) after the refused statements, want the one appended", rows, err)
	}
}
