package active

import (
	"sync"
	"sync/atomic"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// graderQueue bounds the exchanges waiting for the background grader; past it an exchange is
// graded by the probe that sent it, as if there were no grader, so a scan's memory stays bounded
// whatever a server makes it send.
const graderQueue = 1024

// grader runs the passive checks of an HTTP scan's exchanges in the background, one at a time in
// the order they were recorded, so that no probe waits for them: grading a reply (the first
// tools/list's every description through the injection detector, a few milliseconds) had been on
// the probe's path, under the Target's lock every other probe needs to record its own exchange,
// and during discovery on the path of the whole scan. One goroutine keeps History's single
// writer; the outcomes are read only after every probe has finished and the grader has drained.
type grader struct {
	mu   sync.Mutex // guards open and sends on queue
	open bool
	// queue holds exchanges in the order sendOpts recorded them.
	queue chan *wire.Exchange
	done  chan struct{}
}

// startGrader starts t's background grader; t.drainGrader stops it.
func (t *Target) startGrader() {
	g := &grader{open: true, queue: make(chan *wire.Exchange, graderQueue), done: make(chan struct{})}
	t.grader = g
	go func() {
		defer close(g.done)
		growStack()
		for ex := range g.queue {
			t.grade(ex)
		}
	}()
}

// enqueue hands ex to the background grader and reports whether it took it: false when there is
// none, it has drained, or its queue is full (the caller then grades ex itself).
func (g *grader) enqueue(ex *wire.Exchange) bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open {
		return false
	}
	select {
	case g.queue <- ex:
		return true
	default:
		return false
	}
}

// drainGrader waits until every exchange handed to the grader is graded and stops it; exchanges
// sent after it are graded by their sender. Safe to call more than once, and without a grader.
func (t *Target) drainGrader() {
	g := t.grader
	if g == nil {
		return
	}
	g.mu.Lock()
	if g.open {
		g.open = false
		close(g.queue)
	}
	g.mu.Unlock()
	<-g.done
}

// grade runs the passive checks on ex and records their outcomes, each naming the request it
// was seen in. History is not safe for concurrent use: gradeMu serialises the grader and any
// sender grading its own exchange.
func (t *Target) grade(ex *wire.Exchange) {
	var outs []rules.Outcome
	if t.Options.Passive != nil {
		t.gradeMu.Lock()
		outs = t.Options.Passive(ex, t.history)
		t.gradeMu.Unlock()
	}
	for i := range outs {
		// A passive finding names what it saw; the scan adds which request it saw it in.
		outs[i] = withRequest(outs[i], ex)
		outs[i].Observed = wire.RedactString(outs[i].Observed, t.Options.Secrets...)
	}
	if len(outs) == 0 {
		return
	}
	t.mu.Lock()
	t.graded = append(t.graded, outs)
	t.mu.Unlock()
}

// passiveOutcomes returns prefix followed by every passive outcome recorded so far, in the order
// the exchanges were graded, in one slice sized once (prefix's array is not modified).
func (t *Target) passiveOutcomes(prefix []rules.Outcome) []rules.Outcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(prefix)
	for _, outs := range t.graded {
		n += len(outs)
	}
	all := make([]rules.Outcome, 0, n)
	all = append(all, prefix...)
	for _, outs := range t.graded {
		all = append(all, outs...)
	}
	return all
}

// stackSink keeps growStack's frame from being optimised away. It is atomic because the grader
// and every probe worker call growStack concurrently (a plain byte was a data race under -race).
var stackSink atomic.Uint32

// growStack grows the calling goroutine's stack in one step, while it is shallow and the copy
// costs nothing, to the size the grader's and the probe workers' deepest calls reach
// (regular-expression compiles, schema compiles, JSON) — instead of doubling from 8 KiB by
// copying the deep stack each time.
//
//go:noinline
func growStack() {
	var frame [48 << 10]byte
	frame[len(frame)-1] = byte(stackSink.Load())
	stackSink.Store(uint32(frame[0]))
}
