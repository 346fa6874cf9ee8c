// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb into a temporary folder,
// a server listening only on a unix socket in that folder, stopped by its own pg_ctl when the test
// ends. Stores that must pass the same contract on SQLite and PostgreSQL (the findings store, the
// broker's store) use it so the PostgreSQL half never silently skips.
//
//	c := pgtest.Start(t)     // one cluster, stopped by t.Cleanup
//	dsn := c.NewDatabase(t)  // an empty database of its own, for one test
//	db, err := sql.Open("pgx", dsn)
//
// Binaries come from $SENTINEL_PG_BIN, else the newest /usr/lib/postgresql/*/bin. When they are
// missing the test fails (never skips) and says to run `make test`, which installs them.
//
// pgtest imports nothing of Sentinel's; only test code may import it.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// startTimeout bounds initdb plus server start; a healthy machine needs about a second.
const startTimeout = 60 * time.Second

// BinDir finds the PostgreSQL server binaries: $SENTINEL_PG_BIN, else the highest version under
// /usr/lib/postgresql. It returns an error that says how to install them.
func BinDir() (string, error) {
	if d := os.Getenv("SENTINEL_PG_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
		return "", fmt.Errorf("SENTINEL_PG_BIN=%s has no initdb: run `make test` (scripts/deps.sh installs PostgreSQL)", d)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("PostgreSQL server binaries not found (no $SENTINEL_PG_BIN, nothing under /usr/lib/postgresql): run `make test`, which installs them")
}

func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Cluster is one running throwaway server.
type Cluster struct {
	// Dir is the temporary folder holding the data directory, the log and the socket.
	Dir string
	// DSN connects as the superuser "postgres" to database "postgres" over the unix socket, in
	// key=value form that pgx and libpq both accept.
	DSN     string
	binDir  string
	asUser  bool
	stopped bool
	mu      sync.Mutex
	dbs     int
}

// Start initialises and starts a cluster and registers its stop with t.Cleanup. It fails the test
// (never skips) when the binaries are missing or the server does not start.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, err := start(t.Context())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Logf("pgtest: %v", err)
		}
	})
	return c
}

func start(ctx context.Context) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sentinel-pg-")
	if err != nil {
		return nil, fmt.Errorf("creating the cluster folder: %w", err)
	}
	c := &Cluster{Dir: dir, binDir: bin, asUser: os.Geteuid() == 0}
	if c.asUser {
		if err := chownToPostgres(dir); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	data := filepath.Join(dir, "data")
	if out, err := c.run(ctx, "initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-locale", "-E", "UTF8", "--no-sync"); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c full_page_writes=off", dir)
	if out, err := c.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "50", "-o", opts, "start"); err != nil {
		logText, _ := os.ReadFile(filepath.Join(dir, "log"))
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the server: %w\n%s\n%s", err, out, logText)
	}
	c.DSN = fmt.Sprintf("host=%s user=postgres dbname=postgres sslmode=disable", dir)
	return c, nil
}

// NewDatabase creates an empty database in the cluster and returns its DSN, so tests sharing one
// cluster (one start per package instead of one per test) stay isolated from each other.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	c.mu.Lock()
	c.dbs++
	name := fmt.Sprintf("test_%d", c.dbs)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	if out, err := c.run(ctx, "createdb", "-h", c.Dir, "-U", "postgres", name); err != nil {
		t.Fatalf("pgtest: creating database %s: %v\n%s", name, err, out)
	}
	return fmt.Sprintf("host=%s user=postgres dbname=%s sslmode=disable", c.Dir, name)
}

// Stop shuts the server down (fast mode) and removes its folder. A second call does nothing.
func (c *Cluster) Stop() error {
	if c.stopped {
		return nil
	}
	c.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	out, err := c.run(ctx, "pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-m", "fast", "-w", "stop")
	rmErr := os.RemoveAll(c.Dir)
	if err != nil {
		return fmt.Errorf("stopping the cluster in %s: %w\n%s", c.Dir, err, out)
	}
	if rmErr != nil {
		return fmt.Errorf("removing %s: %w", c.Dir, rmErr)
	}
	return nil
}

// run executes a PostgreSQL binary, as the postgres user when we are root (initdb refuses root).
func (c *Cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	path := filepath.Join(c.binDir, name)
	var cmd *exec.Cmd
	if c.asUser {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = c.Dir
	return cmd.CombinedOutput()
}

func chownToPostgres(dir string) error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root needs a postgres user for initdb: %w (run `make test`, which installs PostgreSQL)", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return fmt.Errorf("handing %s to the postgres user: %w", dir, err)
	}
	return nil
}
