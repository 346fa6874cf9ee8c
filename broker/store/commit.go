package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
)

// Group commit: every acknowledged call ends in one durable write (its audit row, and for an
// evaluation the evaluation and its handle). One committer goroutine per store takes whatever
// calls are waiting, writes them all in one transaction — one lock, one head read, three
// multi-row inserts, one commit (one fsync) — and only then answers each of them. Nothing is
// acknowledged before its transaction committed; under load the cost of a commit is shared, and
// with one caller a commit carries one call and waits for nobody.
const (
	// maxBatch bounds the calls one transaction carries.
	maxBatch = 128
	// commitTimeout bounds one transaction.
	commitTimeout = 10 * time.Second
	// linger is how long the committer waits for more calls when the last transaction carried
	// more than one (calls are arriving concurrently): a commit's cost is mostly fixed, so a
	// slightly fuller transaction is cheaper per call. A lone caller never waits.
	linger = time.Millisecond
)

// ErrClosed is returned for a commit submitted after Close.
var ErrClosed = errors.New("the store is closed")

type commitReq struct {
	ctx  context.Context
	rec  CallRecord
	done chan commitRes
}

type commitRes struct {
	rec audit.Record
	err error
}

type committer struct {
	s        *sqlStore
	reqs     chan *commitReq
	quit     chan struct{}
	finished chan struct{}
	once     sync.Once
}

func newCommitter(s *sqlStore) *committer {
	c := &committer{s: s, reqs: make(chan *commitReq, maxBatch), quit: make(chan struct{}), finished: make(chan struct{})}
	go c.run()
	return c
}

func (c *committer) stop() {
	if c == nil {
		return
	}
	c.once.Do(func() { close(c.quit) })
	<-c.finished
}

// Commit hands r to the committer and waits for its transaction.
func (s *sqlStore) Commit(ctx context.Context, r CallRecord) (audit.Record, error) {
	req := &commitReq{ctx: ctx, rec: r, done: make(chan commitRes, 1)}
	select {
	case s.commit.reqs <- req:
	case <-ctx.Done():
		return audit.Record{}, fmt.Errorf("committing the call record: %w", ctx.Err())
	case <-s.commit.quit:
		return audit.Record{}, ErrClosed
	}
	// Once handed over the call may be in a transaction already: wait for its outcome, so the
	// caller never takes for unwritten what was written. A call handed over after the committer
	// drained at Close is never taken, and says so.
	select {
	case res := <-req.done:
		return res.rec, res.err
	case <-s.commit.finished:
		select {
		case res := <-req.done:
			return res.rec, res.err
		default:
			return audit.Record{}, ErrClosed
		}
	}
}

// Append is Commit of an audit entry alone.
func (s *sqlStore) Append(ctx context.Context, e audit.Entry) (audit.Record, error) {
	return s.Commit(ctx, CallRecord{Audit: e})
}

func (c *committer) run() {
	defer close(c.finished)
	batch := make([]*commitReq, 0, maxBatch)
	last := 0
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case r := <-c.reqs:
			batch = append(batch[:0], r)
		case <-c.quit:
			c.drain()
			return
		}
		c.gather(&batch)
		if last > 1 && len(batch) < maxBatch {
			timer.Reset(linger)
		wait:
			for len(batch) < maxBatch {
				select {
				case r := <-c.reqs:
					batch = append(batch, r)
				case <-timer.C:
					break wait
				}
			}
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		}
		last = len(batch)
		c.flush(batch)
	}
}

// gather adds what is already waiting, without waiting.
func (c *committer) gather(batch *[]*commitReq) {
	for len(*batch) < maxBatch {
		select {
		case r := <-c.reqs:
			*batch = append(*batch, r)
		default:
			return
		}
	}
}

// drain answers what is queued at Close: it is committed, since its callers are waiting.
func (c *committer) drain() {
	for {
		select {
		case r := <-c.reqs:
			c.flush([]*commitReq{r})
		default:
			return
		}
	}
}

// flush commits the batch's live calls in one transaction. If that fails and it carried more than
// one call, each is retried in a transaction of its own, so one bad call cannot fail the others.
func (c *committer) flush(batch []*commitReq) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- commitRes{err: fmt.Errorf("committing the call record: %w", err)}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	recs, err := c.s.commitBatch(live)
	if err == nil {
		for i, r := range live {
			r.done <- commitRes{rec: recs[i]}
		}
		return
	}
	if len(live) == 1 {
		live[0].done <- commitRes{err: err}
		return
	}
	for _, r := range live {
		recs, err := c.s.commitBatch([]*commitReq{r})
		if err != nil {
			r.done <- commitRes{err: err}
			continue
		}
		r.done <- commitRes{rec: recs[0]}
	}
}

// commitBatch writes the calls' evaluations, handles and audit rows in one transaction.
func (s *sqlStore) commitBatch(batch []*commitReq) ([]audit.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("committing %d call records: %w", len(batch), err)
	}
	defer func() { _ = tx.Rollback() }()
	var (
		evs     []*Evaluation
		hs      []*Handle
		entries = make([]audit.Entry, len(batch))
	)
	for i, r := range batch {
		if r.rec.Evaluation != nil {
			evs = append(evs, r.rec.Evaluation)
		}
		if r.rec.Handle != nil {
			hs = append(hs, r.rec.Handle)
		}
		entries[i] = r.rec.Audit
	}
	if err := s.insertEvaluations(ctx, tx, evs); err != nil {
		return nil, err
	}
	if err := s.insertHandles(ctx, tx, hs); err != nil {
		return nil, err
	}
	recs, err := s.appendTx(ctx, tx, entries)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("committing %d call records: %w", len(batch), err)
	}
	s.warm(ctx)
	return recs, nil
}
