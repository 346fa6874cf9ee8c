package broker

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestDecodeHeaderValueAcceptsOnlyTheLowerCaseBase64Form(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"=?base64?c2VudGluZWwtcHJvYmUtYWJzZW50LcO8?=", "sentinel-probe-absent-ü", true},
		{"=?base64?ZmxhZ19pbmplY3Rpb24=?=", "flag_injection", true},
		{"flag_injection", "", false},
		{"=?BASE64?ZmxhZ19pbmplY3Rpb24=?=", "", false},
		{"=?base64?not base64!?=", "", false},
		{"=?base64?/w==?=", "", false}, // 0xff is not UTF-8
		{"=?base64?ZmxhZw==", "", false},
	}
	for _, tc := range tests {
		got, ok := decodeHeaderValue(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("decodeHeaderValue(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestDecodeParamHeadersRewritesMcpNameForTheNextHandler(t *testing.T) {
	var seen string
	h := decodeParamHeaders(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = r.Header.Get("Mcp-Name") }))
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Mcp-Name", "=?base64?ZmxhZ19pbmplY3Rpb24=?=")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if seen != "flag_injection" {
		t.Fatalf("next handler saw Mcp-Name %q, want flag_injection", seen)
	}
	if req.Header.Get("Mcp-Name") != "=?base64?ZmxhZ19pbmplY3Rpb24=?=" {
		t.Fatal("the caller's request was modified")
	}
}

// FuzzDecodeHeaderValue: decoding never panics, and whatever it accepts is valid UTF-8 framed by
// the sentinel.
func FuzzDecodeHeaderValue(f *testing.F) {
	f.Add("=?base64?ZmxhZw==?=")
	f.Add("=?base64??=")
	f.Fuzz(func(t *testing.T, v string) {
		if _, ok := decodeHeaderValue(v); ok && (len(v) < len(encodedPrefix)+len(encodedSuffix) || v[:len(encodedPrefix)] != encodedPrefix) {
			t.Fatalf("accepted %q without the sentinel", v)
		}
	})
}
