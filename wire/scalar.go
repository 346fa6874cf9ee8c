package wire

import (
	"bytes"
	"mime"
	"strconv"
)

// Readers of single values a check needs beside Object, Array and String, so that no package
// but wire parses what came off the wire (the passive checks read ids, integers, duplicate keys
// and MIME types through these).

// Int decodes a JSON integer: a number with no fraction and no exponent that fits an int; false
// for anything else, null included (which encoding/json reads into an int as 0 without error).
func Int(b []byte) (int, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || (b[i] != '-' && (b[i] < '0' || b[i] > '9')) {
		return 0, false
	}
	end, err := scanNumber(b, i)
	if err != nil || skipSpace(b, end) != len(b) {
		return 0, false
	}
	for _, c := range b[i:end] {
		if c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(b[i:end]))
	if err != nil { // out of int's range
		return 0, false
	}
	return n, true
}

// SameID compares two raw JSON-RPC ids by value: 1 and 1.0 match, "1" and 1 do not, "a" and
// "\u0061" do, null matches null. An id of another JSON type (true, an object) matches nothing;
// bytes that are not JSON at all match only the same bytes. A nil id matches nothing.
func SameID(a, b []byte) bool {
	if a == nil || b == nil {
		return false
	}
	ka, sa, fa := idValue(a)
	kb, sb, fb := idValue(b)
	switch {
	case ka == idInvalid || kb == idInvalid:
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	case ka != kb:
		return false
	case ka == idNull:
		return true
	case ka == idString:
		return sa == sb
	case ka == idNumber:
		return fa == fb
	}
	return false
}

type idKind int

const (
	idInvalid idKind = iota
	idNull
	idString
	idNumber
	idOther
)

// idValue classifies one JSON value for SameID: a string (unquoted), a number (its float64
// value, as encoding/json reads one into an any), null, another valid value, or not JSON.
func idValue(b []byte) (kind idKind, s string, f float64) {
	i := skipSpace(b, 0)
	if i >= len(b) {
		return idInvalid, "", 0
	}
	end, err := scanValue(b, i, 0)
	if err != nil || skipSpace(b, end) != len(b) {
		return idInvalid, "", 0
	}
	tok := b[i:end]
	switch c := tok[0]; {
	case c == '"':
		return idString, unquote(tok), 0
	case c == 'n':
		return idNull, "", 0
	case c == '-' || ('0' <= c && c <= '9'):
		f, err := strconv.ParseFloat(string(tok), 64)
		if err != nil { // out of float64's range: encoding/json fails to decode it too
			return idInvalid, "", 0
		}
		return idNumber, "", f
	}
	return idOther, "", 0
}

// DuplicateKey returns the first key repeated at the top level of the JSON object b (keys
// compared once decoded), "" when none is or b is not one valid JSON object.
func DuplicateKey(b []byte) string {
	seen := map[string]bool{}
	var dup string
	err := EachMember(b, func(k string, _ []byte) error {
		if seen[k] && dup == "" {
			dup = k
		}
		seen[k] = true
		return nil
	})
	if err != nil {
		return ""
	}
	return dup
}

// IsMediaType reports whether s reads as a MIME media type with its parameters, as
// mime.ParseMediaType reads one (which also accepts a bare token such as "png").
func IsMediaType(s string) bool {
	if s == "" {
		return false
	}
	_, _, err := mime.ParseMediaType(s)
	return err == nil
}
