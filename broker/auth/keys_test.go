package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func enc(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func TestParseJWKS(t *testing.T) {
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecBytes, _ := ek.PublicKey.Bytes()
	tests := []struct {
		name    string
		doc     string
		wantN   int
		wantErr string
	}{
		{"an Ed25519 key", `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"a","x":"` + enc(edPub) + `"}]}`, 1, ""},
		{"RSA and EC keys", `{"keys":[{"kty":"RSA","kid":"r","n":"` + enc(rk.N.Bytes()) + `","e":"` + enc(big.NewInt(int64(rk.E)).Bytes()) + `"},` +
			`{"kty":"EC","crv":"P-256","x":"` + enc(ecBytes[1:33]) + `","y":"` + enc(ecBytes[33:]) + `"}]}`, 2, ""},
		{"an encryption key is skipped", `{"keys":[{"kty":"OKP","crv":"Ed25519","use":"enc","x":"` + enc(edPub) + `"},{"kty":"OKP","crv":"Ed25519","x":"` + enc(edPub) + `"}]}`, 1, ""},
		{"a short Ed25519 key is an error", `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AAAA"}]}`, 0, "Ed25519 x is 3 bytes"},
		{"a small RSA modulus is an error", `{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`, 0, "want at least 2048"},
		{"an unknown kty is an error", `{"keys":[{"kty":"oct","k":"AAAA"}]}`, 0, `unsupported kty "oct"`},
		{"an empty set is an error", `{"keys":[]}`, 0, "no signing key"},
		{"not JSON is an error", `{`, 0, "decoding JWKS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ks, err := ParseJWKS([]byte(tt.doc))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseJWKS() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(ks) != tt.wantN {
				t.Fatalf("ParseJWKS() = %d keys, %v; want %d", len(ks), err, tt.wantN)
			}
			for _, k := range ks {
				if k.Algorithms() == nil {
					t.Errorf("key %+v has no algorithms", k)
				}
			}
		})
	}
}

func TestBearer(t *testing.T) {
	tests := []struct {
		name               string
		values             []string
		token              string
		present, malformed bool
	}{
		{"none", nil, "", false, false},
		{"a token", []string{"Bearer abc"}, "abc", true, false},
		{"the scheme is case-insensitive", []string{"bearer abc"}, "abc", true, false},
		{"another scheme is not a bearer", []string{"Basic abc"}, "", false, false},
		{"an empty token is malformed", []string{"Bearer "}, "", true, true},
		{"two tokens are malformed", []string{"Bearer a b"}, "", true, true},
		{"two headers are malformed", []string{"Bearer a", "Bearer b"}, "", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, p, m := bearer(tt.values)
			if tok != tt.token || p != tt.present || m != tt.malformed {
				t.Errorf("bearer(%q) = %q, %v, %v; want %q, %v, %v", tt.values, tok, p, m, tt.token, tt.present, tt.malformed)
			}
		})
	}
}

// FuzzParseJWKS asserts that every key ParseJWKS accepts is usable (has algorithms) and that
// parsing is deterministic.
func FuzzParseJWKS(f *testing.F) {
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + enc(edPub) + `"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"","y":""}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AAAAAAAB"}]}`))
	f.Add([]byte(`{"keys":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ks, err := ParseJWKS(data)
		if err != nil {
			if ks != nil {
				t.Fatal("keys returned with an error")
			}
			return
		}
		if len(ks) == 0 {
			t.Fatal("success with no keys")
		}
		for _, k := range ks {
			if k.Algorithms() == nil {
				t.Fatalf("accepted a key with no algorithm: %T", k.Public)
			}
		}
		ks2, _ := ParseJWKS(data)
		a, _ := json.Marshal(ks)
		b, _ := json.Marshal(ks2)
		if string(a) != string(b) {
			t.Fatal("parsing is not deterministic")
		}
	})
}

// FuzzParsePEMKeys asserts that every key accepted from PEM has a verification algorithm, and
// that a failure returns no keys.
func FuzzParsePEMKeys(f *testing.F) {
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n"))
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		ks, err := ParsePEMKeys(data)
		if err != nil {
			if ks != nil {
				t.Fatal("keys returned with an error")
			}
			return
		}
		if len(ks) == 0 {
			t.Fatal("success with no keys")
		}
		for _, k := range ks {
			if k.Algorithms() == nil {
				t.Fatalf("accepted a key with no algorithm: %T", k.Public)
			}
		}
	})
}
