package tui

import (
	"sort"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
)

// DefaultCapacity is how many exchanges the TUI keeps; older ones are dropped and counted.
const DefaultCapacity = 10000

// maxPending bounds findings held for exchanges whose summary has not arrived yet.
const maxPending = 4096

// ConnState says what the TUI knows about its link to the admin API.
type ConnState int

// Connection states. The header always shows which one holds, so an empty list never reads as
// "no traffic" when the truth is "not connected".
const (
	Connecting ConnState = iota
	Live
	Down
)

// Conn is the admin API link as last seen by Watch.
type Conn struct {
	State ConnState
	// Err is why the last attempt failed (Down).
	Err string
	// RetryAt is when Watch tries again (Down); Attempt counts failures in a row.
	RetryAt time.Time
	Attempt int
	// Since is when the current live stream started (Live).
	Since time.Time
}

// Snapshot is an immutable view of the cache: the model renders from it and never locks.
type Snapshot struct {
	// Rows are the kept exchanges, oldest first.
	Rows []Row
	// Dropped counts exchanges that fell out of the ring ("N older not shown").
	Dropped int
	// Findings are the stored findings (GET /findings), most recently seen first.
	Findings []findings.Finding
	// FindingsCapped is true when the admin API returned as many findings as asked for, so more
	// may exist.
	FindingsCapped bool
	// FindingsLoaded is true once the store's findings have been read (SetFindings): until then
	// the failing-rule counts are unknown, not zero, while rows may already carry their own.
	FindingsLoaded bool
	Conn           Conn
	// Features are the deprecated or removed features (registry keys) seen in use on exchanges
	// whose bodies the TUI has read, sorted.
	Features []string
	// OlderNotLoaded is true when the store held more history than was loaded on connect;
	// GapNotLoaded when a reconnect could not load everything missed while away.
	OlderNotLoaded, GapNotLoaded bool
	// Version increases on every change.
	Version uint64
}

// Cache is the client-side store Watch fills and the model reads through Snapshot. Rows are
// append-only: a snapshot shares the backing array, which later appends never touch.
type Cache struct {
	mu       sync.Mutex
	capacity int
	rows     []Row
	start    int // rows[start:] are kept
	dropped  int
	index    map[string]struct{}
	pending  map[string][]findings.Finding
	found    []findings.Finding
	capped   bool
	loaded   bool // SetFindings has been called
	older    bool
	features map[string]bool
	featList []string
	gap      bool
	conn     Conn
	version  uint64
	notify   chan struct{}
}

// NewCache returns an empty cache holding at most capacity exchanges (0 → DefaultCapacity).
func NewCache(capacity int) *Cache {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Cache{capacity: capacity, index: map[string]struct{}{}, pending: map[string][]findings.Finding{},
		notify: make(chan struct{}, 1)}
}

// Changed delivers a value (coalesced) after each change, for the model's changedMsg.
func (c *Cache) Changed() <-chan struct{} { return c.notify }

func (c *Cache) changedLocked() {
	c.version++
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// AddExchange appends one exchange unless its ID is already kept, attaching findings that
// arrived for it first. Returns false for a duplicate.
func (c *Cache) AddExchange(r Row) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.addLocked(r) {
		return false
	}
	c.changedLocked()
	return true
}

// AddExchanges appends rows given newest first (the admin API's order), skipping known IDs.
func (c *Cache) AddExchanges(newestFirst []Row) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for i := len(newestFirst) - 1; i >= 0; i-- {
		if c.addLocked(newestFirst[i]) {
			n++
		}
	}
	if n > 0 {
		c.changedLocked()
	}
	return n
}

func (c *Cache) addLocked(r Row) bool {
	if _, ok := c.index[r.ID]; ok {
		return false
	}
	if fs, ok := c.pending[r.ID]; ok {
		r.Findings = append(r.Findings[:len(r.Findings):len(r.Findings)], fs...)
		delete(c.pending, r.ID)
	}
	if len(r.Findings) == 0 {
		r.Findings = c.latestFindingsLocked(r.ID)
	}
	r.finalize()
	c.index[r.ID] = struct{}{}
	c.rows = append(c.rows, r)
	for len(c.rows)-c.start > c.capacity {
		delete(c.index, c.rows[c.start].ID) // the row itself stays: snapshots may still show it
		c.start++
		c.dropped++
	}
	if c.start > c.capacity { // compact into a fresh array; old snapshots keep theirs
		kept := make([]Row, len(c.rows)-c.start, c.capacity*2)
		copy(kept, c.rows[c.start:])
		c.rows, c.start = kept, 0
	}
	return true
}

// latestFindingsLocked returns stored findings whose latest exchange is id.
func (c *Cache) latestFindingsLocked(id string) []findings.Finding {
	var out []findings.Finding
	for _, f := range c.found {
		if f.ExchangeID == id {
			out = append(out, f)
		}
	}
	return out
}

// AddLiveFinding records a finding from the live stream against its exchange; the exchange's
// summary follows it on the stream. It does not touch the aggregated list, which is reloaded
// from the store (SetFindings) so counts are never double-counted.
func (c *Cache) AddLiveFinding(f findings.Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.ExchangeID == "" {
		return
	}
	if len(c.pending) >= maxPending {
		for k := range c.pending { // drop an arbitrary one: bounded memory beats completeness
			delete(c.pending, k)
			break
		}
	}
	for _, p := range c.pending[f.ExchangeID] {
		if p.RuleID == f.RuleID {
			return
		}
	}
	c.pending[f.ExchangeID] = append(c.pending[f.ExchangeID], f)
}

// SetFindings replaces the aggregated findings with the store's answer. capped says the answer
// hit the requested limit.
func (c *Cache) SetFindings(fs []findings.Finding, capped bool) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].LastSeen.After(fs[j].LastSeen) })
	c.mu.Lock()
	defer c.mu.Unlock()
	c.found, c.capped, c.loaded = fs, capped, true
	c.changedLocked()
}

// AddFeatures records deprecated or removed features seen in use.
func (c *Cache) AddFeatures(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	added := false
	for _, k := range keys {
		if !c.features[k] {
			if c.features == nil {
				c.features = map[string]bool{}
			}
			c.features[k] = true
			added = true
		}
	}
	if !added {
		return
	}
	c.featList = make([]string, 0, len(c.features)) // a fresh slice: snapshots keep theirs
	for k := range c.features {
		c.featList = append(c.featList, k)
	}
	sort.Strings(c.featList)
	c.changedLocked()
}

// SetHistoryCapped records that a history load hit its limit: on the first connect older
// exchanges exist that were not loaded; on a reconnect, some exchanges of the gap are missing.
func (c *Cache) SetHistoryCapped(first bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if first {
		c.older = true
	} else {
		c.gap = true
	}
	c.changedLocked()
}

// SetConn records the state of the admin API link.
func (c *Cache) SetConn(conn Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn = conn
	c.changedLocked()
}

// Snapshot returns the current state without copying rows.
func (c *Cache) Snapshot() Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	rows := c.rows[c.start:len(c.rows):len(c.rows)]
	return Snapshot{Rows: rows, Dropped: c.dropped, Findings: c.found, FindingsCapped: c.capped,
		FindingsLoaded: c.loaded, Conn: c.conn, Features: c.featList, OlderNotLoaded: c.older, GapNotLoaded: c.gap, Version: c.version}
}
