package audit

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Domain separation: what an audit signature covers can never be mistaken for another message.
const (
	entryDomain      = "sentinel-audit-entry-v1\x00"
	checkpointDomain = "sentinel-audit-checkpoint-v1\x00"
)

// Signer signs audit rows and checkpoints with an Ed25519 key the database never holds: whoever
// can write the database but not read the broker's key cannot make a row or a checkpoint that
// verifies.
type Signer struct {
	key ed25519.PrivateKey
	id  string
}

// NewSigner wraps an Ed25519 private key.
func NewSigner(key ed25519.PrivateKey) *Signer {
	pub, _ := key.Public().(ed25519.PublicKey)
	return &Signer{key: key, id: KeyID(pub)}
}

// GenerateSigner makes a signer with a fresh key (tests, and a broker's first start).
func GenerateSigner() (*Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating an audit key: %w", err)
	}
	return NewSigner(priv), nil
}

// KeyID is the id rows carry for the key that signed them: the first 16 hex digits of the
// SHA-256 of the public key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// ID is the signer's key id.
func (s *Signer) ID() string { return s.id }

// Public is the verification key.
func (s *Signer) Public() ed25519.PublicKey {
	pub, _ := s.key.Public().(ed25519.PublicKey)
	return pub
}

// SignRecord sets r's KeyID and Sig: the signature covers r's hash, which commits to the entry,
// its position and every entry before it.
func (s *Signer) SignRecord(r *Record) {
	r.KeyID = s.id
	r.Sig = hex.EncodeToString(ed25519.Sign(s.key, []byte(entryDomain+r.Hash)))
}

// Keys are the verification keys a verifier trusts, by key id.
type Keys map[string]ed25519.PublicKey

// Add trusts pub.
func (k Keys) Add(pub ed25519.PublicKey) { k[KeyID(pub)] = pub }

// VerifyRecord reports whether r carries a valid signature of its hash by a trusted key.
func (k Keys) VerifyRecord(r Record) bool {
	return k.verify(r.KeyID, r.Sig, entryDomain+r.Hash)
}

func (k Keys) verify(keyID, sigHex, msg string) bool {
	pub, ok := k[keyID]
	if !ok {
		return false
	}
	sig, err := hex.DecodeString(sigHex)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(pub, []byte(msg), sig)
}

// Checkpoint is a signed statement of the chain's head: at time At, the chain had Seq entries
// and entry Seq had hash Hash. Written periodically and on shutdown, to the database and to a
// file outside it; a verifier holding the latest one detects a truncated or rewritten tail.
type Checkpoint struct {
	Seq   int64  `json:"seq"`
	Hash  string `json:"hash"`
	At    int64  `json:"at"` // unix microseconds
	KeyID string `json:"keyId"`
	Sig   string `json:"sig"`
}

func (c Checkpoint) message() string {
	return checkpointDomain + strconv.FormatInt(c.Seq, 10) + "\x00" + c.Hash + "\x00" + strconv.FormatInt(c.At, 10)
}

// SignCheckpoint signs c (Seq, Hash, At) and returns it with KeyID and Sig set.
func (s *Signer) SignCheckpoint(c Checkpoint) Checkpoint {
	c.KeyID = s.id
	c.Sig = hex.EncodeToString(ed25519.Sign(s.key, []byte(c.message())))
	return c
}

// VerifyCheckpoint reports whether c is signed by a trusted key.
func (k Keys) VerifyCheckpoint(c Checkpoint) bool {
	return k.verify(c.KeyID, c.Sig, c.message())
}

// LoadSigner reads an Ed25519 private key (PKCS#8 PEM) from path.
func LoadSigner(path string) (*Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the audit key: %w", err)
	}
	return ParseSigner(b)
}

// ParseSigner reads an Ed25519 private key from PKCS#8 PEM, or from 64 hex digits (the seed),
// the form an environment variable carries.
func ParseSigner(data []byte) (*Signer, error) {
	if seed, err := hex.DecodeString(strings.TrimSpace(string(data))); err == nil && len(seed) == ed25519.SeedSize {
		return NewSigner(ed25519.NewKeyFromSeed(seed)), nil
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("reading the audit key: neither PEM nor a 64-hex-digit seed")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("reading the audit key: %w", err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, errors.New("reading the audit key: not an Ed25519 key")
	}
	return NewSigner(priv), nil
}

// LoadOrCreateSigner reads the key at path, or creates one there (mode 0600, its folder 0700)
// when the file does not exist; created reports which. Creation is atomic (a complete file is
// linked into place), so replicas starting together on one folder end up with one key.
func LoadOrCreateSigner(path string) (s *Signer, created bool, err error) {
	s, err = LoadSigner(path)
	if err == nil {
		return s, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	}
	s, err = GenerateSigner()
	if err != nil {
		return nil, false, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(s.key)
	if err != nil {
		return nil, false, fmt.Errorf("encoding the audit key: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("creating the audit key's folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".audit-key-*")
	if err != nil {
		return nil, false, fmt.Errorf("creating the audit key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := pem.Encode(tmp, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		_ = tmp.Close()
		return nil, false, fmt.Errorf("writing the audit key: %w", err)
	}
	if err := errors.Join(tmp.Sync(), tmp.Close()); err != nil {
		return nil, false, fmt.Errorf("writing the audit key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			s, err := LoadSigner(path) // another process created it first: use that one
			return s, false, err
		}
		return nil, false, fmt.Errorf("creating the audit key: %w", err)
	}
	return s, true, nil
}

// LoadKeys reads verification keys from path: Ed25519 private keys (PKCS#8) or public keys
// (PKIX) in PEM, any number of blocks, so one file can trust every replica's key.
func LoadKeys(path string) (Keys, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading audit keys: %w", err)
	}
	keys := Keys{}
	if s, err := ParseSigner(b); err == nil && !strings.Contains(string(b), "-----") {
		keys.Add(s.Public())
		return keys, nil
	}
	for rest := b; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		switch block.Type {
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if priv, ok := k.(ed25519.PrivateKey); err == nil && ok {
				keys.Add(priv.Public().(ed25519.PublicKey))
				continue
			}
		case "PUBLIC KEY":
			k, err := x509.ParsePKIXPublicKey(block.Bytes)
			if pub, ok := k.(ed25519.PublicKey); err == nil && ok {
				keys.Add(pub)
				continue
			}
		}
		return nil, fmt.Errorf("reading audit keys from %s: a %s block that is not an Ed25519 key", path, block.Type)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("reading audit keys from %s: no key found", path)
	}
	return keys, nil
}

// PublicPEM is the signer's public key in PEM, to hand to whoever verifies.
func (s *Signer) PublicPEM() []byte {
	der, _ := x509.MarshalPKIXPublicKey(s.Public())
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}
