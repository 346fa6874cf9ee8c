package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-sentinel/sentinel/wire"
)

// Defaults for ConnOptions.
const (
	// DefaultMaxFrames caps the frames a Conn keeps; later ones are still read, decoded and
	// delivered to callers waiting for them, but only counted.
	DefaultMaxFrames = 20000
	// DefaultMaxKeptBytes caps the line bytes the kept frames hold together.
	DefaultMaxKeptBytes = 64 << 20
	// DefaultWriteTimeout bounds one write when the context carries no deadline: a server that
	// never reads its stdin fills the pipe, and the write must not wait for ever.
	DefaultWriteTimeout = 10 * time.Second
)

// Errors a Conn reports. Callers tell a dead server from a silent one with errors.Is.
var (
	// ErrClosed: the server closed its stdout (it exited, or closed the stream) before the reply.
	ErrClosed = errors.New("the server closed its stdout")
	// ErrNoReply: the context ended before the reply arrived (a hung server, a silent one).
	ErrNoReply = errors.New("no reply before the deadline")
	// ErrNotReading: a write to the server's stdin could not complete before the deadline, so the
	// server is not reading its input.
	ErrNotReading = errors.New("the server is not reading its stdin")
)

// ConnOptions bound what a Conn reads and keeps. Zero fields take the defaults.
type ConnOptions struct {
	// MaxLineBytes caps one line (0 → wire.DefaultMaxBodyBytes); a longer line is refused,
	// skipped to its newline and recorded as a too-long frame.
	MaxLineBytes int64
	// MaxFrames caps the frames kept (0 → DefaultMaxFrames).
	MaxFrames int
	// MaxKeptBytes caps the line bytes kept across frames (0 → DefaultMaxKeptBytes).
	MaxKeptBytes int64
	// Now is the clock frames are stamped with (nil → time.Now).
	Now func() time.Time
}

// Conn is the client end of a stdio conversation with one server: every line either way becomes
// a wire.Frame, numbered in the order Conn saw it, and the frames are paired into exchanges by a
// wire.StdioCorrelator, so a caller waiting for the response to a request gets the whole exchange
// (its progress, its log messages, its response) by id. Its methods are safe for concurrent use.
type Conn struct {
	in   *os.File
	opts ConnOptions

	mu        sync.Mutex
	seq       int64
	frames    []wire.Frame
	keptBytes int64
	dropped   int64
	waiters   map[string]*waiter
	corr      *wire.StdioCorrelator
	strays    []wire.Frame  // frames that belong to no exchange, bounded like frames
	changed   chan struct{} // closed and replaced on every new frame
	readErr   error
	closed    chan struct{}
	writeMu   sync.Mutex
}

// NewConn starts reading out (the server's stdout) and writes to in (its stdin).
func NewConn(in *os.File, out io.Reader, opts ConnOptions) *Conn {
	if opts.MaxFrames <= 0 {
		opts.MaxFrames = DefaultMaxFrames
	}
	if opts.MaxKeptBytes <= 0 {
		opts.MaxKeptBytes = DefaultMaxKeptBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Conn{
		in: in, opts: opts, waiters: map[string]*waiter{}, corr: wire.NewStdioCorrelator(0, 0),
		changed: make(chan struct{}), closed: make(chan struct{}),
	}
	go c.read(wire.NewLineReader(out, opts.MaxLineBytes))
	return c
}

// Dial returns a Conn over p's pipes.
func Dial(p *Process, opts ConnOptions) *Conn { return NewConn(p.Stdin, p.Stdout, opts) }

// read frames the server's stdout until it ends.
func (c *Conn) read(lr *wire.LineReader) {
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			c.finish(nil)
			return
		}
		if err == nil || l.Size > 0 {
			c.record(wire.ToClient, wire.DecodeFrame(l))
		}
		if err != nil {
			c.finish(err)
			return
		}
	}
}

func (c *Conn) finish(err error) {
	c.mu.Lock()
	c.readErr = err
	for _, x := range c.corr.Close() {
		c.deliver(x)
	}
	c.mu.Unlock()
	close(c.closed)
}

// waiter is a caller waiting for the exchange of one request.
type waiter struct {
	ch chan *wire.StdioExchange
	// until, when set, ends the wait at the first reply it accepts (the exchange ends as
	// EndUntil).
	until func(*wire.Message) bool
	id    json.RawMessage
	hit   bool
}

// deliver hands a finished exchange to whoever waits for its request; c.mu is held.
func (c *Conn) deliver(x *wire.StdioExchange) {
	m := x.Request.Message
	if m == nil || !m.IsRequest() {
		return
	}
	if w, ok := c.waiters[idKey(m.ID)]; ok {
		select {
		case w.ch <- x:
		default:
		}
	}
}

// checkUntil ends the exchange of a waiter whose until accepts the frame just attributed to it;
// c.mu is held.
func (c *Conn) checkUntil(f wire.Frame) {
	if f.Dir != wire.ToClient || f.Message == nil {
		return
	}
	for _, w := range c.waiters {
		if w.until == nil || w.hit {
			continue
		}
		x := c.corr.Peek(w.id)
		if x == nil || len(x.Replies) == 0 || x.Replies[len(x.Replies)-1].Seq != f.Seq || !w.until(f.Message) {
			continue
		}
		w.hit = true
		if x := c.corr.Abandon(w.id); x != nil {
			x.End = wire.EndUntil
			select {
			case w.ch <- x:
			default:
			}
		}
	}
}

// record numbers f, keeps it within the bounds, wakes whoever waits for it, and returns it.
func (c *Conn) record(dir wire.Direction, f wire.Frame) wire.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	f.Seq, f.Dir, f.At = c.seq, dir, c.opts.Now()
	size := int64(len(f.Line.Bytes))
	if len(c.frames) < c.opts.MaxFrames && c.keptBytes+size <= c.opts.MaxKeptBytes {
		c.frames = append(c.frames, f)
		c.keptBytes += size
	} else {
		c.dropped++
	}
	done, stray := c.corr.Add(f)
	for _, x := range done {
		c.deliver(x)
	}
	c.checkUntil(f)
	if stray != nil && len(c.strays) < c.opts.MaxFrames {
		c.strays = append(c.strays, *stray)
	}
	close(c.changed)
	c.changed = make(chan struct{})
	return f
}

// Send writes one message to the server's stdin as one line, within ctx's deadline (or
// DefaultWriteTimeout), and returns the frame it recorded. A message with an embedded newline is
// refused before anything is written.
func (c *Conn) Send(ctx context.Context, msg []byte) (wire.Frame, error) {
	line, err := wire.EncodeLine(msg)
	if err != nil {
		return wire.Frame{}, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultWriteTimeout)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := ctx.Err(); err != nil {
		return wire.Frame{}, fmt.Errorf("writing to the server's stdin: %w", err)
	}
	// The frame is recorded before the write: a reply can then never be read ahead of the
	// request that caused it.
	f := c.record(wire.ToServer, wire.DecodeFrame(wire.Line{Bytes: line[:len(line)-1], Size: int64(len(line) - 1)}))
	_ = c.in.SetWriteDeadline(deadline)
	_, werr := c.in.Write(line)
	switch {
	case werr == nil:
		return f, nil
	case errors.Is(werr, os.ErrDeadlineExceeded):
		return f, fmt.Errorf("writing a %d-byte message: %w (it did not drain the pipe before the deadline)", len(line), ErrNotReading)
	case errors.Is(werr, os.ErrClosed), errors.Is(werr, syscall.EPIPE):
		return f, fmt.Errorf("writing to the server's stdin: %w", ErrClosed)
	}
	return f, fmt.Errorf("writing to the server's stdin: %w", werr)
}

// Call sends a request (a message with an id) and waits for its exchange to end: the response,
// or the connection closing. When ctx ends first, Call abandons the request, tells the server
// with notifications/cancelled (as the binding asks of a client that stops waiting), and returns
// the exchange so far with ErrNoReply. The exchange is never nil once the request was written.
func (c *Conn) Call(ctx context.Context, msg []byte) (*wire.StdioExchange, error) {
	return c.CallUntil(ctx, msg, nil)
}

// CallUntil is Call that also stops at the first server message for the request that until
// accepts (a listen's acknowledgement, a progress notification): the exchange ends as
// wire.EndUntil with that message last, and the request is cancelled, since the client has stopped
// reading it — as closing its stream does over HTTP.
func (c *Conn) CallUntil(ctx context.Context, msg []byte, until func(*wire.Message) bool) (*wire.StdioExchange, error) {
	m, derr := wire.DecodeMessage(bytes.TrimSpace(msg))
	if derr != nil || m.ID == nil || m.Method == "" {
		return nil, fmt.Errorf("calling over stdio: the message is not a request with an id")
	}
	key := idKey(m.ID)
	w := &waiter{ch: make(chan *wire.StdioExchange, 1), until: until, id: m.ID}
	c.mu.Lock()
	if _, busy := c.waiters[key]; busy {
		c.mu.Unlock()
		return nil, fmt.Errorf("calling over stdio: a request with id %s is already in flight", key)
	}
	c.waiters[key] = w
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiters, key)
		c.mu.Unlock()
	}()
	req, err := c.Send(ctx, msg)
	if err != nil {
		if req.Seq == 0 {
			return nil, err
		}
		return c.abandon(m.ID, req, w.ch), err
	}
	select {
	case x := <-w.ch:
		switch x.End {
		case wire.EndClosed:
			return x, fmt.Errorf("waiting for the response to id %s: %w", key, c.closedErr())
		case wire.EndUntil:
			c.cancel(m.ID, "the client stopped reading the request")
		}
		return x, nil
	case <-ctx.Done():
		x := c.abandon(m.ID, req, w.ch)
		c.cancel(m.ID, "the client's deadline passed")
		return x, fmt.Errorf("waiting for the response to id %s: %w", key, ErrNoReply)
	}
}

// abandon ends the exchange of id where it stands (or takes it, if it ended meanwhile).
func (c *Conn) abandon(id json.RawMessage, req wire.Frame, ch chan *wire.StdioExchange) *wire.StdioExchange {
	c.mu.Lock()
	x := c.corr.Abandon(id)
	c.mu.Unlock()
	if x != nil {
		return x
	}
	select {
	case x = <-ch:
		return x
	default:
	}
	return &wire.StdioExchange{Request: req, End: wire.EndAbandoned}
}

// cancel tells the server the client stopped waiting for request id, and why (a fixed
// sentence: it is written into the JSON unescaped), within a short deadline of its own (the
// caller's may have passed).
func (c *Conn) cancel(id json.RawMessage, reason string) {
	ctx, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":%q}}`, idKey(id), reason)
	_, _ = c.Send(ctx, []byte(msg))
}

// Notify sends a notification (a message without an id) and returns its frame.
func (c *Conn) Notify(ctx context.Context, msg []byte) (wire.Frame, error) { return c.Send(ctx, msg) }

// Strays returns the server frames that belonged to no exchange (lines that are not messages,
// unsolicited responses, notifications with nothing in flight), in order.
func (c *Conn) Strays() []wire.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire.Frame(nil), c.strays...)
}

// WaitFor blocks until a frame after seq satisfies match, ctx ends or the stream closes, and
// returns that frame.
func (c *Conn) WaitFor(ctx context.Context, seq int64, match func(wire.Frame) bool) (wire.Frame, error) {
	for {
		c.mu.Lock()
		for _, f := range c.frames {
			if f.Seq > seq && match(f) {
				c.mu.Unlock()
				return f, nil
			}
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return wire.Frame{}, fmt.Errorf("waiting for a message: %w", ErrNoReply)
		case <-c.closed:
			c.mu.Lock()
			for _, f := range c.frames {
				if f.Seq > seq && match(f) {
					c.mu.Unlock()
					return f, nil
				}
			}
			c.mu.Unlock()
			return wire.Frame{}, fmt.Errorf("waiting for a message: %w", c.closedErr())
		}
	}
}

func (c *Conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr != nil {
		return fmt.Errorf("%w: %w", ErrClosed, c.readErr)
	}
	return ErrClosed
}

// Closed is closed once the server's stdout has ended.
func (c *Conn) Closed() <-chan struct{} { return c.closed }

// Seq is the number of the last frame recorded.
func (c *Conn) Seq() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// Frames returns the kept frames with from < Seq <= to (to <= 0: up to the latest), in order.
func (c *Conn) Frames(from, to int64) []wire.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []wire.Frame
	for _, f := range c.frames {
		if f.Seq > from && (to <= 0 || f.Seq <= to) {
			out = append(out, f)
		}
	}
	return out
}

// Dropped is how many frames were read but not kept (past MaxFrames or MaxKeptBytes).
func (c *Conn) Dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// idKey is a JSON-RPC id in a form two equal ids share: compact JSON.
func idKey(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(bytes.TrimSpace(raw))
	}
	return buf.String()
}
