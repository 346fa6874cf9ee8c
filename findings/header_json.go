package findings

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// headerJSON is json.Marshal(StripCredentials(h)) written without the copy of h and without
// reflection, byte for byte the same (keys sorted, strings escaped as encoding/json escapes them,
// an empty value list as null): every stored exchange encodes two headers, and the generic path
// was about a fifth of what writing a small exchange row cost.
func headerJSON(h http.Header) string {
	if h == nil {
		return "null"
	}
	var keysBuf [32]string
	keys := keysBuf[:0]
	size := 2
	for k, vs := range h {
		if credentialHeader(k) {
			continue
		}
		keys = append(keys, k)
		size += len(k) + 8
		for _, v := range vs {
			size += len(v) + 3
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, k)
		b.WriteByte(':')
		vs := h[k]
		if len(vs) == 0 {
			b.WriteString("null")
			continue
		}
		b.WriteByte('[')
		for j, v := range vs {
			if j > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b, v)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// writeJSONString writes s as a JSON string. The common case (printable ASCII that encoding/json
// leaves alone) is copied as is; anything else is encoded by encoding/json itself, so the two
// never differ.
func writeJSONString(b *strings.Builder, s string) {
	if plainJSON(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	q, err := json.Marshal(s)
	if err != nil { // a string always encodes; keep the output valid JSON all the same
		q = []byte(`""`)
	}
	b.Write(q)
}

// plainJSON reports whether encoding/json writes s between quotes unchanged: printable ASCII
// without the characters it escapes (quote, backslash, and <, > and & for HTML safety).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
