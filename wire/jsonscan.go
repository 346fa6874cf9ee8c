package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// The JSON scanner under every decode in wire. encoding/json reads a message as a token stream
// and copies each member into a json.RawMessage, so navigating a message (params, then
// params._meta, then arguments) scanned and copied the same bytes once per level and per caller:
// a 256 KiB tools/call was scanned a dozen times. This scanner validates a value in one pass and
// returns its members as slices of the bytes it was given, never copies; it accepts exactly what
// encoding/json accepts (FuzzScanAgreesWithEncodingJSON), including its nesting bound.

// maxNesting is encoding/json's own bound on nested arrays and objects.
const maxNesting = 10000

// errSyntax is a scan failure: what was wrong and where.
type errSyntax struct {
	msg string
	off int
}

func (e *errSyntax) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.off) }

func syntaxErr(b []byte, i int, what string) error {
	if i >= len(b) {
		return &errSyntax{"unexpected end of JSON input", i}
	}
	return &errSyntax{fmt.Sprintf("invalid character %q %s", b[i], what), i}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanValue validates the value starting at b[i] (no leading space) and returns the index just
// past it.
func scanValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return i, syntaxErr(b, i, "")
	}
	switch c := b[i]; {
	case c == '{':
		return scanObject(b, i, depth+1, nil)
	case c == '[':
		return scanArray(b, i, depth+1, nil)
	case c == '"':
		end, _, err := scanString(b, i)
		return end, err
	case c == '-' || ('0' <= c && c <= '9'):
		return scanNumber(b, i)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	}
	return i, syntaxErr(b, i, "looking for beginning of value")
}

func scanLiteral(b []byte, i int, lit string) (int, error) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(b) || b[i+k] != lit[k] {
			return i + k, syntaxErr(b, i+k, "in literal "+lit)
		}
	}
	return i + len(lit), nil
}

func scanNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return i, syntaxErr(b, i, "in numeric literal")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, syntaxErr(b, i, "after decimal point in numeric literal")
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, syntaxErr(b, i, "in exponent of numeric literal")
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	return i, nil
}

// scanString validates the string starting at b[i] (a quote) and returns the index past its
// closing quote and whether it holds an escape. A valid string is scanned by scanStringFast; any
// other is scanned again byte by byte (scanStringSlow), which says what is wrong and where.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	if end, escaped, ok := scanStringFast(b, i); ok {
		return end, escaped, nil
	}
	return scanStringSlow(b, i)
}

// scanStringFast finds the closing quote and each backslash with bytes.IndexByte (vector
// instructions on amd64 and arm64) and then checks the whole string for control bytes a word at
// a time, three quick passes in place of scanStringSlow's one slow one: the long strings of a
// large body (a 256 KiB tools/call argument) are what grading a large exchange spends its time
// on (BenchmarkDecodeMessage256KiB). Each pass starts where the last one stopped, so a string
// dense with escapes costs no more than one pass per escape's length. It reports ok=false for
// anything that is not a valid string, without saying why.
func scanStringFast(b []byte, i int) (end int, escaped, ok bool) {
	start := i + 1
	j := start
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return 0, false, false
		}
		q += j
		for j < q {
			k := bytes.IndexByte(b[j:q], '\\')
			if k < 0 {
				j = q
				break
			}
			k += j
			escaped = true
			if k+1 >= len(b) {
				return 0, false, false
			}
			switch b[k+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j = k + 2
			case 'u':
				if k+6 > len(b) || !isHex(b[k+2]) || !isHex(b[k+3]) || !isHex(b[k+4]) || !isHex(b[k+5]) {
					return 0, false, false
				}
				j = k + 6
			default:
				return 0, false, false
			}
		}
		if j == q {
			end = q + 1
			break
		}
		// The quote at q was escaped (the last escape ended past it): look for the next one.
	}
	if hasControl(b[start : end-1]) {
		return 0, false, false
	}
	return end, escaped, true
}

// hasControl reports whether b holds a byte below 0x20, which a JSON string may not hold raw.
func hasControl(b []byte) bool {
	i := 0
	for ; i+32 <= len(b); i += 32 {
		x0 := binary.LittleEndian.Uint64(b[i:])
		x1 := binary.LittleEndian.Uint64(b[i+8:])
		x2 := binary.LittleEndian.Uint64(b[i+16:])
		x3 := binary.LittleEndian.Uint64(b[i+24:])
		if hasLess(x0, 0x20) || hasLess(x1, 0x20) || hasLess(x2, 0x20) || hasLess(x3, 0x20) {
			return true
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if hasLess(binary.LittleEndian.Uint64(b[i:]), 0x20) {
			return true
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return true
		}
	}
	return false
}

// scanStringSlow is scanString's byte-at-a-time scan, with encoding/json's errors.
func scanStringSlow(b []byte, i int) (end int, escaped bool, err error) {
	for i++; i < len(b); i++ {
		// Eight plain bytes at a time (no quote, backslash or control byte among them): the
		// long strings of a large body are what a scan spends its time on.
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if hasLess(x, 0x20) || hasZero(x^(lsb*'"')) || hasZero(x^(lsb*'\\')) {
				break
			}
			i += 8
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(b) {
				return i, escaped, syntaxErr(b, i, "")
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k >= len(b) || !isHex(b[i+k]) {
						return i + k, escaped, syntaxErr(b, i+k, "in \\u hexadecimal character escape")
					}
				}
				i += 4
			default:
				return i, escaped, syntaxErr(b, i, "in string escape code")
			}
		case c < 0x20:
			return i, escaped, syntaxErr(b, i, "in string literal")
		}
	}
	return i, escaped, syntaxErr(b, i, "")
}

// lsb and msb are the lowest and highest bit of each byte of a word.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasZero reports whether a byte of x is zero; hasLess whether one is below n (n <= 128).
func hasZero(x uint64) bool         { return (x-lsb)&^x&msb != 0 }
func hasLess(x uint64, n byte) bool { return (x-lsb*uint64(n))&^x&msb != 0 }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanObject validates the object starting at b[i] ('{'); member, when set, is called with each
// member's key (the quoted bytes) and value, in order.
func scanObject(b []byte, i, depth int, member func(key, val []byte) error) (int, error) {
	return scanObjectNested(b, i, depth, member, nil)
}

// scanObjectNested is scanObject, and nested, when set, is asked for each member's key (the
// quoted bytes) whether to see into its value in the same pass: a non-nil answer gathers the
// members of that value when the value is an object. A nested
// object is then scanned once, not once here and again when it is split (a 256 KiB tools/call
// argument was scanned twice by DecodeMessage).
func scanObjectNested(b []byte, i, depth int, member func(key, val []byte) error, nested func(key []byte) *objectSplit) (int, error) {
	if depth > maxNesting {
		return i, &errSyntax{"exceeded max depth", i}
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, syntaxErr(b, i, "looking for beginning of object key string")
		}
		kStart := i
		kEnd, _, err := scanString(b, i)
		if err != nil {
			return kEnd, err
		}
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return i, syntaxErr(b, i, "after object key")
		}
		i = skipSpace(b, i+1)
		vStart := i
		var inner *objectSplit
		if nested != nil && i < len(b) && b[i] == '{' {
			inner = nested(b[kStart:kEnd])
		}
		if inner != nil {
			// What scanValue does for an object, gathering its members.
			i, err = scanObject(b, i, depth+1, inner.add)
		} else {
			i, err = scanValue(b, i, depth)
		}
		if err != nil {
			return i, err
		}
		if member != nil {
			if err := member(b[kStart:kEnd], b[vStart:i]); err != nil {
				return i, err
			}
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		return i, syntaxErr(b, i, "after object key:value pair")
	}
}

// scanArray validates the array starting at b[i] ('['); elem, when set, is called with each
// element, in order.
func scanArray(b []byte, i, depth int, elem func(val []byte)) (int, error) {
	if depth > maxNesting {
		return i, &errSyntax{"exceeded max depth", i}
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		start := i
		var err error
		if i, err = scanValue(b, i, depth); err != nil {
			return i, err
		}
		if elem != nil {
			elem(b[start:i])
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		return i, syntaxErr(b, i, "after array element")
	}
}

// unquote decodes a quoted JSON string that scanString accepted, as encoding/json does
// (invalid UTF-8 becomes U+FFFD); the plain case without escapes costs one copy.
func unquote(q []byte) string {
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		if s, ok := intern(inner); ok {
			return s
		}
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(q, &s) // q is a valid string literal
	return s
}

// interned are the member names and values every MCP message repeats, in byte order: unquote
// returns these strings instead of a fresh copy (most of what grading a small exchange
// allocated was copies of its keys). An array of constants is static data, built by nothing at
// start-up; a comparison with string(b) does not convert b.
var interned = [...]string{
	"$schema", "2.0", ProtocolVersion, "_meta", "annotations", "arguments", "array", "assistant",
	"audio", "blob", "boolean", "cacheScope", "capabilities", "clientInfo", "code", "complete",
	"content", "contents", "cursor", "data", "description", "error", "id", "image", "inputRequests",
	"inputSchema", "input_required", "integer", MetaClientCapabilities, MetaClientInfo, MetaLogLevel,
	MetaProtocolVersion, MetaServerInfo, MetaSubscriptionID, "isError", "items", "jsonrpc",
	"message", "messages", "method", "mimeType", "name", "nextCursor", "notifications/message",
	"notifications/progress", "number", "object", "outputSchema", "params", "private", "progress",
	"progressToken", "prompts", "prompts/get", "prompts/list", "properties", "public", "requestState",
	"required", "resource", "resourceTemplates", "resource_link", "resources", "resources/list",
	"resources/read", "result", "resultType", "role", "server/discover", "serverInfo", "string",
	"structuredContent", "text", "title", "tools", "tools/call", "tools/list", "total", "ttlMs",
	"type", "uri", "user", "version",
}

// intern returns the interned string equal to b, if there is one.
func intern(b []byte) (string, bool) {
	lo, hi := 0, len(interned)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if string(b) > interned[m] {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(interned) && string(b) == interned[lo] {
		return interned[lo], true
	}
	return "", false
}

// Object returns the members of a JSON object, each value a slice of b (not a copy); nil when b
// is not one valid JSON object. A key present twice keeps its last value, as encoding/json
// does; DecodeMessage, which must reject such a message, is stricter. It is how checks read
// into a message: one validating pass over b, no copy.
func Object(b []byte) map[string]json.RawMessage {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	out := map[string]json.RawMessage{}
	end, err := scanObject(b, i, 1, func(key, val []byte) error {
		out[unquote(key)] = val
		return nil
	})
	if err != nil || skipSpace(b, end) != len(b) {
		return nil
	}
	return out
}

// Array returns the elements of a JSON array, each a slice of b; nil when b is not one valid
// JSON array (an empty array is a non-nil empty slice).
func Array(b []byte) []json.RawMessage {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil
	}
	out := []json.RawMessage{}
	end, err := scanArray(b, i, 1, func(val []byte) { out = append(out, val) })
	if err != nil || skipSpace(b, end) != len(b) {
		return nil
	}
	return out
}

// String decodes a JSON string value; false when b is not one.
func String(b []byte) (string, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '"' {
		return "", false
	}
	end, _, err := scanString(b, i)
	if err != nil || skipSpace(b, end) != len(b) {
		return "", false
	}
	return unquote(b[i:end]), true
}

// EachMember calls fn with each member of the JSON object b, in order: its key decoded and its
// value as a slice of b, validating b in the same pass. It returns fn's first error, or an error
// when b is not one JSON object (members before the fault were already passed to fn). It is for
// readers that must keep the order (the store's redaction rewrites a payload member by member).
func EachMember(b []byte, fn func(key string, val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotObject
	}
	end, err := scanObject(b, i, 1, func(q, v []byte) error { return fn(unquote(q), v) })
	if err == nil && skipSpace(b, end) != len(b) {
		err = errors.New("data after the JSON object")
	}
	return err
}

// ErrNotArray is returned by EachElement for a value that is not a JSON array.
var ErrNotArray = errors.New("not a JSON array")

// EachElement calls fn with each element of the JSON array b, in order, as slices of b; like
// EachMember for arrays.
func EachElement(b []byte, fn func(val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return ErrNotArray
	}
	var ferr error
	end, err := scanArray(b, i, 1, func(v []byte) {
		if ferr == nil {
			ferr = fn(v)
		}
	})
	switch {
	case ferr != nil:
		return ferr
	case err == nil && skipSpace(b, end) != len(b):
		return errors.New("data after the JSON array")
	}
	return err
}

// Valid reports whether b is one JSON value (space around it allowed), as json.Valid does, in
// the scanner's one pass.
func Valid(b []byte) bool {
	i := skipSpace(b, 0)
	end, err := scanValue(b, i, 0)
	return err == nil && skipSpace(b, end) == len(b)
}
