package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/handle"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/eval"
)

// envStateDir overrides where the default SQLite store lives.
const envStateDir = "SENTINEL_STATE_DIR"

// envStateKeys carries the requestState keys when --state-keys is not given, so keys stay off
// command lines.
const envStateKeys = "BROKER_STATE_KEYS"

// openTimeout bounds connecting to and migrating the store.
const openTimeout = 30 * time.Second

// envAuditKey carries the audit signing key (64 hex digits, or PEM) when --audit-key is not
// given, for deployments that mount secrets as environment variables.
const envAuditKey = "BROKER_AUDIT_KEY"

// stateDir is where the broker keeps local state: $SENTINEL_STATE_DIR, else
// $XDG_STATE_HOME/sentinel, else ~/.local/state/sentinel.
func stateDir() (string, error) {
	if d := os.Getenv(envStateDir); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "sentinel"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the state folder: %w (pass --db, --audit-key and --audit-checkpoints)", err)
	}
	return filepath.Join(home, ".local", "state", "sentinel"), nil
}

// defaultDB is the embedded store's file: broker.db in the state folder.
func defaultDB() (string, error) { return inState("broker.db") }

func inState(name string) (string, error) {
	d, err := stateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, name), nil
}

// Defaults of the audit anchor, in the state folder. The key must not live in the database (it
// does not: a file, or $BROKER_AUDIT_KEY); in production keep it and the checkpoint file off the
// database's host. The checkpoint file is named after the database (a digest of its DSN), so
// brokers on different databases never mix their checkpoints, and serve and audit verify with the
// same --db find the same file.
const (
	defaultAuditKeyFile       = "audit-key.pem"
	defaultAuditCheckpointLog = "audit-checkpoints-<db>.jsonl"
)

// auditSigner returns the key serve signs audit rows and checkpoints with: --audit-key FILE, else
// $BROKER_AUDIT_KEY, else the state folder's key file, created on first start.
func auditSigner(flag string, log *slog.Logger) (*audit.Signer, error) {
	if flag != "" {
		return audit.LoadSigner(flag)
	}
	if v := os.Getenv(envAuditKey); v != "" {
		s, err := audit.ParseSigner([]byte(v))
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", envAuditKey, err)
		}
		return s, nil
	}
	path, err := inState(defaultAuditKeyFile)
	if err != nil {
		return nil, err
	}
	s, created, err := audit.LoadOrCreateSigner(path)
	if err != nil {
		return nil, err
	}
	if created {
		log.Warn("created an audit signing key; keep it (and a copy of its public key) off the database's host", slog.String("path", path), slog.String("key_id", s.ID()))
	}
	return s, nil
}

// verifyKeys returns the keys audit verify trusts: --audit-key FILE (private or public keys),
// else $BROKER_AUDIT_KEY, else the state folder's key file when it exists; nil when none is found.
func verifyKeys(flag string) (audit.Keys, error) {
	if flag != "" {
		return audit.LoadKeys(flag)
	}
	if v := os.Getenv(envAuditKey); v != "" {
		s, err := audit.ParseSigner([]byte(v))
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", envAuditKey, err)
		}
		k := audit.Keys{}
		k.Add(s.Public())
		return k, nil
	}
	path, err := inState(defaultAuditKeyFile)
	if err != nil {
		return nil, nil //nolint:nilerr // no state folder: no default key
	}
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	return audit.LoadKeys(path)
}

// checkpointFile resolves --audit-checkpoints: "off" for none, empty for the state folder's file
// for the database dsn names.
func checkpointFile(flag, dsn string) (string, error) {
	switch flag {
	case "off":
		return "", nil
	case "":
		if dsn == "" {
			d, err := defaultDB()
			if err != nil {
				return "", err
			}
			dsn = d
		}
		if !store.IsPostgres(dsn) {
			if abs, err := filepath.Abs(strings.TrimPrefix(dsn, "sqlite://")); err == nil {
				dsn = abs
			}
		}
		sum := sha256.Sum256([]byte(dsn))
		return inState(strings.Replace(defaultAuditCheckpointLog, "<db>", hex.EncodeToString(sum[:6]), 1))
	}
	return flag, nil
}

// dbFlag registers --db on cmd.
func dbFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "db", "", "store: a SQLite file path or sqlite://PATH (default under the state dir), or postgres://... for PostgreSQL")
}

// openDB opens the store dsn names (the default file when empty) and, with migrate, brings its
// schema up to date.
func openDB(ctx context.Context, dsn string, migrate bool, opts ...store.Option) (store.Store, error) {
	if dsn == "" {
		d, err := defaultDB()
		if err != nil {
			return nil, err
		}
		dsn = d
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	st, err := store.Open(ctx, dsn, opts...)
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
	var (
		dsn, keyFile string
		files        []string
	)
	verify := &cobra.Command{
		Use:   "verify [--db DSN] [--audit-key FILE] [--checkpoints FILE]...",
		Short: "Check the audit log against its signatures and latest signed checkpoint",
		Long: `Recompute every audit entry's hash and link, check each entry's signature and compare
the chain with the latest checkpoint signed by a trusted key, among those in the database
and those in the checkpoint files (the copies kept outside it; the state folder's file is
read by default when it exists).

Exit 0 when the chain is intact and verified. Exit 1 naming the first bad sequence and
what happened there: TRUNCATED (entries the checkpoint vouches for were removed from the
end), REWRITTEN (an entry was changed or removed, even with every later hash recomputed),
FORGED (an entry or checkpoint no trusted key signed). Exit 2 when the store cannot be read
or no audit key is available (then only the links were checked, which is not a pass).

--audit-key takes the broker's private key file or public keys in PEM (several blocks
for several replicas); without it $BROKER_AUDIT_KEY, then the state folder's key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keys, err := verifyKeys(keyFile)
			if err != nil {
				return err
			}
			if len(files) == 0 {
				if def, err := checkpointFile("", dsn); err == nil {
					if _, err := os.Stat(def); err == nil {
						files = []string{def}
					}
				}
			}
			st, err := openDB(cmd.Context(), dsn, false)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			err = broker.VerifyAudit(cmd.Context(), st, keys, files, cmd.OutOrStdout())
			var b *audit.Break
			if errors.As(err, &b) {
				return cli.Failed(err)
			}
			return err
		},
	}
	dbFlag(verify, &dsn)
	verify.Flags().StringVar(&keyFile, "audit-key", "", "PEM file of the audit key(s) to trust (default $"+envAuditKey+", then the state folder's key)")
	verify.Flags().StringArrayVar(&files, "checkpoints", nil, "a checkpoint file written by serve --audit-checkpoints (repeatable)")
	cmd.AddCommand(verify)
	return cmd
}

func newRederiveCmd() *cobra.Command {
	var dsn, tenant, subject, judge, configFile string
	cmd := &cobra.Command{
		Use:   "rederive --tenant T --subject S [--db DSN] [--config FILE] HANDLE",
		Short: "Recompute a stored evaluation and report whether it matches",
		Long: `Resolve HANDLE as the principal it was issued to (--tenant, --subject), recompute
the evaluation from the archived input under the stored policy, and compare. Exit 0 on a
match, 1 on a mismatch (each difference printed), 2 when it cannot run (unknown handle,
payload not archived, store unreachable). The judge is chosen as for serve; pass the same
--config as serve when a tenant's policy names a judge of its "judges" section.`,
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
			_, scorer, err := loadScorer(configFile, judge, slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn})))
			if err != nil {
				return err
			}
			rep, err := broker.Rederive(cmd.Context(), st, scorer, tenant, subject, args[0])
			if errors.Is(err, eval.ErrUnknownJudge) && configFile == "" {
				return fmt.Errorf("%w (pass --config with the file serve used: its \"judges\" section defines the named judges)", err)
			}
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
	cmd.Flags().StringVar(&configFile, "config", "", "the JSON config file serve used: its named judges are loaded (only \"judges\" is read from it)")
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
