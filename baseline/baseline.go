// Package baseline reads and writes Sentinel's expected-failures file: the failures a team has
// accepted for now, so that CI fails only on what is new. An entry is a rule and the
// fingerprint of one of its observations (report.ObservationFingerprint), never message text,
// so a reworded message or a new session ID does not break it.
//
// A scan run with --baseline FILE is judged with report.Compare: recorded failures do not fail
// the gate, new ones do, recorded ones whose rule passes now are reported as fixed, and entries
// that match nothing else are stale (a warning).
//
// baseline imports report only.
package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/internal/lazyre"
	"github.com/mcp-sentinel/sentinel/report"
)

// SchemaVersion is the version of the file format; it changes when a field changes meaning.
const SchemaVersion = "sentinel.baseline/v1"

// DefaultPath is the file `sentinel baseline write` creates when not told otherwise.
const DefaultPath = "sentinel-baseline.json"

// MaxBytes bounds what Read accepts: a baseline of every rule of the registry with a dozen
// observations each is well under a megabyte.
const MaxBytes = 8 << 20

// File is a baseline as stored.
type File struct {
	// Schema is SchemaVersion.
	Schema string `json:"schema"`
	// Tool and Target say what produced the entries, for people; matching ignores them.
	Tool   string `json:"tool,omitempty"`
	Target string `json:"target,omitempty"`
	// Recorded is when the scan the entries come from started.
	Recorded time.Time `json:"recorded,omitzero"`
	// Entries are the accepted failures, sorted by rule then observation.
	Entries []report.Entry `json:"entries"`
}

// FromResult records every failing observation of r.
func FromResult(r *report.Result) *File {
	e := report.Entries(r)
	if e == nil {
		e = []report.Entry{}
	}
	return &File{Schema: SchemaVersion, Tool: r.Tool, Target: r.Target, Recorded: r.Started.UTC(), Entries: e}
}

// Write writes f as indented JSON, entries sorted, one trailing newline.
func Write(w io.Writer, f *File) error {
	c := *f
	c.Schema = SchemaVersion
	c.Entries = report.SortEntries(append([]report.Entry(nil), f.Entries...))
	if c.Entries == nil {
		c.Entries = []report.Entry{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return fmt.Errorf("encoding the baseline: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing the baseline: %w", err)
	}
	return nil
}

var fingerprint = lazyre.New(`^[0-9a-f]{16}$`)

// Read decodes a baseline strictly: the schema must be SchemaVersion, unknown fields and
// trailing data are errors, and every entry needs a rule ID and a 16-hex-digit observation.
func Read(rd io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("the baseline is larger than %d bytes: it is not a baseline file", MaxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("decoding the baseline: %w (write one with `sentinel baseline write --from result.json`)", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("decoding the baseline: unexpected data after the baseline object")
	}
	if f.Schema != SchemaVersion {
		return nil, fmt.Errorf("decoding the baseline: schema %q, want %q", f.Schema, SchemaVersion)
	}
	for i, e := range f.Entries {
		if !strings.HasPrefix(e.Rule, "MCP/") {
			return nil, fmt.Errorf("decoding the baseline: entries[%d]: rule %q is not a rule ID (MCP/2026-07-28/LEVEL/name)", i, e.Rule)
		}
		if !fingerprint().MatchString(e.Observation) {
			return nil, fmt.Errorf("decoding the baseline: entries[%d] (%s): observation %q is not a 16-hex-digit fingerprint", i, e.Rule, e.Observation)
		}
		if e.Level != "" && !e.Level.Valid() {
			return nil, fmt.Errorf("decoding the baseline: entries[%d] (%s): unknown level %q", i, e.Rule, e.Level)
		}
	}
	if f.Entries == nil {
		f.Entries = []report.Entry{}
	}
	return &f, nil
}

// Load reads the baseline at path.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w (create one with `sentinel baseline write --from result.json`)", err)
	}
	defer func() { _ = fh.Close() }()
	f, err := Read(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Apply judges r against f: r.Comparison records the entries, named after path.
func Apply(r *report.Result, f *File, path string) {
	r.Comparison = report.Compare("baseline "+path, f.Entries)
}
