package wire

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodeHeaderValueFollowsTheSpecExamples(t *testing.T) {
	tests := []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"", ""},
	}
	for _, tc := range tests {
		if got := EncodeHeaderValue(tc.in); got != tc.want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDecodeHeaderValueTreatsOnlyExactMarkersAsBase64(t *testing.T) {
	tests := []struct {
		name, in, want string
		encoded        bool
		err            bool
	}{
		{"plain", "get_weather", "get_weather", false, false},
		{"surrounding whitespace is trimmed", "  foo \t", "foo", false, false},
		{"encoded", "=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", true, false},
		{"uppercase marker is a literal", "=?BASE64?Zm9v?=", "=?BASE64?Zm9v?=", false, false},
		{"missing suffix is a literal", "=?base64?Zm9v", "=?base64?Zm9v", false, false},
		{"missing prefix is a literal", "Zm9v?=", "Zm9v?=", false, false},
		{"invalid base64", "=?base64?!!!?=", "", true, true},
		{"unpadded base64 is invalid", "=?base64?Zm9vYg?=", "", true, true},
		{"not UTF-8", "=?base64?/w==?=", "", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, enc, err := DecodeHeaderValue(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if err != nil && !errors.Is(err, ErrBadBase64) {
				t.Errorf("err = %v, want ErrBadBase64", err)
			}
			if got != tc.want || enc != tc.encoded {
				t.Errorf("got (%q, %v), want (%q, %v)", got, enc, tc.want, tc.encoded)
			}
		})
	}
}

func TestRedactHeaderHidesCredentialsAndSecrets(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer tok-123"}, "X-Api": {"key tok-123 here"}, "Accept": {"a"}}
	got := RedactHeader(h, "tok-123")
	if got.Get("Authorization") != Redacted || got.Get("X-Api") != "key <redacted> here" || got.Get("Accept") != "a" {
		t.Errorf("RedactHeader = %v", got)
	}
	if h.Get("Authorization") != "Bearer tok-123" {
		t.Error("RedactHeader modified its input")
	}
}

func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"", "foo", " x ", "=?base64?Zm9v?=", "=?BASE64?x?=", "héllo", "a\x00b", "=?base64??="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		enc := EncodeHeaderValue(v)
		for i := 0; i < len(enc); i++ {
			if c := enc[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
				t.Fatalf("encoded %q is not header-safe: %q", v, enc)
			}
		}
		if enc != strings.Trim(enc, " \t") {
			t.Fatalf("encoded %q has surrounding whitespace: %q", v, enc)
		}
		if utf8.ValidString(v) {
			dec, _, err := DecodeHeaderValue(enc)
			if err != nil || dec != v {
				t.Fatalf("round trip of %q: got %q, %v", v, dec, err)
			}
		}
		// Decoding a plain value is the identity (after trimming), so decoding happens once.
		plain := strings.Trim(v, " \t")
		if !looksEncoded(plain) {
			dec, enc2, err := DecodeHeaderValue(v)
			if err != nil || enc2 || dec != plain {
				t.Fatalf("DecodeHeaderValue(%q) = %q, %v, %v; want the literal", v, dec, enc2, err)
			}
		}
	})
}
