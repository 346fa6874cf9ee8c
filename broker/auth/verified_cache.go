package auth

import (
	"slices"
	"sync"
	"time"
)

// verifiedCache remembers principals of tokens that verified, by the SHA-256 of the token's bytes
// (the token itself is never kept). An entry answers only while its token is unexpired: the same
// bytes verify to the same principal until then, since the keys, issuer and audience are fixed for
// the Verifier's life. Bounded; the oldest entry goes first.
type verifiedCache struct {
	mu    sync.Mutex
	size  int
	order [][32]byte
	items map[[32]byte]Principal
}

func newVerifiedCache(size int) *verifiedCache {
	return &verifiedCache{size: size, items: make(map[[32]byte]Principal, size)}
}

// get returns the principal for key if its token expires after notAfter (now less the leeway).
func (c *verifiedCache) get(key [32]byte, notAfter time.Time) (Principal, bool) {
	if c == nil {
		return Principal{}, false
	}
	c.mu.Lock()
	p, ok := c.items[key]
	c.mu.Unlock()
	if !ok || !p.ExpiresAt.After(notAfter) {
		return Principal{}, false
	}
	p.Scopes = slices.Clone(p.Scopes)
	return p, true
}

func (c *verifiedCache) put(key [32]byte, p Principal) {
	if c == nil {
		return
	}
	p.Scopes = slices.Clone(p.Scopes)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	if len(c.order) >= c.size {
		delete(c.items, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, key)
	c.items[key] = p
}
