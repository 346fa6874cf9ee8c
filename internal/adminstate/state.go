// Package adminstate is how the programs that serve Sentinel's admin API (`sentinel proxy`, and
// `sentinel shim` after it) tell the programs that read it (`sentinel tui`, scripts) where it
// listens and which bearer token it wants, without ever printing the token.
//
// At start a server draws a token (or reads the one an operator keeps in a file, named with
// --admin-token-file) and writes a state file, readable by its user only, into the state
// directory ($XDG_STATE_HOME/sentinel, or ~/.local/state/sentinel). It removes the file when it
// stops. A reader finds the file for an admin URL, or the newest one whose process still runs.
//
// adminstate imports nothing of Sentinel's: it is shared by servers and readers alike.
package adminstate

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// State is what one running admin API server records about itself.
type State struct {
	// Kind names the server: "proxy" or "shim".
	Kind string `json:"kind"`
	// PID is the server's process, so a reader can skip the file of one that was killed.
	PID int `json:"pid"`
	// Admin is the admin API's base URL (http://127.0.0.1:9101).
	Admin string `json:"admin"`
	// Listen is what the server serves traffic on, for messages (the proxy's endpoint URL).
	Listen string `json:"listen,omitempty"`
	// Token is the bearer token the admin API requires.
	Token string `json:"token"`
	// Started is when the server started.
	Started time.Time `json:"started"`
}

// EnvStateHome is the standard variable that moves the state directory.
const EnvStateHome = "XDG_STATE_HOME"

// Dir is the state directory: $XDG_STATE_HOME/sentinel, else ~/.local/state/sentinel.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv(EnvStateHome); d != "" {
		return filepath.Join(d, "sentinel"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("finding the state directory: %w (set %s)", err, EnvStateHome)
		}
	}
	return filepath.Join(home, ".local", "state", "sentinel"), nil
}

// tokenBytes is the entropy of a generated token.
const tokenBytes = 32

// NewToken draws a fresh random token (64 hex digits).
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("drawing an admin token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// maxTokenFile bounds what ReadToken reads: a token is a line, never a large file.
const maxTokenFile = 4096

// minTokenLen refuses tokens too short to resist guessing.
const minTokenLen = 16

// ReadToken reads a token from path: the file's first line, trimmed.
func ReadToken(path string) (string, error) {
	b, err := readSmall(path, maxTokenFile)
	if err != nil {
		return "", fmt.Errorf("reading the admin token: %w", err)
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	tok = strings.TrimSpace(tok)
	if len(tok) < minTokenLen {
		return "", fmt.Errorf("reading the admin token from %s: it holds %d characters, fewer than %d (write a longer one, or remove the file to have one generated)", path, len(tok), minTokenLen)
	}
	return tok, nil
}

// LoadOrCreateToken returns the token kept in path, creating the file (mode 0600) with a fresh
// token when it does not exist: what --admin-token-file does, so an operator can share one
// token with a scraper or a script across restarts.
func LoadOrCreateToken(path string) (string, error) {
	tok, err := ReadToken(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	if tok, err = NewToken(); err != nil {
		return "", err
	}
	if err := writeFile(path, []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("writing the admin token: %w", err)
	}
	return tok, nil
}

// fileName is the state file for one admin URL: one per listener, so several servers on one
// machine do not overwrite each other.
func fileName(admin string) string {
	u, err := url.Parse(admin)
	host := admin
	if err == nil && u.Host != "" {
		host = u.Host
	}
	r := strings.NewReplacer(":", "_", "/", "_", "[", "", "]", "")
	return "admin-" + r.Replace(host) + ".json"
}

// Write records s in dir (created 0700) and returns the file's path; the file is mode 0600
// and replaced atomically, so a reader never sees half of it.
func Write(dir string, s State) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the state directory %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encoding the admin state: %w", err)
	}
	path := filepath.Join(dir, fileName(s.Admin))
	if err := writeFile(path, append(b, '\n')); err != nil {
		return "", fmt.Errorf("writing the admin state: %w", err)
	}
	return path, nil
}

// writeFile writes b to path through a temporary file in the same directory, mode 0600.
func writeFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ErrNotFound is returned by Find when no running server recorded its state.
var ErrNotFound = errors.New("no running sentinel proxy recorded its admin state")

// maxStateFile bounds one state file.
const maxStateFile = 64 << 10

// Find returns the state of the server whose admin API is at admin, or, with admin "", of the
// most recently started server that still runs. Files of servers that no longer run are
// ignored (a server killed with -9 cannot remove its own).
func Find(dir, admin string) (State, error) {
	if admin != "" {
		s, err := read(filepath.Join(dir, fileName(admin)))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return State{}, fmt.Errorf("%w for %s (in %s)", ErrNotFound, admin, dir)
			}
			return State{}, err
		}
		if !alive(s.PID) {
			return State{}, fmt.Errorf("%w for %s: the state in %s is of process %d, which no longer runs", ErrNotFound, admin, dir, s.PID)
		}
		return s, nil
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "admin-*.json"))
	var live []State
	for _, p := range paths {
		if s, err := read(p); err == nil && alive(s.PID) {
			live = append(live, s)
		}
	}
	if len(live) == 0 {
		return State{}, fmt.Errorf("%w (in %s)", ErrNotFound, dir)
	}
	sort.Slice(live, func(i, j int) bool { return live[i].Started.After(live[j].Started) })
	return live[0], nil
}

func read(path string) (State, error) {
	var s State
	b, err := readSmall(path, maxStateFile)
	if err != nil {
		return s, fmt.Errorf("reading the admin state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("reading the admin state %s: %w", path, err)
	}
	return s, nil
}

// readSmall reads a file of at most max bytes.
func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, max)
	}
	return b, nil
}

// alive reports whether a process with this ID runs (signal 0 checks without signalling).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
