package adminstate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteThenFindByURLAndNewest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	older := State{Kind: "proxy", PID: os.Getpid(), Admin: "http://127.0.0.1:9101", Token: "tok-older-0123456789", Started: time.Now().Add(-time.Hour)}
	newer := State{Kind: "proxy", PID: os.Getpid(), Admin: "http://127.0.0.1:9201", Token: "tok-newer-0123456789", Started: time.Now()}
	for _, s := range []State{older, newer} {
		p, err := Write(dir, s)
		if err != nil {
			t.Fatalf("Write = %v", err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("state file %s mode = %v, %v; want 0600: it holds a token", p, fi.Mode(), err)
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("state directory mode = %v, want 0700", fi.Mode())
	}
	got, err := Find(dir, "http://127.0.0.1:9101")
	if err != nil || got.Token != older.Token {
		t.Fatalf("Find(by URL) = %+v, %v; want the older server's state", got, err)
	}
	got, err = Find(dir, "")
	if err != nil || got.Token != newer.Token {
		t.Fatalf("Find(newest) = %+v, %v; want the newer server's state", got, err)
	}
}

func TestFindIgnoresTheStateOfAProcessThatIsGone(t *testing.T) {
	dir := t.TempDir()
	// PID 0x7ffffffe is far above any pid_max: no such process.
	if _, err := Write(dir, State{PID: 0x7ffffffe, Admin: "http://127.0.0.1:9101", Token: "stale-token-0123456789"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(dir, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find(newest) over a stale file = %v, want ErrNotFound", err)
	}
	if _, err := Find(dir, "http://127.0.0.1:9101"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no longer runs") {
		t.Fatalf("Find(by URL) over a stale file = %v, want ErrNotFound saying the process is gone", err)
	}
}

func TestLoadOrCreateTokenKeepsOneTokenAcrossStarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	first, err := LoadOrCreateToken(path)
	if err != nil || len(first) != 2*tokenBytes {
		t.Fatalf("LoadOrCreateToken (new) = %q, %v", first, err)
	}
	second, err := LoadOrCreateToken(path)
	if err != nil || second != first {
		t.Fatalf("LoadOrCreateToken (existing) = %q, %v; want %q again", second, err, first)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode = %v, want 0600", fi.Mode())
	}
	short := filepath.Join(t.TempDir(), "short")
	_ = os.WriteFile(short, []byte("abc\n"), 0o600)
	if _, err := LoadOrCreateToken(short); err == nil {
		t.Fatal("a 3-character token was accepted")
	}
}

func TestDirFollowsXDGStateHome(t *testing.T) {
	env := map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}
	if d, _ := Dir(func(k string) string { return env[k] }); d != "/x/state/sentinel" {
		t.Fatalf("Dir = %q", d)
	}
	delete(env, "XDG_STATE_HOME")
	if d, _ := Dir(func(k string) string { return env[k] }); d != "/home/u/.local/state/sentinel" {
		t.Fatalf("Dir without XDG_STATE_HOME = %q", d)
	}
}
