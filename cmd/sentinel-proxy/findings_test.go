package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/report/sarifcheck"
	"github.com/mcp-sentinel/sentinel/rules"
)

// seededStore writes one MUST and one SHOULD finding (first registry rules of each level).
func seededStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.db")
	s, err := findings.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seen := map[bool]bool{}
	now := time.Now()
	for _, r := range rules.All() {
		if seen[r.Level.Mandatory()] {
			continue
		}
		seen[r.Level.Mandatory()] = true
		f := findings.FromOutcome("http://t/mcp", "tools/call:x", rules.Failed(r.ID, "observed"), now)
		if err := s.RecordFinding(t.Context(), f); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestFindingsExport(t *testing.T) {
	db := seededStore(t)
	tests := []struct {
		name     string
		c        findingsConfig
		wantExit int
		check    func(t *testing.T, out []byte)
	}{
		{"sarif validates against the schema", findingsConfig{output: sentinelcmd.OutputOptions{Format: "sarif", Show: "fail"}, gate: "none", limit: -1}, 0,
			func(t *testing.T, out []byte) {
				if err := sarifcheck.Validate(out); err != nil {
					t.Fatalf("SARIF invalid: %v", err)
				}
			}},
		{"must gate fails on a MUST finding", findingsConfig{output: sentinelcmd.OutputOptions{Format: "json", Show: "fail"}, gate: "must", limit: -1}, 1, nil},
		{"level filter leaves only SHOULD, which the must gate ignores", findingsConfig{output: sentinelcmd.OutputOptions{Format: "junit", Show: "fail"}, gate: "must", level: "SHOULD", limit: -1}, 0,
			func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte("<testsuite")) {
					t.Fatalf("not JUnit:\n%s", out)
				}
			}},
		{"unknown format cannot run", findingsConfig{output: sentinelcmd.OutputOptions{Format: "yaml", Show: "fail"}, gate: "none"}, 2, nil},
		{"bad since cannot run", findingsConfig{output: sentinelcmd.OutputOptions{Format: "text", Show: "fail"}, gate: "none", since: "last week"}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.db = db
			var out bytes.Buffer
			err := runFindings(t.Context(), &out, tt.c, time.Now())
			if got := cli.ExitCode(err); got != tt.wantExit {
				t.Fatalf("exit %d (%v), want %d", got, err, tt.wantExit)
			}
			if tt.check != nil {
				tt.check(t, out.Bytes())
			}
		})
	}
}

func TestFindingsWithoutAStoreSaysWhatToDo(t *testing.T) {
	err := runFindings(t.Context(), &bytes.Buffer{}, findingsConfig{db: filepath.Join(t.TempDir(), "none.db"), output: sentinelcmd.OutputOptions{Format: "text", Show: "fail"}, gate: "none"}, time.Now())
	if err == nil || !strings.Contains(err.Error(), "run `sentinel proxy` first") {
		t.Fatalf("err = %v, want advice to run the proxy first", err)
	}
}

func TestCAInitWritesAPrivateKeyAndRefusesToOverwrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ca")
	run := func(args ...string) error {
		cmd := newCACommand()
		cmd.SetArgs(args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		return cmd.Execute()
	}
	if err := run("init", "--dir", dir); err != nil {
		t.Fatalf("ca init = %v", err)
	}
	cert, key := caPaths(dir)
	st, err := os.Stat(key)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v mode %v, want 0600", err, st.Mode().Perm())
	}
	if _, err := os.Stat(cert); err != nil {
		t.Fatalf("certificate missing: %v", err)
	}
	if err := run("init", "--dir", dir); err == nil {
		t.Fatal("a second ca init without --force = nil error, want a refusal")
	}
}

func TestProxyWithNothingToProxyCannotRun(t *testing.T) {
	err := runProxy(t.Context(), io.Discard, proxyConfig{logLevel: "info"})
	if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--upstream") {
		t.Fatalf("err = %v, want exit 2 naming --upstream", err)
	}
}

// TestOpenStoreSaysWhichStoreAndWhatToChange: a --db the store cannot open is named in the
// error with what to change, before SQLite's own "unable to open database file (14)"; a good
// path opens, and so does a file: DSN, which is the caller's own and not second-guessed.
func TestOpenStoreSaysWhichStoreAndWhatToChange(t *testing.T) {
	dir := t.TempDir()
	notAFolder := filepath.Join(dir, "plain")
	if err := os.WriteFile(notAFolder, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, db, want string
	}{
		{"missing folder", filepath.Join(dir, "no", "such", "f.db"), "does not exist"},
		{"a file where the folder should be", filepath.Join(notAFolder, "f.db"), "is not a folder"},
		{"a database file that is not one", notAFolder, "--db " + notAFolder + ":"},
		{"a good path", filepath.Join(dir, "f.db"), ""},
		{"a file: DSN", "file:" + filepath.Join(dir, "g.db"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := openStore(t.Context(), tc.db, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("openStore(%q): %v", tc.db, err)
				}
				_ = s.Close()
				return
			}
			if err == nil {
				_ = s.Close()
				t.Fatalf("openStore(%q) opened, want an error saying %q", tc.db, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--db") {
				t.Errorf("openStore(%q) = %v, want it to name --db and say %q", tc.db, err, tc.want)
			}
		})
	}
}
