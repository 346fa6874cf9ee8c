package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Grader judges one exchange. It is called on a worker, never on the traffic path; h is the
// target's history, and the pipeline serialises calls for one target. A panic is recovered and
// counted, and the exchange is then recorded as not graded.
type Grader interface {
	Grade(ex *wire.Exchange, h *passive.History) []rules.Outcome
}

// GraderFunc adapts a function (passive.Run, for one) to Grader.
type GraderFunc func(ex *wire.Exchange, h *passive.History) []rules.Outcome

// Grade calls f.
func (f GraderFunc) Grade(ex *wire.Exchange, h *passive.History) []rules.Outcome { return f(ex, h) }

// Passive grades with every registered passive check (passive.Run); it is what `sentinel proxy`
// runs.
func Passive() Grader { return GraderFunc(passive.Run) }

// Why an exchange was not graded, as stored in findings.Exchange.Graded.
const (
	Graded            = "graded"
	NotGradedTooLarge = "not graded: body too large"
	NotGradedPanic    = "not graded: a check panicked"
	NotGradedQueue    = "not graded: queue full"
)

// Defaults for the grading pipeline.
const (
	DefaultQueueSize = 1024
	DefaultWorkers   = 1
	// DefaultGradingBudget is the share of one CPU a grading worker may use: after grading for
	// d it rests for d*(1-budget)/budget. Under a load heavier than the budget allows, the queue
	// fills and grading is skipped and counted, so the traffic keeps its CPU.
	DefaultGradingBudget = 0.25
)

// pipeline runs graders over captures on a few workers fed by a bounded queue.
type pipeline struct {
	queue   chan *Capture
	budget  float64
	graders []Grader
	store   findings.Store
	metrics *metrics
	hub     *hub
	log     *slog.Logger

	mu       sync.Mutex
	history  map[string]*targetHistory
	wg       sync.WaitGroup
	stop     chan struct{}
	stopOnce sync.Once
}

type targetHistory struct {
	mu sync.Mutex
	h  *passive.History
}

func newPipeline(size, workers int, budget float64, graders []Grader, store findings.Store, m *metrics, h *hub, log *slog.Logger) *pipeline {
	p := &pipeline{queue: make(chan *Capture, size), budget: budget, graders: graders, store: store, metrics: m,
		hub: h, log: log, history: map[string]*targetHistory{}, stop: make(chan struct{})}
	for range workers {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

// submit enqueues c without ever waiting: a full queue drops the exchange and counts it.
func (p *pipeline) submit(c *Capture) {
	p.metrics.exchanges.Add(1)
	p.metrics.upstream.observe(c.Upstream.Seconds())
	select {
	case p.queue <- c:
	default:
		p.metrics.dropped.Add(1)
	}
}

// maxBatch bounds how many exchanges one worker grades before writing them in one transaction.
const maxBatch = 128

func (p *pipeline) work() {
	defer p.wg.Done()
	for {
		select {
		case c := <-p.queue:
			start := time.Now()
			p.gradeBatch(c)
			p.rest(time.Since(start))
		case <-p.stop:
			// Drain what is queued, without closing the channel: submit may still run.
			for {
				select {
				case c := <-p.queue:
					p.gradeBatch(c)
				default:
					return
				}
			}
		}
	}
}

// rest keeps the worker within its CPU budget after working for d; it ends early on stop.
func (p *pipeline) rest(d time.Duration) {
	if p.budget >= 1 {
		return
	}
	t := time.NewTimer(time.Duration(float64(d) * (1 - p.budget) / p.budget))
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.stop:
	}
}

// gradeBatch grades first and whatever else is already queued (up to maxBatch), then writes
// them all in one transaction and publishes them to the live stream.
func (p *pipeline) gradeBatch(first *Capture) {
	var b findings.Batch
	var summaries []event
	add := func(c *Capture) {
		rec, fs := p.grade(c)
		b.Exchanges = append(b.Exchanges, rec)
		b.Findings = append(b.Findings, fs...)
		for _, f := range fs {
			summaries = append(summaries, event{Type: "finding", Data: f})
		}
		summaries = append(summaries, event{Type: "exchange", Data: summaryOf(rec)})
	}
	add(first)
	for len(b.Exchanges) < maxBatch {
		select {
		case c := <-p.queue:
			add(c)
			continue
		default:
		}
		break
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.store.Record(ctx, b); err != nil {
		p.log.Error("recording graded exchanges", logExchanges, len(b.Exchanges), logError, err)
	}
	for _, e := range summaries {
		p.hub.publish(e)
	}
}

// close stops the workers after they drained the queue, or when ctx ends. Calling it again
// waits again and is otherwise harmless.
func (p *pipeline) close(ctx context.Context) error {
	p.stopOnce.Do(func() { close(p.stop) })
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("draining the grading queue: %w", ctx.Err())
	}
}

func (p *pipeline) historyFor(target string) *targetHistory {
	p.mu.Lock()
	defer p.mu.Unlock()
	th := p.history[target]
	if th == nil {
		th = &targetHistory{h: passive.NewHistory()}
		p.history[target] = th
	}
	return th
}

// grade judges one capture and returns the exchange record and its findings, unwritten.
func (p *pipeline) grade(c *Capture) (findings.Exchange, []findings.Finding) {
	ex := toExchange(c)
	method, key := keyOf(ex)
	rec := findings.Exchange{ID: c.ID, Target: c.Target, Start: c.Start, Duration: c.End.Sub(c.Start),
		HTTPMethod: c.Method, URL: c.URL, RPCMethod: method, Key: key, Status: c.Status,
		RequestHeader: c.RequestHeader, RequestBody: ex.Request.Body, ResponseHeader: c.ResponseHeader,
		Truncated: c.TooLarge(), Error: ex.Err, Graded: Graded}
	if ex.Response != nil {
		rec.ResponseBody = ex.Response.Body
	}
	var outcomes []rules.Outcome
	if c.TooLarge() {
		rec.Graded = NotGradedTooLarge
		p.metrics.tooLarge.Add(1)
	} else {
		start := time.Now()
		var panicked bool
		outcomes, panicked = p.runGraders(ex, c.Target)
		p.metrics.grading.observe(time.Since(start).Seconds())
		if panicked {
			rec.Graded = NotGradedPanic
		}
	}
	now := time.Now()
	var fs []findings.Finding
	for _, o := range outcomes {
		if o.Status != rules.Fail {
			continue
		}
		if o.Exchange == "" {
			o.Exchange = c.ID
		}
		f := findings.FromOutcome(c.Target, key, o, now)
		p.metrics.finding(f.RuleID, f.Level)
		fs = append(fs, f)
	}
	rec.Findings = len(fs)
	if p.log.Enabled(context.Background(), slog.LevelInfo) {
		p.log.Info("exchange", logExchangeID, c.ID, logTarget, c.Target, logMethod, method, logKey, key,
			logStatus, c.Status, logGraded, rec.Graded, logFindings, rec.Findings,
			logDuration, rec.Duration.Milliseconds())
	}
	return rec, fs
}

// runGraders calls every grader under the target's history lock, recovering panics one by one.
func (p *pipeline) runGraders(ex *wire.Exchange, target string) (out []rules.Outcome, panicked bool) {
	th := p.historyFor(target)
	th.mu.Lock()
	defer th.mu.Unlock()
	for _, g := range p.graders {
		os, ok := safeGrade(g, ex, th.h)
		if !ok {
			panicked = true
			p.metrics.panics.Add(1)
			continue
		}
		for _, o := range os {
			if recoveredPanic(o) {
				p.metrics.panics.Add(1)
			}
		}
		out = append(out, os...)
	}
	return out, panicked
}

func safeGrade(g Grader, ex *wire.Exchange, h *passive.History) (out []rules.Outcome, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			out, ok = nil, false
		}
	}()
	return g.Grade(ex, h), true
}

// recoveredPanic reports whether an outcome is passive.Run's report of a check that panicked
// (it recovers each check itself and says so in an indeterminate outcome), so /metrics counts
// those panics too.
func recoveredPanic(o rules.Outcome) bool {
	return passive.IsPanic(o)
}

// exchangeSummary is what the live stream carries for an exchange: no bodies or headers.
type exchangeSummary struct {
	ID       string    `json:"id"`
	Target   string    `json:"target"`
	Started  time.Time `json:"started"`
	Method   string    `json:"rpcMethod,omitempty"`
	Key      string    `json:"key,omitempty"`
	Status   int       `json:"status"`
	Graded   string    `json:"graded"`
	Findings int       `json:"findings"`
	Error    string    `json:"error,omitempty"`
	Duration int64     `json:"durationMs"`
}

func summaryOf(r findings.Exchange) exchangeSummary {
	return exchangeSummary{ID: r.ID, Target: r.Target, Started: r.Start, Method: r.RPCMethod, Key: r.Key,
		Status: r.Status, Graded: r.Graded, Findings: r.Findings, Error: r.Error, Duration: r.Duration.Milliseconds()}
}
