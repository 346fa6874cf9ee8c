package proxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"sync"
	"time"
)

// DefaultCAValidity is how long a CA from NewCA stays valid.
const DefaultCAValidity = 365 * 24 * time.Hour

// NewCA creates the user's own interception CA (`sentinel ca init`): an ECDSA P-256 key and a
// self-signed certificate allowed to sign leaf certificates only (path length 0). It returns
// both PEM encoded. A CA shipped with a library is public and is never used.
func NewCA(commonName string, validity time.Duration, now time.Time) (certPEM, keyPEM []byte, err error) {
	if validity <= 0 {
		validity = DefaultCAValidity
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating the CA key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("drawing a serial number: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"sentinel proxy (local interception CA)"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("signing the CA certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the CA key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

// ParseCA reads a CA pair from PEM and checks that it can sign: a CA certificate whose key
// matches. Leaf certificates for intercepted hosts are then signed with it.
func ParseCA(certPEM, keyPEM []byte) (*tls.Certificate, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("reading the CA: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("reading the CA certificate: %w", err)
	}
	if !leaf.IsCA {
		return nil, errors.New("the certificate is not a CA: create one with `sentinel ca init`")
	}
	pair.Leaf = leaf
	return &pair, nil
}

// LoadCA reads a CA pair from files written by `sentinel ca init`.
func LoadCA(certFile, keyFile string) (*tls.Certificate, error) {
	c, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("reading the CA certificate: %w (create one with `sentinel ca init`)", err)
	}
	k, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("reading the CA key: %w (create one with `sentinel ca init`)", err)
	}
	return ParseCA(c, k)
}

// maxCachedLeaves bounds the leaf certificates kept for intercepted hosts.
const maxCachedLeaves = 1024

// leafCache keeps the leaf certificate signed for each intercepted host, so a client that opens
// many connections does not pay for a signature each time.
type leafCache struct {
	mu sync.Mutex
	m  map[string]*tls.Certificate
}

// Fetch returns the cached leaf for host, or generates and keeps one. When full, the cache
// starts over rather than growing.
func (c *leafCache) Fetch(host string, gen func() (*tls.Certificate, error)) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cert, ok := c.m[host]; ok {
		return cert, nil
	}
	cert, err := gen()
	if err != nil {
		return nil, fmt.Errorf("signing a leaf certificate for %s: %w", host, err)
	}
	if c.m == nil || len(c.m) >= maxCachedLeaves {
		c.m = make(map[string]*tls.Certificate)
	}
	c.m[host] = cert
	return cert, nil
}
