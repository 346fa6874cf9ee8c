package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	iss = "https://issuer.test"
	aud = "https://broker.test/mcp"
)

var now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func signed(t *testing.T, method jwt.SigningMethod, key any, c jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, c).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func baseClaims() jwt.MapClaims {
	return jwt.MapClaims{"iss": iss, "aud": []string{aud}, "sub": "alice", "tenant": "acme", "exp": now.Add(time.Hour).Unix(), "scope": "eval:read eval:write"}
}

func with(c jwt.MapClaims, k string, v any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for kk, vv := range c {
		out[kk] = vv
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

func TestVerify(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	otherPub, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	_ = otherPub
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(VerifierOptions{Issuer: iss, Audience: aud, Keys: KeySet{{Public: pub}, {Public: &rsaKey.PublicKey}}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		token   string
		wantErr bool
	}{
		{"a valid EdDSA token yields its principal", signed(t, jwt.SigningMethodEdDSA, priv, baseClaims()), false},
		{"a valid RS256 token yields its principal", signed(t, jwt.SigningMethodRS256, rsaKey, baseClaims()), false},
		{"audience is matched by exact membership among several", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "aud", []string{"https://x", aud})), false},
		{"an audience differing only by a trailing slash is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "aud", []string{aud + "/"})), true},
		{"a token for another audience is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "aud", "https://other/mcp")), true},
		{"a token without aud is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "aud", nil)), true},
		{"another issuer is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "iss", "https://evil")), true},
		{"an expired token is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "exp", now.Add(-time.Hour).Unix())), true},
		{"a token without exp is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "exp", nil)), true},
		{"a token not yet valid is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "nbf", now.Add(time.Hour).Unix())), true},
		{"a token without tenant is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "tenant", nil)), true},
		{"a token without sub is refused", signed(t, jwt.SigningMethodEdDSA, priv, with(baseClaims(), "sub", nil)), true},
		{"a token signed by an unknown key is refused", signed(t, jwt.SigningMethodEdDSA, otherPriv, baseClaims()), true},
		{"alg none is refused", signed(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, baseClaims()), true},
		{"HS256 keyed with nothing we hold is refused", signed(t, jwt.SigningMethodHS256, []byte("secret"), baseClaims()), true},
		{"garbage is refused", "not.a.jwt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := v.Verify(t.Context(), tt.token)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidToken) {
					t.Fatalf("Verify() = %+v, %v; want ErrInvalidToken", p, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify() error: %v", err)
			}
			if p.Tenant != "acme" || p.Subject != "alice" || len(p.Scopes) != 2 || !p.ExpiresAt.Equal(now.Add(time.Hour)) {
				t.Errorf("Verify() = %+v", p)
			}
		})
	}
}

func TestNewVerifierNamesWhatToConfigure(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	tests := []struct {
		name string
		opts VerifierOptions
		want string
	}{
		{"no issuer", VerifierOptions{Audience: aud, Keys: KeySet{{Public: pub}}}, "creating token verifier: issuer is empty: set auth.issuer in the config"},
		{"no audience", VerifierOptions{Issuer: iss, Keys: KeySet{{Public: pub}}}, "creating token verifier: audience is empty: set auth.canonicalURI in the config"},
		{"no keys", VerifierOptions{Issuer: iss, Audience: aud}, "creating token verifier: no keys: set auth.publicKeyFile or auth.jwksFile in the config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewVerifier(tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Errorf("NewVerifier() error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMintedTokenVerifies(t *testing.T) {
	dir := t.TempDir()
	for _, alg := range []string{AlgEd25519, AlgRSA} {
		t.Run(alg, func(t *testing.T) {
			privPath, pubPath, err := Keygen(dir+"/"+alg, alg)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := Keygen(dir+"/"+alg, alg); err == nil {
				t.Error("Keygen overwrote an existing key")
			}
			key, err := LoadSigningKey(privPath)
			if err != nil {
				t.Fatal(err)
			}
			keys, err := LoadKeyFile(pubPath)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := Mint(key, MintOptions{Issuer: iss, Audience: aud, Tenant: "acme", Subject: "bob", TTL: time.Minute, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			v, _ := NewVerifier(VerifierOptions{Issuer: iss, Audience: aud, Keys: keys, Now: func() time.Time { return now }})
			p, err := v.Verify(t.Context(), tok)
			if err != nil || p.Subject != "bob" || p.Tenant != "acme" {
				t.Fatalf("Verify(minted) = %+v, %v", p, err)
			}
		})
	}
}

func TestVerifiedTokensAreRememberedOnlyUntilTheyExpire(t *testing.T) {
	key, err := GenerateKey(AlgEd25519)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	v, err := NewVerifier(VerifierOptions{Issuer: "https://iss", Audience: "https://aud/mcp", Keys: KeySet{{Public: key.Public()}}, Now: clock, Leeway: -1})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Mint(key, MintOptions{Issuer: "https://iss", Audience: "https://aud/mcp", Tenant: "acme", Subject: "alice", TTL: time.Minute, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	first, err := v.Verify(t.Context(), tok)
	if err != nil {
		t.Fatal(err)
	}
	again, err := v.Verify(t.Context(), tok)
	if err != nil || again.Tenant != first.Tenant || again.Subject != first.Subject {
		t.Fatalf("second Verify = %+v, %v; want %+v", again, err, first)
	}
	// Change one character well inside the signature: its last characters carry padding bits, and
	// one in 256 signatures already ended in "AA", so overwriting them changed nothing.
	i := len(tok) - 10
	swap := byte('A')
	if tok[i] == 'A' {
		swap = 'B'
	}
	if _, err := v.Verify(t.Context(), tok[:i]+string(swap)+tok[i+1:]); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("a token whose signature changed = %v, want ErrInvalidToken: the cache is keyed by the exact bytes", err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := v.Verify(t.Context(), tok); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("an expired token that verified before = %v, want ErrInvalidToken", err)
	}
}
