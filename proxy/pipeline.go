package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
)

// Defaults for the grading pipeline.
const (
	// DefaultWorkers is how many goroutines grade. One keeps a busy proxy's grading to one of
	// its cores; exchanges beyond what it grades are recorded, not graded.
	DefaultWorkers = 1
	// maxBatch bounds how many exchanges one worker grades before writing them in one
	// transaction (one commit for many rows is what lets a busy proxy keep up).
	maxBatch = 256
	// recordOverhead is what a queued record costs beyond its headers, URL and bodies: the
	// structures around them, counted generously.
	recordOverhead = 1024
	// storeTimeout bounds one write to the store.
	storeTimeout = 30 * time.Second
	// linger is how long a worker that graded fewer than maxBatch exchanges waits for more
	// before writing them: a commit costs far more than a row, and at a few hundred exchanges
	// a second a batch would otherwise be one or two. It delays only recording, never traffic;
	// a stop ends it at once.
	linger = 10 * time.Millisecond
	// workSlice is how long a worker grades or writes before it gives its processor back
	// (runtime.Gosched, see write). Each yield of its locked thread hands the processor to
	// another thread and back; once per small exchange and row cost about a tenth more CPU per
	// small request than once per 100 µs, for no lower run-queue wait.
	workSlice = 100 * time.Microsecond
)

// PipelineOptions configures a Pipeline.
type PipelineOptions struct {
	// Store keeps findings and exchanges; required.
	Store findings.Store
	// Graders judge each exchange, in order. Empty means nothing is graded (exchanges are still
	// recorded).
	Graders []Grader
	// Budget bounds the bytes held for grading; nil means NewBudget(0) (64 MiB). A front end
	// keeps bodies within the same budget (Tap.Budget).
	Budget *Budget
	// MaxBody is the largest body graded, in bytes (it bounds what a compressed body inflates
	// to); 0 means DefaultMaxBody.
	MaxBody int
	// Workers is how many goroutines grade; 0 means DefaultWorkers.
	Workers int
	// Hub configures the live stream.
	Hub HubOptions
	// Logger receives one line per exchange at info and errors; nil discards.
	Logger *slog.Logger
}

// Pipeline grades and records exchanges off the traffic path. Any front end that builds
// Captures feeds it: the HTTP proxy's Tap, or a stdio shim. Submit never waits; everything it
// accepts is recorded (graded, or with why not), and what it holds is bounded by the Budget.
// Under more load than the workers grade, the budget fills with queued bodies and later
// exchanges are recorded without theirs (NotGradedBudget): grading degrades, recording does
// not.
type Pipeline struct {
	store   findings.Store
	graders []Grader
	budget  *Budget
	maxBody int
	metrics *metrics
	hub     *Hub
	log     *slog.Logger

	mu    sync.Mutex
	queue []*Capture // FIFO; its memory is accounted in budget
	// idle counts the workers waiting for work with nothing in hand. Submit wakes a worker
	// only when one is idle or a full batch waits: a worker lingering for more finds what
	// arrived when its linger ends, and each wake-up of its locked thread costs two thread
	// switches.
	idle  int
	wake  chan struct{}
	hurry bool // grading is skipped for what remains: the drain ran out of time

	historyMu sync.Mutex
	history   map[string]*targetHistory
	wg        sync.WaitGroup
	stop      chan struct{}
	stopOnce  sync.Once
}

// NewPipeline starts a pipeline's workers; Close stops them after the queue drains.
func NewPipeline(opts PipelineOptions) (*Pipeline, error) {
	if opts.Store == nil {
		return nil, errors.New("building the grading pipeline: a findings store is required")
	}
	p := &Pipeline{store: opts.Store, graders: opts.Graders, budget: opts.Budget, maxBody: opts.MaxBody,
		metrics: newMetrics(), log: opts.Logger, wake: make(chan struct{}, 1),
		history: map[string]*targetHistory{}, stop: make(chan struct{})}
	if p.budget == nil {
		p.budget = NewBudget(0)
	}
	if p.maxBody <= 0 {
		p.maxBody = DefaultMaxBody
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.hub = newHub(opts.Hub, p.metrics)
	for range orDefault(opts.Workers, DefaultWorkers) {
		p.wg.Add(1)
		go p.work()
	}
	return p, nil
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// Budget is the memory budget the pipeline accounts in; give it to the Tap that feeds it.
func (p *Pipeline) Budget() *Budget { return p.budget }

// Store is where the pipeline records.
func (p *Pipeline) Store() findings.Store { return p.store }

// Hub is the live stream of what the pipeline records.
func (p *Pipeline) Hub() *Hub { return p.hub }

// recordCost is what a queued capture holds besides its bodies (reserved by the tap).
func recordCost(c *Capture) int64 {
	n := int64(recordOverhead + len(c.URL) + len(c.Target) + len(c.ID))
	for _, h := range []map[string][]string{c.RequestHeader, c.ResponseHeader} {
		for k, vs := range h {
			n += int64(len(k)) + 16
			for _, v := range vs {
				n += int64(len(v)) + 16
			}
		}
	}
	return n
}

// Submit queues c without ever waiting. The capture's record is accounted in the budget; only
// when even a bodiless record finds no room (the store has stalled under load for long) is
// the exchange lost, and then it is counted and logged.
func (p *Pipeline) Submit(c *Capture) {
	p.metrics.exchanges.Add(1)
	p.metrics.upstream.observe(c.Upstream.Seconds())
	if c.budget == nil {
		c.budget = p.budget
	}
	cost := recordCost(c)
	if !p.budget.reserveRecord(cost) {
		c.release()
		if n := p.metrics.lost.Add(1); n == 1 || n%1000 == 0 {
			p.log.Error("exchanges lost: the grading memory budget is full and the store does not keep up",
				logExchangeID, c.ID, logLost, n)
		}
		return
	}
	c.held += cost
	p.mu.Lock()
	p.queue = append(p.queue, c)
	p.metrics.queued.Store(int64(len(p.queue)))
	wake := p.idle > 0 || len(p.queue) >= maxBatch
	p.mu.Unlock()
	if wake {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// waitable reports whether the queue is empty, and if so counts the caller idle until it
// calls busy: Submit then wakes it.
func (p *Pipeline) waitable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) > 0 {
		return false
	}
	p.idle++
	return true
}

// busy ends what waitable began.
func (p *Pipeline) busy() {
	p.mu.Lock()
	p.idle--
	p.mu.Unlock()
}

// take removes up to n captures from the queue, oldest first.
func (p *Pipeline) take(n int) ([]*Capture, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := min(n, len(p.queue))
	out := make([]*Capture, k)
	copy(out, p.queue)
	clear(p.queue[:k])
	p.queue = p.queue[k:]
	if len(p.queue) == 0 {
		p.queue = nil // let the backing array go
	}
	p.metrics.queued.Store(int64(len(p.queue)))
	return out, p.hurry
}

func (p *Pipeline) work() {
	defer p.wg.Done()
	lowerPriority()
	var r round
	r.slice.start = time.Now()
	for {
		batch, hurry := p.take(maxBatch)
		if len(batch) > 0 {
			p.gradeInto(&r, batch, hurry)
			p.lingerFor(&r)
			p.write(&r)
			continue
		}
		if !p.waitable() {
			continue
		}
		select {
		case <-p.wake:
			p.busy()
		case <-p.stop:
			p.busy()
			// Drain what is queued, then stop; Submit may still run and is recorded by
			// whichever worker wakes next.
			for {
				batch, hurry := p.take(maxBatch)
				if len(batch) == 0 {
					return
				}
				p.gradeInto(&r, batch, hurry)
				p.write(&r)
			}
		}
	}
}

// round is what a worker graded and has not written yet.
type round struct {
	caps  []*Capture
	b     findings.Batch
	slice slicer
}

// events is what the live stream carries for a round, in the order graded: each exchange's
// findings, then the exchange. It is built only when someone listens.
func (r *round) events() []Event {
	out := make([]Event, 0, len(r.b.Exchanges)+len(r.b.Findings))
	fs := r.b.Findings
	for _, rec := range r.b.Exchanges {
		n := min(rec.Findings, len(fs))
		for _, f := range fs[:n] {
			out = append(out, Event{Type: EventFinding, Data: f})
		}
		fs = fs[n:]
		out = append(out, Event{Type: EventExchange, Data: summaryOf(rec)})
	}
	return out
}

// slicer gives the worker's processor back once per workSlice of work.
type slicer struct{ start time.Time }

// yield calls runtime.Gosched when workSlice has passed since it last did.
func (s *slicer) yield() {
	if time.Since(s.start) >= workSlice {
		runtime.Gosched()
		s.start = time.Now()
	}
}

// lingerFor grades what arrives within linger of the first exchange of the round, up to
// maxBatch, so that one commit carries them all; it returns at once on stop. It is woken
// early only when a full batch waits (see Pipeline.idle), and grades the rest when the linger
// ends.
func (p *Pipeline) lingerFor(r *round) {
	if len(r.caps) >= maxBatch {
		return
	}
	t := time.NewTimer(linger)
	defer t.Stop()
	for len(r.caps) < maxBatch {
		select {
		case <-p.wake:
			batch, hurry := p.take(maxBatch - len(r.caps))
			p.gradeInto(r, batch, hurry)
		case <-t.C:
			batch, hurry := p.take(maxBatch - len(r.caps))
			p.gradeInto(r, batch, hurry)
			return
		case <-p.stop:
			return
		}
	}
}

// gradeInto grades the captures (unless hurry) into the round.
func (p *Pipeline) gradeInto(r *round, batch []*Capture, hurry bool) {
	for _, c := range batch {
		rec, fs := p.grade(c, hurry)
		r.b.Exchanges = append(r.b.Exchanges, rec)
		r.b.Findings = append(r.b.Findings, fs...)
		r.caps = append(r.caps, c)
		// Give the processor back between exchanges (see write): traffic's goroutines run
		// first, the worker next.
		r.slice.yield()
	}
}

// write stores the round in one transaction, then gives its memory back (the records hold the
// bodies until the store has them, so the budget counts them until then) and publishes it to
// the live stream.
func (p *Pipeline) write(r *round) {
	if len(r.caps) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	// While the worker runs it holds one of the runtime's processors (two, on a 2-core
	// machine), and a round of 256 exchanges takes tens of milliseconds to write in pure-Go
	// SQLite: traffic's goroutines queued on that processor would wait for the runtime's 10 ms
	// preemption or for the other processor to steal them. Between rows they go first.
	r.b.Yield = r.slice.yield
	if err := p.store.Record(ctx, r.b); err != nil {
		p.metrics.storeErrors.Add(int64(len(r.b.Exchanges)))
		p.log.Error("recording exchanges", logExchanges, len(r.b.Exchanges), logError, err)
	}
	for _, c := range r.caps {
		c.release()
	}
	if p.hub.listened() {
		p.hub.Publish(r.events()...)
	}
	// The store and the hub keep nothing they were handed (findings.Store.Record), so the
	// next round reuses the slices, emptied: growing them afresh by doubling each round was a
	// tenth of what the worker allocated per small exchange.
	clear(r.caps)
	clear(r.b.Exchanges)
	clear(r.b.Findings)
	*r = round{caps: r.caps[:0], b: findings.Batch{Exchanges: r.b.Exchanges[:0], Findings: r.b.Findings[:0]}, slice: r.slice}
}

// gradeBatch grades the captures (unless hurry) and writes them all in one transaction.
func (p *Pipeline) gradeBatch(batch []*Capture, hurry bool) {
	var r round
	p.gradeInto(&r, batch, hurry)
	p.write(&r)
}

// Close stops the workers after they recorded everything queued. When ctx ends first, what
// remains is recorded without grading (NotGradedShutdown), so a SIGTERM loses nothing; Close
// then waits at most drainGrace more for the store. Calling it again waits again.
func (p *Pipeline) Close(ctx context.Context) error {
	p.stopOnce.Do(func() { close(p.stop) })
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		p.hub.Close()
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	p.hurry = true
	left := len(p.queue)
	p.mu.Unlock()
	t := time.NewTimer(drainGrace)
	defer t.Stop()
	select {
	case <-done:
		p.hub.Close()
		if left > 0 {
			p.log.Warn("grading cut short by shutdown: the rest was recorded without grading", logExchanges, left)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("draining the grading queue: the store did not take the last %d exchange(s) within %v: %w", left, drainGrace, ctx.Err())
	}
}

// drainGrace is how long Close waits for the store after its context ended.
const drainGrace = 10 * time.Second
