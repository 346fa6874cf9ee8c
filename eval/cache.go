package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// JudgeCache remembers judge answers for identical requests, so a repeated ambiguous case costs
// no judge call (the verdict then says DecidedBy cache). Implementations must be safe for
// concurrent use.
type JudgeCache interface {
	Get(key string) (JudgeVerdict, bool)
	Put(key string, v JudgeVerdict)
}

// cacheKey binds an answer to the judge model, the metric version and the full request, so a
// changed model, pattern set or context never reuses a stale answer.
func cacheKey(model, metricVersion string, req JudgeRequest) string {
	h := sha256.New()
	for _, s := range []string{model, metricVersion, req.Metric, req.Response} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, c := range req.Context {
		h.Write([]byte(c.ID))
		h.Write([]byte{0})
		h.Write([]byte(c.Content))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// MemoryCache is a bounded in-process JudgeCache that evicts the oldest entry when full.
type MemoryCache struct {
	mu    sync.Mutex
	size  int
	order []string
	items map[string]JudgeVerdict
}

// DefaultCacheSize is the MemoryCache capacity when NewMemoryCache is given size <= 0.
const DefaultCacheSize = 4096

var _ JudgeCache = (*MemoryCache)(nil)

// NewMemoryCache returns a cache holding at most size answers (DefaultCacheSize if size <= 0).
func NewMemoryCache(size int) *MemoryCache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &MemoryCache{size: size, items: map[string]JudgeVerdict{}}
}

// Get returns the answer stored under key.
func (c *MemoryCache) Get(key string) (JudgeVerdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.items[key]
	return v, ok
}

// Put stores an answer, evicting the oldest when the cache is full.
func (c *MemoryCache) Put(key string, v JudgeVerdict) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; !ok {
		if len(c.order) >= c.size {
			delete(c.items, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, key)
	}
	c.items[key] = v
}
