package wire

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"testing"
)

func TestInflate(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write(bytes.Repeat([]byte("a"), 1000))
	_ = zw.Close()
	gz := http.Header{"Content-Encoding": {" GZip "}}
	cases := []struct {
		name  string
		h     http.Header
		body  []byte
		limit int
		want  []byte
	}{
		{"gzip inflated", gz, z.Bytes(), 4096, bytes.Repeat([]byte("a"), 1000)},
		{"gzip cut at the limit", gz, z.Bytes(), 10, bytes.Repeat([]byte("a"), 10)},
		{"not gzip: as it is", http.Header{}, z.Bytes(), 4096, z.Bytes()},
		{"says gzip, is not: as it is", gz, []byte(`{"a":1}`), 4096, []byte(`{"a":1}`)},
		{"empty", gz, nil, 4096, nil},
	}
	for _, c := range cases {
		if got := Inflate(c.h, c.body, c.limit); !bytes.Equal(got, c.want) {
			t.Errorf("%s: Inflate = %d bytes %.20q, want %d bytes", c.name, len(got), got, len(c.want))
		}
	}
}

func FuzzInflate(f *testing.F) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	_ = zw.Close()
	f.Add(z.Bytes())
	f.Add([]byte("not gzip"))
	gz := http.Header{"Content-Encoding": {"gzip"}}
	f.Fuzz(func(t *testing.T, b []byte) {
		if out := Inflate(gz, b, 1<<16); len(out) > max(len(b), 1<<16) {
			t.Fatalf("Inflate returned %d bytes past its limit", len(out))
		}
	})
}
