package wire

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
)

// Inflate returns a body its sender gzip-compressed (Content-Encoding: gzip in h) decompressed,
// at most limit bytes of it, since a small body may inflate to a large one; any other body, or
// one that does not inflate, as it is. The proxy taps bodies as they crossed the wire, and the
// checks must read what the peer meant: undoing the content coding is the first step of parsing
// them, so it is wire's.
func Inflate(h http.Header, b []byte, limit int) []byte {
	if !strings.EqualFold(strings.TrimSpace(h.Get("Content-Encoding")), "gzip") || len(b) == 0 {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return b
	}
	out, err := io.ReadAll(io.LimitReader(zr, int64(limit)))
	if err != nil && len(out) == 0 {
		return b
	}
	return out
}
