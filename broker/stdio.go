package broker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/auth"
)

// StdioDrainTimeout bounds how long the end of stdin waits for requests still being answered, so
// a client that writes its requests and closes its end still gets every reply.
const StdioDrainTimeout = ShutdownTimeout

// ServeStdio serves s over newline-delimited JSON-RPC on in/out until ctx ends or in closes.
// Stdio is local and single-tenant: every call acts as p, which comes from configuration.
//
// The SDK's own stdio transport stops at the first line it cannot decode; this one reads each line
// itself (bounded by MaxMessageBytes), admits it with the same check as HTTP (admit), answers a
// refused line with a JSON-RPC error and keeps serving.
func ServeStdio(ctx context.Context, s *mcp.Server, p auth.Principal, in io.ReadCloser, out io.WriteCloser, log *slog.Logger) error {
	if p.Tenant == "" || p.Subject == "" {
		return errors.New("serving stdio: no principal: set stdio.tenant and stdio.subject in the config, or pass --dev")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &stdioTransport{in: in, out: out, log: log, drain: StdioDrainTimeout}
	err := s.Run(auth.WithPrincipal(ctx, p), t)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("serving stdio: %w", err)
	}
	return nil
}

// stdioTransport is an mcp.Transport whose connection admits every line before the SDK sees it.
type stdioTransport struct {
	in    io.ReadCloser
	out   io.WriteCloser
	log   *slog.Logger
	drain time.Duration
}

// Connect starts reading lines.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		in: t.in, out: t.out, log: t.log, drain: t.drain,
		lines:  make(chan line),
		closed: make(chan struct{}),
		idle:   closedChan(),
	}
	go c.readLines(&lineReader{br: bufio.NewReaderSize(t.in, 64<<10), limit: MaxMessageBytes})
	return c, nil
}

// line is one line off stdin, or the error that ended input.
type line struct {
	data    []byte
	size    int
	tooLong bool
	err     error
}

type stdioConn struct {
	in    io.ReadCloser
	out   io.WriteCloser
	log   *slog.Logger
	drain time.Duration

	lines     chan line
	closed    chan struct{}
	closeOnce sync.Once

	writeMu sync.Mutex

	// pending counts requests handed to the SDK and not yet answered; idle is closed while it is 0.
	mu      sync.Mutex
	pending map[string]int
	count   int
	idle    chan struct{}
}

var _ mcp.Connection = (*stdioConn)(nil)

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func (c *stdioConn) readLines(r *lineReader) {
	for {
		l := r.next()
		select {
		case c.lines <- l:
		case <-c.closed:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// Read returns the next admitted message. A refused line is answered here and skipped; at the end
// of input it waits (up to drain) for pending requests to be answered, then reports io.EOF.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			c.waitIdle(ctx)
			return nil, l.err
		}
		if l.tooLong {
			c.refuse(refuse(nil, jsonrpc.CodeInvalidRequest, "the message is %d bytes; the limit is %d; it was skipped", l.size, MaxMessageBytes), l.size)
			continue
		}
		if len(bytes.TrimSpace(l.data)) == 0 {
			continue // a blank line carries no message
		}
		aerr := (admission{}).admit(l.data)
		var msg jsonrpc.Message
		if aerr == nil {
			msg, aerr = decode(l.data)
		}
		if aerr != nil {
			c.refuse(aerr, l.size)
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.track(idKey(req.ID), 1)
		}
		return msg, nil
	}
}

func (c *stdioConn) refuse(e *admissionError, size int) {
	c.log.Warn("stdio message refused", slog.Int64("code", e.code), slog.String("reason", e.message), slog.Int("bytes", size))
	if err := c.writeLine(e.reply()); err != nil {
		c.log.Warn("stdio: answering a refused message", slog.Any("error", err))
	}
}

// Write sends one message as one line.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a stdio message: %w", err)
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.track(idKey(resp.ID), -1)
	}
	return err
}

func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	buf := make([]byte, 0, len(data)+1)
	buf = append(append(buf, data...), '\n')
	_, err := c.out.Write(buf)
	return err
}

// Close stops reading and closes both ends; safe to call more than once.
func (c *stdioConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = errors.Join(c.in.Close(), c.out.Close())
	})
	return err
}

// SessionID is empty: 2026-07-28 has no sessions.
func (c *stdioConn) SessionID() string { return "" }

func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// track adds delta to the pending count of id (a response for an id never handed over is ignored).
func (c *stdioConn) track(id string, delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[string]int{}
	}
	if delta < 0 && c.pending[id] == 0 {
		return
	}
	c.pending[id] += delta
	if c.pending[id] == 0 {
		delete(c.pending, id)
	}
	was := c.count
	c.count += delta
	switch {
	case was == 0 && c.count > 0:
		c.idle = make(chan struct{})
	case was > 0 && c.count == 0:
		close(c.idle)
	}
}

func (c *stdioConn) waitIdle(ctx context.Context) {
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	timer := time.NewTimer(c.drain)
	defer timer.Stop()
	select {
	case <-idle:
	case <-timer.C:
		c.log.Warn("stdio input ended with requests still unanswered after the drain timeout")
	case <-ctx.Done():
	case <-c.closed:
	}
}

// lineReader splits input into lines of at most limit bytes (plus the line ending); a longer line
// is read to its end without being kept, so it costs no memory.
type lineReader struct {
	br    *bufio.Reader
	limit int
	err   error
}

func (r *lineReader) next() line {
	if r.err != nil {
		return line{err: r.err}
	}
	var (
		buf     []byte
		total   int
		tooLong bool
	)
	for {
		chunk, err := r.br.ReadSlice('\n')
		total += len(chunk)
		if !tooLong {
			if total > r.limit+2 { // a line ending of up to two bytes is not part of the message
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			r.err = err
			if total == 0 {
				return line{err: err}
			}
		}
		return line{data: bytes.TrimRight(buf, "\r\n"), size: total, tooLong: tooLong}
	}
}
