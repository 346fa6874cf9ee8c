package passive

import (
	"crypto/sha256"
	"sync"
)

// memo remembers the results of a pure function of one string (compiling a schema, scoring a
// text for injection) by the SHA-256 of its input, so that the same tool list seen again — a
// scan reads tools/list a dozen times, a proxy sees every client list it — costs a hash instead
// of the work. A memoised function must depend on its input alone: the memo changes how often
// it runs, never what it returns. The memo is bounded: when it holds max entries it starts over,
// so a proxy that sees endless distinct schemas keeps a fixed footprint.
type memo[V any] struct {
	mu  sync.Mutex
	max int
	m   map[[sha256.Size]byte]V
}

// newMemo returns an empty memo of at most max entries.
func newMemo[V any](max int) *memo[V] { return &memo[V]{max: max} }

// get returns f(in), computing it only when in was not seen since the memo last started over.
// f runs outside the lock, so two callers may compute the same value at once; both get it.
func (c *memo[V]) get(in string, f func(string) V) V {
	key := sha256.Sum256([]byte(in))
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = f(in)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[[sha256.Size]byte]V, min(c.max, 64))
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}
