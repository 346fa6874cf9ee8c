package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/handle"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

// envStateDir overrides where the default SQLite store lives.
const envStateDir = "SENTINEL_STATE_DIR"

// envStateKeys carries the requestState keys when --state-keys is not given, so keys stay off
// command lines.
const envStateKeys = "BROKER_STATE_KEYS"

// openTimeout bounds connecting to and migrating the store.
const openTimeout = 30 * time.Second

// defaultDB is the embedded store's file: $SENTINEL_STATE_DIR, else $XDG_STATE_HOME/sentinel,
// else ~/.local/state/sentinel, then broker.db.
func defaultDB() (string, error) {
	if d := os.Getenv(envStateDir); d != "" {
		return filepath.Join(d, "broker.db"), nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "sentinel", "broker.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the default store location: %w (pass --db)", err)
	}
	return filepath.Join(home, ".local", "state", "sentinel", "broker.db"), nil
}

// dbFlag registers --db on cmd.
func dbFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "db", "", "store: a SQLite file path or sqlite://PATH (default under the state dir), or postgres://... for PostgreSQL")
}

// openDB opens the store dsn names (the default file when empty) and, with migrate, brings its
// schema up to date.
func openDB(ctx context.Context, dsn string, migrate bool) (store.Store, error) {
	if dsn == "" {
		d, err := defaultDB()
		if err != nil {
			return nil, err
		}
		dsn = d
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := st.Ping(ctx); err != nil {
		_ = st.Close()
		return nil, err
	}
	if migrate {
		if err := st.Migrate(ctx); err != nil {
			_ = st.Close()
			return nil, fmt.Errorf("%w (a role without DDL rights needs `broker migrate` run once by the schema owner)", err)
		}
	}
	return st, nil
}

// stateKeys reads --state-keys or $BROKER_STATE_KEYS; nil when neither is set.
func stateKeys(flag string) (*seal.Keyring, error) {
	v := flag
	if v == "" {
		v = os.Getenv(envStateKeys)
	}
	if v == "" {
		return nil, nil
	}
	keys, err := seal.ParseKeys(v)
	if err != nil {
		return nil, err
	}
	return seal.NewKeyring(keys...)
}

func newMigrateCmd() *cobra.Command {
	var dsn string
	cmd := &cobra.Command{
		Use:   "migrate [--db DSN]",
		Short: "Create or upgrade the broker's store schema",
		Long: `Apply the store's schema migrations (also applied by serve at start). Run it as
the schema owner; then, on PostgreSQL, apply deploy/postgres/grants.sql as a superuser so
the broker's role (broker_app) may append to but never alter the audit log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openDB(cmd.Context(), dsn, true)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			v, err := store.Version(cmd.Context(), st)
			if err != nil {
				return err
			}
			_, _ = fmt.Fprintf(cmd.OutOrStdout(), "%s store at schema version %d\n", st.Dialect(), v)
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	return cmd
}

func newAuditCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Inspect the audit log"}
	var dsn string
	verify := &cobra.Command{
		Use:   "verify [--db DSN]",
		Short: "Walk the hash-chained audit log and name the first broken link",
		Long: `Recompute every audit entry's hash and link. Exit 0 and print the entry count
and head hash when the chain is intact; exit 1 naming the first broken entry when it is
not; exit 2 when the store cannot be read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openDB(cmd.Context(), dsn, false)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			err = broker.VerifyAudit(cmd.Context(), st, cmd.OutOrStdout())
			var b *audit.Break
			if errors.As(err, &b) {
				return cli.Failed(err)
			}
			return err
		},
	}
	dbFlag(verify, &dsn)
	cmd.AddCommand(verify)
	return cmd
}

func newRederiveCmd() *cobra.Command {
	var dsn, tenant, subject, judge string
	cmd := &cobra.Command{
		Use:   "rederive --tenant T --subject S [--db DSN] HANDLE",
		Short: "Recompute a stored evaluation and report whether it matches",
		Long: `Resolve HANDLE as the principal it was issued to (--tenant, --subject), recompute
the evaluation from the archived input under the stored policy, and compare. Exit 0 on a
match, 1 on a mismatch (each difference printed), 2 when it cannot run (unknown handle,
payload not archived, store unreachable). The judge is chosen as for serve.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tenant == "" || subject == "" {
				return errors.New("--tenant and --subject are required: a handle resolves only for its own principal")
			}
			st, err := openDB(cmd.Context(), dsn, false)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			scorer, err := newScorer(judge, nil, slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn})))
			if err != nil {
				return err
			}
			rep, err := broker.Rederive(cmd.Context(), st, scorer, tenant, subject, args[0])
			if err != nil {
				return err
			}
			rep.Write(cmd.OutOrStdout())
			if !rep.Match {
				return cli.Failed(errors.New("the recomputed evaluation differs from the stored one"))
			}
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&tenant, "tenant", "", "the tenant the handle was issued to")
	cmd.Flags().StringVar(&subject, "subject", "", "the subject the handle was issued to")
	cmd.Flags().StringVar(&judge, "judge", "", "judge model (overrides the environment), as for serve")
	return cmd
}

func newRevokeCmd() *cobra.Command {
	var dsn, tenant, subject string
	cmd := &cobra.Command{
		Use:   "revoke --tenant T --subject S [--db DSN] HANDLE",
		Short: "Revoke a handle so get_evaluation refuses it",
		Long: `Revoke HANDLE for the principal it was issued to (--tenant, --subject). A revoked
handle is refused exactly like an unknown one. Exit 0 when revoked, 2 when the handle is not
usable by that principal or the store cannot be reached.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tenant == "" || subject == "" {
				return errors.New("--tenant and --subject are required: a handle resolves only for its own principal")
			}
			st, err := openDB(cmd.Context(), dsn, false)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			if err := (&handle.Service{Store: st}).Revoke(cmd.Context(), tenant, subject, args[0]); err != nil {
				return fmt.Errorf("revoking: %w", err)
			}
			_, _ = fmt.Fprintln(cmd.OutOrStdout(), "revoked")
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&tenant, "tenant", "", "the tenant the handle was issued to")
	cmd.Flags().StringVar(&subject, "subject", "", "the subject the handle was issued to")
	return cmd
}
