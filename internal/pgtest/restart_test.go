package pgtest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPauseStopsTheServerAndResumeBringsItBack(t *testing.T) {
	c := Start(t)
	sock := filepath.Join(c.Dir, ".s.PGSQL.5432")
	if err := c.Pause(t.Context()); err != nil {
		t.Fatalf("Pause() = %v", err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket still there after Pause (err %v)", err)
	}
	if err := c.Resume(t.Context()); err != nil {
		t.Fatalf("Resume() = %v", err)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("socket missing after Resume: %v", err)
	}
}
