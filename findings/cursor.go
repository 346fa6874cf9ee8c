package findings

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// Cursor marks where one page of a listing ended: the sort key of its last row. Listings are
// newest first, so the page after a cursor holds the rows that sort strictly after that row.
// Keyset paging (rather than an offset) keeps a page cheap however deep it is, and rows
// inserted while a reader pages (new exchanges are always newest) neither repeat nor shift
// the pages that follow.
//
// Findings are folded in place, so a finding seen again while a reader pages moves to the
// front: it may then be missed by that reader's later pages and appears on a fresh listing.
type Cursor struct {
	// Micros is the last row's sort time (an exchange's start, a finding's last sighting) in
	// microseconds since the Unix epoch, as stored.
	Micros int64 `json:"t"`
	// Keys break ties among rows with that time: an exchange's ID; a finding's target, rule ID
	// and key.
	Keys []string `json:"k"`
}

// IsZero reports whether c is the start of a listing.
func (c Cursor) IsZero() bool { return c.Micros == 0 && len(c.Keys) == 0 }

// String encodes c for a URL (the admin API's cursor parameter); ParseCursor reads it back.
func (c Cursor) String() string {
	if c.IsZero() {
		return ""
	}
	b, _ := json.Marshal(c) // a struct of an int and strings always encodes
	return base64.RawURLEncoding.EncodeToString(b)
}

// ErrBadCursor is returned by ParseCursor for a value no page produced.
var ErrBadCursor = errors.New("cursor: not a value from a previous page's Link header (start again without one)")

// maxCursorBytes bounds what ParseCursor decodes: a cursor holds one row's key, never more.
const maxCursorBytes = 4096

// ParseCursor reads a cursor written by Cursor.String; "" is the zero cursor.
func ParseCursor(s string) (Cursor, error) {
	var c Cursor
	if s == "" {
		return c, nil
	}
	if len(s) > maxCursorBytes {
		return c, ErrBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, ErrBadCursor
	}
	if err := json.Unmarshal(b, &c); err != nil || c.IsZero() || len(c.Keys) > 3 {
		return Cursor{}, ErrBadCursor
	}
	return c, nil
}

// ExchangeCursor is the cursor after ex in an exchange listing.
func ExchangeCursor(ex Exchange) Cursor {
	return Cursor{Micros: ex.Start.UnixMicro(), Keys: []string{ex.ID}}
}

// FindingCursor is the cursor after f in a finding listing.
func FindingCursor(f Finding) Cursor {
	return Cursor{Micros: f.LastSeen.UnixMicro(), Keys: []string{f.Target, f.RuleID, f.Key}}
}

// after builds the condition "sorts after c" for a listing ordered by timeCol descending and
// then keyCols ascending; it returns "" for the zero cursor.
func (c Cursor) after(timeCol string, keyCols []string) (string, []any, error) {
	if c.IsZero() {
		return "", nil, nil
	}
	if len(c.Keys) != len(keyCols) {
		return "", nil, fmt.Errorf("%w: it belongs to another listing", ErrBadCursor)
	}
	// time < t OR (time = t AND (k1, k2, ...) > (v1, v2, ...)), written out so that both SQLite
	// and PostgreSQL read it alike.
	cond := "(" + timeCol + " < ? OR (" + timeCol + " = ? AND " + tupleAfter(keyCols) + "))"
	args := []any{c.Micros, c.Micros}
	args = append(args, tupleArgs(c.Keys)...)
	return cond, args, nil
}

// tupleAfter is "(a > ? OR (a = ? AND (b > ? OR ...)))" for the columns in order.
func tupleAfter(cols []string) string {
	if len(cols) == 1 {
		return cols[0] + " > ?"
	}
	return "(" + cols[0] + " > ? OR (" + cols[0] + " = ? AND " + tupleAfter(cols[1:]) + "))"
}

// tupleArgs repeats each value as tupleAfter's placeholders need: every column but the last
// appears twice.
func tupleArgs(vals []string) []any {
	var out []any
	for i, v := range vals {
		out = append(out, v)
		if i < len(vals)-1 {
			out = append(out, v)
		}
	}
	return out
}
