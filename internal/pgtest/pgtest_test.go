package pgtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartServesSocketAndStopRemovesFolder(t *testing.T) {
	c := Start(t)
	if _, err := os.Stat(filepath.Join(c.Dir, ".s.PGSQL.5432")); err != nil {
		t.Fatalf("socket missing after Start: %v", err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop() = %v", err)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Fatalf("folder %s still there after Stop (err %v)", c.Dir, err)
	}
}

func TestNewDatabaseGivesEachTestItsOwnDatabase(t *testing.T) {
	c := Start(t)
	a, b := c.NewDatabase(t), c.NewDatabase(t)
	if a == b || !strings.Contains(a, "dbname=test_") {
		t.Fatalf("NewDatabase twice = %q and %q, want two distinct test databases", a, b)
	}
}

func TestBinDirRejectsAFolderWithoutInitdb(t *testing.T) {
	t.Setenv("SENTINEL_PG_BIN", t.TempDir())
	if _, err := BinDir(); err == nil {
		t.Fatal("BinDir() with an empty SENTINEL_PG_BIN folder = nil error, want one")
	}
}
