package proxy

import "sync/atomic"

// DefaultMemoryBudget is how many bytes grading may hold at once (64 MiB): the bodies kept of
// exchanges in flight and queued, and the records waiting to be stored.
const DefaultMemoryBudget = 64 << 20

// recordShare is the part of the budget only records may use (1/8): bodies may fill the rest,
// so that an exchange whose bodies found no room can still be recorded.
const recordShare = 8

// Budget bounds the bytes the grading pipeline holds. Every byte kept is reserved first and
// released when the exchange is stored, so what the proxy holds for grading never passes the
// limit, however large or many the bodies: past it, a body is not kept and its exchange is
// recorded as not graded. It is also what a kill -9 can lose. Safe for concurrent use.
type Budget struct {
	limit     int64
	bodyLimit int64
	used      atomic.Int64
	peak      atomic.Int64
}

// NewBudget returns a budget of limit bytes; limit ≤ 0 means DefaultMemoryBudget.
func NewBudget(limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultMemoryBudget
	}
	return &Budget{limit: limit, bodyLimit: limit - limit/recordShare}
}

// reserveBody reserves n bytes for a body, within the part of the budget bodies may use.
func (b *Budget) reserveBody(n int64) bool { return b.reserve(n, b.bodyLimit) }

// reserveRecord reserves n bytes for a record waiting to be stored, within the whole budget.
func (b *Budget) reserveRecord(n int64) bool { return b.reserve(n, b.limit) }

func (b *Budget) reserve(n, limit int64) bool {
	if n <= 0 {
		return true
	}
	for {
		u := b.used.Load()
		if u+n > limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			for p := b.peak.Load(); u+n > p && !b.peak.CompareAndSwap(p, u+n); p = b.peak.Load() {
			}
			return true
		}
	}
}

// release gives back n reserved bytes.
func (b *Budget) release(n int64) {
	if n > 0 {
		b.used.Add(-n)
	}
}

// Used is how many bytes are reserved now; Peak the most ever reserved at once; Limit the
// budget.
func (b *Budget) Used() int64  { return b.used.Load() }
func (b *Budget) Peak() int64  { return b.peak.Load() }
func (b *Budget) Limit() int64 { return b.limit }
