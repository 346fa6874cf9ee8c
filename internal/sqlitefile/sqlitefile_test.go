package sqlitefile

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "real.db")
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, want string
	}{
		{"absent", filepath.Join(dir, "new.db"), ""},
		{"empty", write("empty.db", ""), ""},
		{"a SQLite database", db, ""},
		{"one byte of text", write("note.txt", "x"), `is not a SQLite database (it begins "x")`},
		{"a short text", write("todo.txt", "buy milk\n"), "is not a SQLite database"},
		{"a long text", write("log.txt", strings.Repeat("line\n", 1000)), "is not a SQLite database"},
		{"a folder", dir, "is a folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.path)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check(%s) = %v, want nil", tc.path, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Check(%s) = %v, want an error saying %q", tc.path, err, tc.want)
			}
		})
	}
}

// FuzzCheck: whatever a file holds, Check answers without panicking, and accepts it only when
// it is empty or begins with SQLite's header.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("x"))
	f.Add([]byte("SQLite format 3\x00rest"))
	f.Add([]byte("SQLite format 3"))
	f.Fuzz(func(t *testing.T, content []byte) {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, content, 0o600); err != nil {
			t.Fatal(err)
		}
		err := Check(p)
		ok := len(content) == 0 || strings.HasPrefix(string(content), "SQLite format 3\x00")
		if (err == nil) != ok {
			t.Fatalf("Check of %q = %v", content, err)
		}
	})
}
