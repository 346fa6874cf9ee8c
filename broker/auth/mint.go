package auth

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Key file names written by Keygen.
const (
	PrivateKeyFile = "private.pem"
	PublicKeyFile  = "public.pem"
)

// Key algorithms Keygen can create.
const (
	AlgEd25519 = "ed25519"
	AlgRSA     = "rsa"
)

// GenerateKey creates a signing key: Ed25519 (the default, for an empty alg) or RSA-3072.
func GenerateKey(alg string) (crypto.Signer, error) {
	switch strings.ToLower(alg) {
	case "", AlgEd25519:
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating Ed25519 key: %w", err)
		}
		return priv, nil
	case AlgRSA:
		priv, err := rsa.GenerateKey(rand.Reader, 3072)
		if err != nil {
			return nil, fmt.Errorf("generating RSA key: %w", err)
		}
		return priv, nil
	default:
		return nil, fmt.Errorf("unknown key algorithm %q: use %q or %q", alg, AlgEd25519, AlgRSA)
	}
}

// Keygen writes a new key pair to dir as private.pem (PKCS#8, mode 0600) and public.pem (PKIX),
// creating dir if needed, and refuses to overwrite an existing key.
func Keygen(dir, alg string) (privPath, pubPath string, err error) {
	signer, err := GenerateKey(alg)
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("creating key directory: %w", err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(signer)
	if err != nil {
		return "", "", fmt.Errorf("encoding private key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(signer.Public())
	if err != nil {
		return "", "", fmt.Errorf("encoding public key: %w", err)
	}
	privPath = filepath.Join(dir, PrivateKeyFile)
	pubPath = filepath.Join(dir, PublicKeyFile)
	if err := writeNew(privPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), 0o600); err != nil {
		return "", "", err
	}
	if err := writeNew(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		return "", "", err
	}
	return privPath, pubPath, nil
}

func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("writing key file (delete the old one or pick another --out): %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// LoadSigningKey reads the PKCS#8 private key that Keygen wrote.
func LoadSigningKey(path string) (crypto.Signer, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, fmt.Errorf("loading signing key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("loading signing key %s: no PRIVATE KEY block (use the private.pem from `broker token keygen`)", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("loading signing key %s: %w", path, err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("loading signing key %s: key type %T cannot sign", path, k)
	}
	return signer, nil
}

// MintOptions describes a development token.
type MintOptions struct {
	Issuer   string
	Audience string
	Tenant   string
	Subject  string
	Scopes   []string
	// TTL is the lifetime; it must be positive.
	TTL time.Duration
	// Now is the issue time; zero means time.Now().
	Now time.Time
}

// Mint signs a token for local use: EdDSA for an Ed25519 key, RS256 for RSA.
func Mint(key crypto.Signer, o MintOptions) (string, error) {
	if o.Issuer == "" || o.Audience == "" || o.Tenant == "" || o.Subject == "" {
		return "", errors.New("minting token: issuer, audience, tenant and subject are all required")
	}
	if o.TTL <= 0 {
		return "", fmt.Errorf("minting token: ttl %s must be positive", o.TTL)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	var method jwt.SigningMethod
	switch key.(type) {
	case ed25519.PrivateKey:
		method = jwt.SigningMethodEdDSA
	case *rsa.PrivateKey:
		method = jwt.SigningMethodRS256
	default:
		return "", fmt.Errorf("minting token: unsupported key type %T", key)
	}
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    o.Issuer,
			Subject:   o.Subject,
			Audience:  jwt.ClaimStrings{o.Audience},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(o.TTL)),
		},
		Tenant: o.Tenant,
		Scope:  strings.Join(o.Scopes, " "),
	}
	s, err := jwt.NewWithClaims(method, c).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("minting token: signing: %w", err)
	}
	return s, nil
}
