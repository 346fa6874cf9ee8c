package broker

import (
	"encoding/base64"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Value encoding of parameter headers (streamable HTTP transport): a header value may be sent as
// "=?base64?<standard base64 of the UTF-8 value>?=", lower-case sentinel only, so names outside
// visible ASCII survive HTTP. The server must decode it before comparing it with the body.
const (
	encodedPrefix = "=?base64?"
	encodedSuffix = "?="
)

// paramHeaders are the headers the SDK compares with the request body.
var paramHeaders = []string{"Mcp-Name"}

// decodeParamHeaders decodes base64-encoded parameter header values in place before the SDK's
// header-versus-body check, which compares raw strings (Go SDK v1.8.0). A value that is not a
// well-formed encoding is left as sent, so the SDK still refuses the mismatch with -32020.
func decodeParamHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var r2 *http.Request
		for _, h := range paramHeaders {
			v := r.Header.Get(h)
			dec, ok := decodeHeaderValue(v)
			if !ok {
				continue
			}
			if r2 == nil {
				r2 = r.Clone(r.Context())
			}
			r2.Header.Set(h, dec)
		}
		if r2 != nil {
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}

// decodeHeaderValue returns the decoded value of an encoded header value, and false for any value
// that is not "=?base64?...?=" with valid base64 of valid UTF-8.
func decodeHeaderValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, encodedPrefix)
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, encodedSuffix)
	if !ok {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}
