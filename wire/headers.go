package wire

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Header names Sentinel sends or inspects, in one place so that a typo cannot make a check
// silently look at the wrong header. Names are case-insensitive on the wire; these are the
// canonical spellings of the 2026-07-28 streamable-http page.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	// HeaderParamPrefix is followed by the x-mcp-header name of a tools/call argument.
	HeaderParamPrefix   = "Mcp-Param-"
	HeaderSessionID     = "Mcp-Session-Id"
	HeaderLastEventID   = "Last-Event-ID"
	HeaderOrigin        = "Origin"
	HeaderAccept        = "Accept"
	HeaderContentType   = "Content-Type"
	HeaderAuthorization = "Authorization"
	HeaderAuthenticate  = "WWW-Authenticate"
	HeaderAccelBuffer   = "X-Accel-Buffering"
	HeaderAllow         = "Allow"
)

// Media types of the transport.
const (
	ContentTypeJSON = "application/json"
	ContentTypeSSE  = "text/event-stream"
	// AcceptBoth is the Accept value a conforming client sends on every POST.
	AcceptBoth = ContentTypeJSON + ", " + ContentTypeSSE
)

// The base64 wrapper of header values. The markers are case-sensitive and lowercase: a value that
// uses "=?BASE64?" or lacks either marker is a literal, not an encoded value.
const (
	Base64Prefix = "=?base64?"
	Base64Suffix = "?="
)

// Redacted replaces secret header values in everything Sentinel records or prints.
const Redacted = "<redacted>"

// SensitiveHeaders are recorded with their value replaced by Redacted, whatever the caller sent:
// a saved exchange or a report must never carry a credential.
var SensitiveHeaders = []string{HeaderAuthorization, "Proxy-Authorization", "Cookie", "Set-Cookie"}

// ErrBadBase64 is returned by DecodeHeaderValue when a value carries both markers but what is
// between them is not valid standard base64 of UTF-8 text. A server must answer such a header
// with 400 and -32020.
var ErrBadBase64 = errors.New("header value has the base64 markers but invalid base64 between them")

// ParamHeader returns the header name that mirrors the tools/call argument marked
// `x-mcp-header: name`.
func ParamHeader(name string) string { return HeaderParamPrefix + name }

// NeedsEncoding reports whether a value cannot travel as a plain header value and must be sent
// in the base64 form: non-ASCII or control characters, leading or trailing space or tab, or a
// value that already looks like the wrapper.
func NeedsEncoding(v string) bool {
	if looksEncoded(v) {
		return true
	}
	if v != strings.TrimLeft(v, " \t") || v != strings.TrimRight(v, " \t") {
		return true
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\t' || (c >= 0x20 && c <= 0x7e) {
			continue
		}
		return true
	}
	return false
}

// EncodeHeaderValue returns v as a client must send it: unchanged when it is header-safe, else
// "=?base64?<standard base64 of the UTF-8 bytes>?=".
func EncodeHeaderValue(v string) string {
	if !NeedsEncoding(v) {
		return v
	}
	return Base64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + Base64Suffix
}

// DecodeHeaderValue returns the value a header carries, decoding the base64 form exactly once.
// Optional whitespace around the value is not part of it (RFC 9110) and is trimmed first.
// encoded reports whether the wrapper was present. A wrapped value with invalid base64, or
// whose bytes are not UTF-8, is an error (ErrBadBase64); a value without both exact markers is
// returned as the literal it is.
func DecodeHeaderValue(raw string) (value string, encoded bool, err error) {
	v := strings.Trim(raw, " \t")
	if !looksEncoded(v) {
		return v, false, nil
	}
	inner := v[len(Base64Prefix) : len(v)-len(Base64Suffix)]
	b, err := base64.StdEncoding.Strict().DecodeString(inner)
	if err != nil {
		return "", true, fmt.Errorf("decoding header value %q: %w", truncate(v, 64), ErrBadBase64)
	}
	if !utf8.Valid(b) {
		return "", true, fmt.Errorf("decoding header value %q: not UTF-8: %w", truncate(v, 64), ErrBadBase64)
	}
	return string(b), true, nil
}

func looksEncoded(v string) bool {
	return len(v) >= len(Base64Prefix)+len(Base64Suffix) &&
		strings.HasPrefix(v, Base64Prefix) && strings.HasSuffix(v, Base64Suffix)
}

// HeaderValues returns every value of header name (case-insensitive), including repeated
// fields, so a check can see a header sent twice.
func HeaderValues(h http.Header, name string) []string {
	if h == nil {
		return nil
	}
	var out []string
	for k, vs := range h {
		if strings.EqualFold(k, name) {
			out = append(out, vs...)
		}
	}
	return out
}

// RedactHeader returns a copy of h with the values of SensitiveHeaders replaced by Redacted, and
// any value in extra (a token the operator supplied) replaced wherever it appears.
func RedactHeader(h http.Header, extra ...string) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		cp := make([]string, len(vs))
		for i, v := range vs {
			cp[i] = RedactString(v, extra...)
		}
		for _, s := range SensitiveHeaders {
			if strings.EqualFold(k, s) {
				for i := range cp {
					cp[i] = Redacted
				}
			}
		}
		out[k] = cp
	}
	return out
}

// RedactString replaces every occurrence of each non-empty secret in s by Redacted.
func RedactString(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
