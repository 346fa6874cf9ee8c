// Package sqlitefile guards the SQLite files Sentinel's stores open: SQLite takes a file too
// short to hold its 100-byte header for an empty database and writes a new one over it, so a
// mistyped --db that names someone's short text file would lose that file without a word.
package sqlitefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// header is how every SQLite 3 database file begins.
var header = []byte("SQLite format 3\x00")

// Check returns nil when path may be opened as a SQLite database: it does not exist yet, it is
// empty, or it begins with SQLite's header. Anything else is an error naming what the file
// holds, so that the store refuses it before SQLite overwrites it (a short file) or fails with
// "file is not a database (26)" (a long one).
func Check(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a folder, not a database file", path)
	}
	buf := make([]byte, len(header))
	n, err := io.ReadFull(f, buf)
	if n == 0 && errors.Is(err, io.EOF) {
		return nil // empty: SQLite makes a new database of it, and nothing is lost
	}
	if n == len(header) && bytes.Equal(buf, header) {
		return nil
	}
	return fmt.Errorf("%s is not a SQLite database (it begins %q), so it is left as it is", path, buf[:n])
}
