package passive

import (
	"hash/maphash"
	"sync"
)

// memo remembers the results of a pure function of one input (decoding a large JSON value,
// compiling a schema, scoring a text for injection), so that the same content seen again — a scan
// reads tools/list a dozen times, a proxy sees every client fetch the same list — costs a hash and
// a comparison instead of the work. A memoised function must depend on its input alone: the memo
// changes how often it runs, never what it returns. Inputs are compared in full on a hit, so a hash
// collision can never hand back another input's result. The memo is bounded in entries and in the
// bytes of the inputs it keeps: past either bound it starts over, so a proxy that sees endless
// distinct content keeps a fixed footprint.
type memo[V any] struct {
	mu         sync.Mutex
	seed       maphash.Seed
	maxEntries int
	maxBytes   int
	bytes      int
	m          map[uint64]memoEntry[V]
}

type memoEntry[V any] struct {
	in string
	v  V
}

// newMemo returns an empty memo of at most maxEntries inputs and maxBytes bytes of input.
func newMemo[V any](maxEntries, maxBytes int) *memo[V] {
	return &memo[V]{seed: maphash.MakeSeed(), maxEntries: maxEntries, maxBytes: maxBytes}
}

// get returns f(in), computing it only when in was not seen since the memo last started over.
// f runs outside the lock, so two callers may compute the same value at once; both get it.
func (c *memo[V]) get(in string, f func(string) V) V {
	h := maphash.String(c.seed, in)
	c.mu.Lock()
	e, ok := c.m[h]
	c.mu.Unlock()
	if ok && e.in == in {
		return e.v
	}
	v := f(in)
	c.put(h, in, v)
	return v
}

// getBytes is get for an input held as bytes; f receives a copy the memo keeps, so values that
// alias their input (json.RawMessage members) stay valid whatever happens to in.
func (c *memo[V]) getBytes(in []byte, f func([]byte) V) V {
	h := maphash.Bytes(c.seed, in)
	c.mu.Lock()
	e, ok := c.m[h]
	c.mu.Unlock()
	if ok && e.in == string(in) {
		return e.v
	}
	kept := string(in)
	v := f([]byte(kept))
	c.put(h, kept, v)
	return v
}

func (c *memo[V]) put(h uint64, in string, v V) {
	if len(in) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.maxEntries || c.bytes+len(in) > c.maxBytes {
		c.m = make(map[uint64]memoEntry[V], min(c.maxEntries, 64))
		c.bytes = 0
	}
	if old, ok := c.m[h]; ok {
		c.bytes -= len(old.in)
	}
	c.m[h] = memoEntry[V]{in, v}
	c.bytes += len(in)
}
