package eval

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"sync"
)

// JudgeCache remembers judge answers for identical requests, so a repeated ambiguous case costs
// no judge call (the verdict then says DecidedBy cache). Keys are opaque digests from CacheKey:
// an implementation never sees a tenant, a text or a model name, only which answers are the same.
// Implementations must be safe for concurrent use.
type JudgeCache interface {
	Get(key string) (JudgeVerdict, bool)
	Put(key string, v JudgeVerdict)
}

// CacheKey binds a judge answer to everything that could change it and to whom it belongs: the
// tenant (an answer one tenant paid for, about a text only it sent, is never served to another),
// the judge model, the metric version and the full request (metric, response, every context
// item's id, source and content, the task and the deterministic tier's hint). ok is false when
// tenant is empty: an answer that belongs to nobody is never cached.
func CacheKey(tenant, model, metricVersion string, req JudgeRequest) (key string, ok bool) {
	if tenant == "" {
		return "", false
	}
	h := sha256.New()
	field := func(s string) {
		// Length-prefixed, so no two distinct requests hash alike by moving text between fields.
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	for _, s := range []string{"judge-cache-v2", tenant, model, metricVersion, req.Metric, req.Response, req.Task, req.Hint} {
		field(s)
	}
	field(strconv.Itoa(len(req.Context)))
	for _, c := range req.Context {
		field(c.ID)
		field(c.Source)
		field(c.Content)
	}
	return hex.EncodeToString(h.Sum(nil)), true
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
