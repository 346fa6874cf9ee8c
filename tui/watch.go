package tui

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

// Backoff bounds for reconnecting to the admin API.
const (
	minBackoff = 500 * time.Millisecond
	maxBackoff = 10 * time.Second
	// findingsLimit is how many aggregated findings are loaded.
	findingsLimit = 5000
	// historyLimit is how many stored exchanges are loaded on connect; live ones are added
	// up to the ring's capacity.
	historyLimit = 2000
	// findingsEvery throttles reloading the aggregated findings while new ones stream in.
	findingsEvery = time.Second
)

// Watch keeps cache in step with the admin API until ctx ends: it subscribes to the live
// stream, then loads stored findings and exchanges (so nothing falls in a gap), then applies
// live events. When the API is unreachable or the stream breaks it records why in the cache and
// retries with exponential backoff (0.5 s doubling to 10 s), loading what it missed on return.
func Watch(ctx context.Context, c *Client, cache *Cache, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	backoff := minBackoff
	attempt := 0
	var last time.Time // newest exchange start seen, for loading what was missed
	for ctx.Err() == nil {
		cache.SetConn(Conn{State: Connecting, Attempt: attempt})
		var stale atomic.Bool
		refresh := make(chan struct{}, 1)
		loopCtx, cancel := context.WithCancelCause(ctx)
		go refreshFindings(loopCtx, c, cache, &stale, refresh, log)
		live := &liveState{cache: cache, last: &last, stale: &stale, refresh: refresh,
			resolve: make(chan Row, 16), sighted: map[string]bool{}, log: log, loading: true}
		go resolveFeatures(loopCtx, c, cache, live.resolve, log)
		var connected atomic.Bool
		err := c.Events(loopCtx, func() error {
			// Load history while the stream is read into a queue, so the proxy never has to
			// drop live events for a reader busy loading.
			go func() {
				if err := loadHistory(loopCtx, c, cache, &last); err != nil {
					cancel(err)
					return
				}
				if live.loaded() {
					connected.Store(true)
				}
			}()
			return nil
		}, func(ev sseEvent) error {
			live.apply(ev)
			return nil
		})
		if cause := context.Cause(loopCtx); cause != nil && ctx.Err() == nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
		cancel(nil)
		live.close()
		if connected.Load() {
			attempt, backoff = 0, minBackoff
		}
		if ctx.Err() != nil {
			return
		}
		attempt++
		log.Warn("admin API unreachable", "error", err, "retry_in", backoff.String())
		cache.SetConn(Conn{State: Down, Err: err.Error(), RetryAt: time.Now().Add(backoff), Attempt: attempt})
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

func loadHistory(ctx context.Context, c *Client, cache *Cache, last *time.Time) error {
	fs, err := c.Findings(ctx, findingsLimit)
	if err != nil {
		return err
	}
	cache.SetFindings(fs, len(fs) >= findingsLimit)
	first := last.IsZero()
	rows, features, err := c.ExchangeRows(ctx, *last, historyLimit)
	if err != nil {
		return err
	}
	cache.AddFeatures(features)
	for _, r := range rows {
		if r.Started.After(*last) {
			*last = r.Started
		}
	}
	cache.AddExchanges(rows)
	if len(rows) >= historyLimit {
		cache.SetHistoryCapped(first)
	}
	return nil
}

// liveState is what one live-stream connection remembers between events.
type liveState struct {
	mu sync.Mutex
	// loading queues events while the history loads; overflow counts what was lost.
	loading  bool
	queued   []sseEvent
	overflow bool
	closed   bool

	cache   *Cache
	last    *time.Time
	stale   *atomic.Bool
	refresh chan struct{}
	resolve chan Row
	// sighted are exchanges with a finding from a rule that grades deprecated features: once
	// their summary (and so their stored record) arrives, their bodies are read for features.
	sighted map[string]bool
	log     *slog.Logger
}

// sightingRules are the rules whose failures mean "a deprecated feature is in use" without
// saying which; the exchange is read to find out.
// Resolved on first use, not at start-up.
var sightingRules = sync.OnceValue(func() map[string]bool {
	return map[string]bool{rules.IDOf("deprecated-features-avoided"): true, rules.IDOf("no-new-http-sse"): true}
})

// maxQueued bounds the events held while the history loads.
const maxQueued = 20000

// apply handles one live event, or queues it while the history is loading.
func (s *liveState) apply(ev sseEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loading {
		if len(s.queued) < maxQueued {
			s.queued = append(s.queued, ev)
		} else {
			s.overflow = true
		}
		return
	}
	s.applyLocked(ev)
}

// loaded applies the events queued during the history load, in order, and goes live, unless
// the connection already closed; it reports whether it went live.
func (s *liveState) loaded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	for _, ev := range s.queued {
		s.applyLocked(ev)
	}
	s.queued, s.loading = nil, false
	if s.overflow {
		s.cache.SetHistoryCapped(false)
	}
	s.cache.SetConn(Conn{State: Live, Since: time.Now()})
	return true
}

// close marks the connection over, so a history load finishing late cannot claim "live".
func (s *liveState) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
}

func (s *liveState) applyLocked(ev sseEvent) {
	switch ev.Name {
	case "finding":
		var f findings.Finding
		if err := json.Unmarshal(ev.Data, &f); err != nil {
			s.log.Warn("undecodable finding event", "error", err)
			return
		}
		s.cache.AddLiveFinding(f)
		if sightingRules()[f.RuleID] && f.ExchangeID != "" && len(s.sighted) < maxPending {
			s.sighted[f.ExchangeID] = true
		}
		s.stale.Store(true)
		select {
		case s.refresh <- struct{}{}:
		default:
		}
	case "exchange":
		var r Row
		if err := json.Unmarshal(ev.Data, &r); err != nil {
			s.log.Warn("undecodable exchange event", "error", err)
			return
		}
		if r.Started.After(*s.last) {
			*s.last = r.Started
		}
		s.cache.AddExchange(r)
		if s.sighted[r.ID] {
			delete(s.sighted, r.ID)
			select {
			case s.resolve <- r:
			default: // a burst of sightings: the header keeps naming the rule instead
			}
		}
	}
}

// resolveFeatures reads the bodies of exchanges with deprecation sightings and records the
// features they show, one request at a time.
func resolveFeatures(ctx context.Context, c *Client, cache *Cache, in <-chan Row, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-in:
			ex, err := c.Exchange(ctx, r)
			if err != nil {
				log.Warn("reading an exchange for deprecated features", "exchange_id", r.ID, "error", err)
				continue
			}
			cache.AddFeatures(featuresOf(ex))
		}
	}
}

// refreshFindings reloads the aggregated findings at most once per findingsEvery while live
// findings keep arriving, so counts and first/last seen come from the store, not from guesses.
func refreshFindings(ctx context.Context, c *Client, cache *Cache, stale *atomic.Bool, refresh <-chan struct{}, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-refresh:
		}
		t := time.NewTimer(findingsEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if !stale.Swap(false) {
			continue
		}
		fs, err := c.Findings(ctx, findingsLimit)
		if err != nil {
			log.Warn("reloading findings", "error", err)
			stale.Store(true)
			continue
		}
		cache.SetFindings(fs, len(fs) >= findingsLimit)
	}
}
