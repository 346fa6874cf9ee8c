package findings

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-sentinel/sentinel/wire"
)

// Redacted replaces every removed value, so a reader sees that something was there.
const Redacted = "[redacted]"

// DefaultRedactKeys are JSON field names whose values are never stored, matched without regard
// to case. Options.RedactKeys adds to them.
var DefaultRedactKeys = []string{
	"access_token", "accessToken", "refresh_token", "refreshToken", "id_token", "idToken",
	"token", "client_secret", "clientSecret", "password", "secret", "api_key", "apiKey",
	"authorization", "cookie",
}

// credentialHeader reports whether a header carries credentials and is dropped before storing:
// Authorization, cookies, and anything whose name says token, secret, password, auth or API key.
func credentialHeader(name string) bool {
	// Header names are short ASCII: lower them on the stack (every stored exchange asks this of
	// each of its headers); only a long or non-ASCII name pays for strings.ToLower.
	var buf [64]byte
	if len(name) <= len(buf) {
		low := buf[:len(name)]
		for i := 0; i < len(name); i++ {
			c := name[i]
			if c >= 0x80 {
				low = nil
				break
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		if low != nil {
			return lowCredential(low)
		}
	}
	return lowCredential([]byte(strings.ToLower(name)))
}

// credentialWords are what a lower-case header name that carries credentials contains.
var credentialWords = [][]byte{[]byte("auth"), []byte("token"), []byte("secret"), []byte("password"), []byte("api-key"), []byte("apikey")}

// lowCredential is credentialHeader for a name already in lower case.
func lowCredential(n []byte) bool {
	switch string(n) {
	case "cookie", "set-cookie":
		return true
	}
	for _, w := range credentialWords {
		if bytes.Contains(n, w) {
			return true
		}
	}
	return false
}

// StripCredentials returns a copy of h without credential headers; nil stays nil.
func StripCredentials(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, v := range h {
		if credentialHeader(k) {
			continue
		}
		out[k] = append([]string(nil), v...)
	}
	return out
}

// Redactor removes named fields from stored JSON payloads. Build one with NewRedactor.
type Redactor struct {
	keys map[string]bool
	re   *regexp.Regexp
	// maxKey, lens and firsts describe the keys for the cheap "nothing to do" test: the longest
	// key in bytes, which lengths occur (bit n for length n ≤ 63), and which lower-case first
	// bytes.
	maxKey int
	lens   uint64
	firsts [256]bool
}

// NewRedactor redacts DefaultRedactKeys plus extra (case-insensitive field names).
func NewRedactor(extra []string) *Redactor {
	r := &Redactor{keys: map[string]bool{}}
	var alts []string
	for _, k := range append(append([]string(nil), DefaultRedactKeys...), extra...) {
		k = strings.TrimSpace(k)
		if k == "" || r.keys[strings.ToLower(k)] {
			continue
		}
		low := strings.ToLower(k)
		r.keys[low] = true
		r.maxKey = max(r.maxKey, len(low))
		if len(low) < 64 {
			r.lens |= 1 << len(low)
		}
		r.firsts[low[0]] = true
		alts = append(alts, regexp.QuoteMeta(k))
	}
	sort.Strings(alts)
	// The fallback for payloads that are not one JSON value (SSE streams, truncated bodies):
	// a quoted key, a colon, then a string (possibly cut short) or a bare scalar.
	r.re = regexp.MustCompile(`(?i)("(?:` + strings.Join(alts, "|") + `)"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^\s,}\]]+)`)
	return r
}

// Payload returns body with the values of redacted fields replaced by "[redacted]". A valid JSON
// value is rewritten structurally (field order kept, nested values under a redacted key removed
// whole); anything else (an SSE stream, a truncated body) by pattern.
func (r *Redactor) Payload(body []byte) []byte {
	if len(body) == 0 || !r.mayHold(body) {
		return body
	}
	if wire.Valid(body) {
		var buf bytes.Buffer
		changed := false
		if r.value(&buf, body, &changed) == nil {
			if !changed {
				return body // nothing to remove: keep the bytes as they were
			}
			return buf.Bytes()
		}
	}
	return r.re.ReplaceAll(body, []byte(`${1}"`+Redacted+`"`))
}

func (r *Redactor) value(buf *bytes.Buffer, raw []byte, changed *bool) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		buf.Write(raw)
		return nil
	}
	// wire's scanner, the one decoder of captured bytes: members in order, values as slices of
	// raw (no copies, however deep the payload).
	first := true
	sep := func() {
		if !first {
			buf.WriteByte(',')
		}
		first = false
	}
	if raw[0] == '[' {
		buf.WriteByte('[')
		if err := wire.EachElement(raw, func(v []byte) error { sep(); return r.value(buf, v, changed) }); err != nil {
			return err
		}
		buf.WriteByte(']')
		return nil
	}
	buf.WriteByte('{')
	err := wire.EachMember(raw, func(key string, v []byte) error {
		sep()
		writeString(buf, key)
		buf.WriteByte(':')
		if r.keys[strings.ToLower(key)] {
			*changed = true
			writeString(buf, Redacted)
			return nil
		}
		return r.value(buf, v, changed)
	})
	if err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

// writeString writes s as a JSON string without HTML escaping, as captured bytes are kept.
func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	buf.Truncate(buf.Len() - 1) // Encode appends a newline
}

// mayHold reports whether body mentions a redacted key at all (as a quoted name, ignoring case):
// most payloads do not, and they are stored without being walked. It looks only at the text
// between consecutive quotes, in place: a large body is scanned once and never copied.
func (r *Redactor) mayHold(body []byte) bool {
	var low [64]byte
	for i := bytes.IndexByte(body, '"'); i >= 0; {
		rest := body[i+1:]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			return false
		}
		first := rest[0]
		if 'A' <= first && first <= 'Z' {
			first += 'a' - 'A'
		}
		switch {
		case j == 0 || j > r.maxKey || !r.firsts[first] || (j < 64 && r.lens&(1<<j) == 0):
		case j <= len(low):
			for k, c := range rest[:j] {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				low[k] = c
			}
			if r.keys[string(low[:j])] {
				return true
			}
		case r.keys[strings.ToLower(string(rest[:j]))]: // a configured key longer than the buffer
			return true
		}
		i += 1 + j
	}
	return false
}

// URL returns raw with credentials removed: userinfo dropped and the values of query
// parameters named like a redacted key (?access_token=...) replaced. A URL that does not parse
// is kept only up to its query.
func (r *Redactor) URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		base, _, _ := strings.Cut(raw, "?")
		return base
	}
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k := range q {
			if r.keys[strings.ToLower(k)] {
				q[k] = []string{Redacted}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}
