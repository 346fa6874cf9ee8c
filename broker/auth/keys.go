package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
)

// MaxKeyFileBytes bounds what LoadKeyFile and LoadJWKSFile read: key material is small, and a
// config pointing at the wrong (huge) file should fail fast rather than be read whole.
const MaxKeyFileBytes = 1 << 20

// Key is one verification key with the signing algorithms it may verify. Binding algorithms to the
// key type is what stops algorithm confusion (an HS256 token "signed" with an RSA public key).
type Key struct {
	// ID is the JWK kid; empty for a PEM key. A token naming a kid is checked only with that key.
	ID string
	// Public is an ed25519.PublicKey, *rsa.PublicKey or *ecdsa.PublicKey (P-256).
	Public crypto.PublicKey
}

// Algorithms returns the JWS algorithms this key can verify; nil for an unsupported key type.
func (k Key) Algorithms() []string {
	switch pub := k.Public.(type) {
	case ed25519.PublicKey:
		return []string{"EdDSA"}
	case *rsa.PublicKey:
		return []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
	case *ecdsa.PublicKey:
		if pub.Curve == elliptic.P256() {
			return []string{"ES256"}
		}
	}
	return nil
}

// KeySet is the set of keys tokens are verified against.
type KeySet []Key

// LoadKeyFile reads every PUBLIC KEY block (PKIX) of a PEM file. A PRIVATE KEY block is accepted
// too and reduced to its public half, so `broker serve` can point at the key `token keygen` wrote.
func LoadKeyFile(path string) (KeySet, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, fmt.Errorf("loading verification key: %w", err)
	}
	ks, err := ParsePEMKeys(data)
	if err != nil {
		return nil, fmt.Errorf("loading verification key %s: %w", path, err)
	}
	return ks, nil
}

// ParsePEMKeys parses PEM public (or private) keys; it fails when there is none.
func ParsePEMKeys(data []byte) (KeySet, error) {
	var ks KeySet
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		var pub crypto.PublicKey
		switch block.Type {
		case "PUBLIC KEY":
			p, err := x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parsing PUBLIC KEY block: %w", err)
			}
			pub = p
		case "PRIVATE KEY":
			p, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parsing PRIVATE KEY block: %w", err)
			}
			signer, ok := p.(crypto.Signer)
			if !ok {
				return nil, errors.New("PRIVATE KEY block holds a key that cannot sign")
			}
			pub = signer.Public()
		default:
			continue
		}
		k := Key{Public: pub}
		if k.Algorithms() == nil {
			return nil, fmt.Errorf("unsupported key type %T: use Ed25519, RSA or ECDSA P-256", pub)
		}
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return nil, errors.New("no PUBLIC KEY block found: expected a PEM file such as the public.pem written by `broker token keygen`")
	}
	return ks, nil
}

// LoadJWKSFile reads a JSON Web Key Set (RFC 7517) from a file.
func LoadJWKSFile(path string) (KeySet, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, fmt.Errorf("loading JWKS: %w", err)
	}
	ks, err := ParseJWKS(data)
	if err != nil {
		return nil, fmt.Errorf("loading JWKS %s: %w", path, err)
	}
	return ks, nil
}

type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	N   string `json:"n"`
	E   string `json:"e"`
}

// ParseJWKS parses a JWK set with OKP (Ed25519), RSA and EC (P-256) keys. Keys whose "use" is
// not "sig" are skipped; a malformed key is an error rather than silently skipped, because a typo
// in a key file should not quietly lock every client out.
func ParseJWKS(data []byte) (KeySet, error) {
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decoding JWKS: %w", err)
	}
	var ks KeySet
	for i, j := range doc.Keys {
		if j.Use != "" && j.Use != "sig" {
			continue
		}
		pub, err := j.publicKey()
		if err != nil {
			return nil, fmt.Errorf("JWKS key %d (kid %q): %w", i, j.Kid, err)
		}
		ks = append(ks, Key{ID: j.Kid, Public: pub})
	}
	if len(ks) == 0 {
		return nil, errors.New("JWKS has no signing key")
	}
	return ks, nil
}

func (j jwk) publicKey() (crypto.PublicKey, error) {
	switch j.Kty {
	case "OKP":
		if j.Crv != "Ed25519" {
			return nil, fmt.Errorf("unsupported OKP curve %q", j.Crv)
		}
		x, err := b64(j.X, "x")
		if err != nil {
			return nil, err
		}
		if len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("Ed25519 x is %d bytes, want %d", len(x), ed25519.PublicKeySize)
		}
		return ed25519.PublicKey(x), nil
	case "RSA":
		n, err := b64(j.N, "n")
		if err != nil {
			return nil, err
		}
		e, err := b64(j.E, "e")
		if err != nil {
			return nil, err
		}
		if len(n) < 256 {
			return nil, fmt.Errorf("RSA modulus is %d bits, want at least 2048", len(n)*8)
		}
		if len(e) == 0 || len(e) > 4 {
			return nil, fmt.Errorf("RSA exponent has %d bytes", len(e))
		}
		exp := int(new(big.Int).SetBytes(e).Int64())
		if exp < 3 {
			return nil, fmt.Errorf("RSA exponent %d is too small", exp)
		}
		return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: exp}, nil
	case "EC":
		if j.Crv != "P-256" {
			return nil, fmt.Errorf("unsupported EC curve %q", j.Crv)
		}
		x, err := b64(j.X, "x")
		if err != nil {
			return nil, err
		}
		y, err := b64(j.Y, "y")
		if err != nil {
			return nil, err
		}
		if len(x) != 32 || len(y) != 32 {
			return nil, errors.New("P-256 coordinates must be 32 bytes each")
		}
		raw := append(append([]byte{4}, x...), y...)
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
		if err != nil {
			return nil, fmt.Errorf("P-256 point: %w", err)
		}
		return pub, nil
	default:
		return nil, fmt.Errorf("unsupported kty %q", j.Kty)
	}
}

func b64(s, field string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("missing %q", field)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("decoding %q: %w", field, err)
	}
	return b, nil
}

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, MaxKeyFileBytes+1)
	n, err := readFull(f, buf)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if n > MaxKeyFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxKeyFileBytes)
	}
	return buf[:n], nil
}
