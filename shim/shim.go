// Package shim is Sentinel's stdio man-in-the-middle: a desktop client launches `sentinel shim --
// CMD ARGS` in place of its MCP server, and the shim launches the server, copies bytes between the
// two unchanged in both directions, and hands every line it saw, framed and decoded by wire, to an
// Observer that grades it off the data path.
//
//	client stdin ──▶ shim ──▶ server stdin        every chunk is written on before it is framed;
//	client stdout ◀── shim ◀── server stdout       framing never blocks, the Observer queue drops
//	client stderr ◀── shim ◀── server stderr       (and counts) rather than slow the copy
//
// The shim writes nothing to stdout that the server did not send, exits with the server's exit
// status, forwards SIGINT, SIGTERM and SIGHUP to the server's process group, and always reaps it.
//
// shim imports wire and stdio; grading is the Observer's business (`sentinel shim` gives it the
// proxy's stdio front end, so findings reach the same pipeline, store and admin API as the
// proxy's). Never broker or fixtures.
package shim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-sentinel/sentinel/stdio"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Defaults for Options.
const (
	// DefaultQueueFrames bounds the frames waiting for the Observer.
	DefaultQueueFrames = 4096
	// DefaultQueueBytes bounds the line bytes waiting for the Observer.
	DefaultQueueBytes = 64 << 20
	// DefaultDrain is how long the server's stdout may stay open after the server exited (a
	// grandchild holding it) before the shim ends the group.
	DefaultDrain = 2 * time.Second
	// copyBuffer is the chunk size of each copy loop.
	copyBuffer = 64 << 10
)

// Observer receives every frame the shim saw, in the order it saw them, both directions together.
// Observe runs on the shim's grading goroutine, never on the copy path; a slow Observer makes the
// queue drop frames (counted in Result.Dropped), never delays a byte.
type Observer interface {
	Observe(f wire.Frame)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(wire.Frame)

// Observe calls f.
func (f ObserverFunc) Observe(fr wire.Frame) { f(fr) }

// Options configure one shim run.
type Options struct {
	// Server is what to launch (its Stderr is set by the shim).
	Server stdio.Options
	// Stdin, Stdout and Stderr are the client's side (the shim's own standard streams).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Signals are forwarded to the server's process group as they arrive (nil: none).
	Signals <-chan os.Signal
	// MaxLineBytes caps the line kept for grading (0 → wire.DefaultMaxBodyBytes). Longer lines
	// pass through whole; only the frame is cut.
	MaxLineBytes int64
	// Observer receives the frames (nil: none are kept).
	Observer Observer
	// QueueFrames bounds the frames waiting for the Observer (0 → DefaultQueueFrames).
	QueueFrames int
	// QueueBytes bounds the line bytes waiting for the Observer (0 → DefaultQueueBytes); a line
	// that would pass it is dropped for grading and counted, never delayed.
	QueueBytes int64
	// Drain bounds how long the server's stdout may outlive the server (0 → DefaultDrain).
	Drain time.Duration
	// Now stamps frames (nil → time.Now).
	Now func() time.Time
	// Logger receives the shim's own diagnostics (nil → discard). It must not write to Stdout.
	Logger *slog.Logger
}

// Result is how a shim run ended.
type Result struct {
	// Exit is how the server ended; Exit.Code is the shim's exit status.
	Exit stdio.Exit
	// Frames is how many lines were framed, both directions; Dropped how many of them the
	// Observer never got because its queue was full.
	Frames, Dropped int64
	// ClientGone is true when writing to the client failed (it closed its end).
	ClientGone bool
}

// Run launches the server and relays between it and the client until the server has exited and
// its stdout is drained. The error means the server could not be started; everything after that
// is in Result.
func Run(ctx context.Context, opts Options) (Result, error) {
	o := opts
	if o.QueueFrames <= 0 {
		o.QueueFrames = DefaultQueueFrames
	}
	if o.QueueBytes <= 0 {
		o.QueueBytes = DefaultQueueBytes
	}
	if o.Drain <= 0 {
		o.Drain = DefaultDrain
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	o.Server.Stderr = o.Stderr
	if o.Server.Grace <= 0 {
		o.Server.Grace = stdio.DefaultGrace
	}
	p, err := stdio.Start(ctx, o.Server)
	if err != nil {
		return Result{}, err
	}
	r := &relay{opts: o, p: p, queue: make(chan pending, o.QueueFrames)}
	observed := make(chan struct{})
	go r.observe(observed)

	fromServer := make(chan struct{})
	go func() {
		defer close(fromServer)
		r.copy(o.Stdout, p.Stdout, wire.ToClient)
	}()
	go func() {
		r.copy(p.Stdin, o.Stdin, wire.ToServer)
		p.CloseStdin() // the client's EOF is the server's: the spec's shutdown signal
	}()

	r.wait(ctx, fromServer)
	exit := p.Stop()
	<-fromServer
	close(r.queue)
	<-observed
	r.mu.Lock()
	defer r.mu.Unlock()
	return Result{Exit: exit, Frames: r.seq, Dropped: r.dropped, ClientGone: r.clientGone}, nil
}

// relay is one run's shared state.
type relay struct {
	opts  Options
	p     *stdio.Process
	queue chan pending

	mu          sync.Mutex
	seq         int64
	dropped     int64
	queuedBytes int64
	clientGone  bool
}

// wait returns once the server has exited and its stdout has ended (or the drain bound passed),
// forwarding signals meanwhile and stopping the server if ctx ends.
func (r *relay) wait(ctx context.Context, fromServer <-chan struct{}) {
	var drain, escalate <-chan time.Time
	done := r.p.Done()
	for {
		select {
		case <-fromServer:
			// stdout ended: the server exited or closed it. Give it the grace Stop gives.
			return
		case <-done:
			done = nil
			drain = time.After(r.opts.Drain)
		case <-drain:
			r.opts.Logger.Warn("the server exited but its stdout stayed open; ending its process group")
			return
		case sig := <-r.opts.Signals:
			if s, ok := sig.(syscall.Signal); ok {
				r.opts.Logger.Debug("forwarding a signal to the server", "signal", s.String())
				_ = r.p.Signal(s)
			}
			// The server decides what a signal means; one that does not exit after it is
			// stopped all the same, so a Ctrl-C always ends the shim.
			if escalate == nil {
				escalate = time.After(r.opts.Server.Grace)
			}
		case <-escalate:
			r.opts.Logger.Warn("the server did not exit after the forwarded signal; stopping it")
			return
		case <-ctx.Done():
			return
		}
	}
}

// copy moves bytes from src to dst unchanged. Each chunk is framed, and its complete lines
// queued, before it is written on: a reply can then never be queued ahead of the request that
// caused it, whichever direction's goroutine runs first. Framing is a scan for newlines and a copy
// of at most one capped line; decoding waits for the Observer's goroutine. A failed write to the
// client marks it gone; the copy then keeps reading and discarding, so the server never blocks on
// a full pipe while it is being stopped.
func (r *relay) copy(dst io.Writer, src io.Reader, dir wire.Direction) {
	framer := wire.NewLineFramer(r.opts.MaxLineBytes)
	buf := make([]byte, copyBuffer)
	writing := true
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if r.opts.Observer != nil {
				for _, l := range framer.Write(buf[:n]) {
					r.enqueue(dir, l)
				}
			} else {
				r.count(framer.Write(buf[:n]))
			}
			if writing {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					writing = false
					r.writeFailed(dir, werr)
				}
			}
		}
		if err != nil {
			if l, ok := framer.Flush(); ok {
				r.enqueue(dir, l)
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				r.opts.Logger.Debug("reading stopped", "direction", string(dir), "error", err)
			}
			return
		}
	}
}

// writeFailed records a write that failed: to the client, it is gone and the server is asked to
// shut down; to the server, its stdin is closed (it exited or closed it).
func (r *relay) writeFailed(dir wire.Direction, err error) {
	if dir == wire.ToClient {
		r.mu.Lock()
		r.clientGone = true
		r.mu.Unlock()
		r.opts.Logger.Warn("the client closed its end; shutting the server down", "error", err)
		r.p.CloseStdin()
		return
	}
	r.opts.Logger.Debug("the server's stdin is closed", "error", fmt.Sprint(err))
}

// pending is a framed line waiting for the Observer, numbered in the order the shim saw it.
type pending struct {
	seq  int64
	dir  wire.Direction
	at   time.Time
	line wire.Line
}

// count numbers lines nobody observes.
func (r *relay) count(ls []wire.Line) {
	r.mu.Lock()
	r.seq += int64(len(ls))
	r.mu.Unlock()
}

// enqueue numbers a line and queues it for the Observer, dropping it when the queue is full.
func (r *relay) enqueue(dir wire.Direction, l wire.Line) {
	n := int64(len(l.Bytes))
	r.mu.Lock()
	r.seq++
	p := pending{seq: r.seq, dir: dir, at: r.opts.Now(), line: l}
	over := r.queuedBytes+n > r.opts.QueueBytes
	if !over {
		r.queuedBytes += n
	}
	r.mu.Unlock()
	if r.opts.Observer == nil {
		return
	}
	if !over {
		select {
		case r.queue <- p:
			return
		default:
		}
	}
	r.mu.Lock()
	r.dropped++
	if !over {
		r.queuedBytes -= n
	}
	r.mu.Unlock()
}

// observe decodes queued lines and hands them to the Observer until the queue is closed.
func (r *relay) observe(done chan<- struct{}) {
	defer close(done)
	for p := range r.queue {
		r.mu.Lock()
		r.queuedBytes -= int64(len(p.line.Bytes))
		r.mu.Unlock()
		f := wire.DecodeFrame(p.line)
		f.Seq, f.Dir, f.At = p.seq, p.dir, p.at
		r.opts.Observer.Observe(f)
	}
}
