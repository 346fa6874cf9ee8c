package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// sseParser frames a text/event-stream event by event (the WHATWG rules: lines end in CRLF, LF or
// CR; "data" lines join with LF; a blank line dispatches; ":" starts a comment; an event with no
// data is not dispatched). It never holds more than one line and one event in memory beyond the
// events already returned, and a line is capped at the byte limit.
type sseParser struct {
	sc    *bufio.Scanner
	buf   *[]byte // the scanner's first buffer, from sseBuffers; nil when not pooled
	cur   Event
	data  strings.Builder
	has   bool // a data field was seen for the current event
	dirty bool // any field was seen for the current event
}

// sseBufferSize is the scanner's first line buffer; a longer line grows one of its own.
const sseBufferSize = 4096

// sseBuffers recycles the parsers' first line buffers. A scan reads about fifty event streams,
// and each parser's 4 KiB buffer was a fresh allocation (a fifth of a megabyte of fresh heap per
// scan); none outlives its stream, since every field is copied out of the line it is read from.
var sseBuffers = sync.Pool{New: func() any { b := make([]byte, sseBufferSize); return &b }}

func newSSEParser(r io.Reader, maxLine int64) *sseParser {
	sc := bufio.NewScanner(r)
	max := int(maxLine)
	if maxLine <= 0 || maxLine > 1<<30 {
		max = 1 << 30
	}
	p := &sseParser{sc: sc}
	if max >= sseBufferSize {
		p.buf = sseBuffers.Get().(*[]byte)
		sc.Buffer((*p.buf)[:sseBufferSize], max)
	} else {
		sc.Buffer(make([]byte, max), max)
	}
	sc.Split(splitSSELines)
	return p
}

// release hands the parser's first buffer back for another stream; p must not be read again.
func (p *sseParser) release() {
	if p.buf != nil {
		sseBuffers.Put(p.buf)
		p.buf = nil
	}
	p.sc = nil
}

// errIncompleteEvent is reported when a stream ends before the blank line of its last event.
var errIncompleteEvent = errors.New("stream ended in the middle of an event (no blank line after it)")

// next returns the next dispatched event; io.EOF at a clean end, errIncompleteEvent when the last
// event was unfinished, bufio.ErrTooLong when a line passes the cap, or the reader's error.
func (p *sseParser) next() (Event, error) {
	for p.sc.Scan() {
		line := p.sc.Bytes()
		if len(line) == 0 {
			if ev, ok := p.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		p.field(line)
	}
	if err := p.sc.Err(); err != nil {
		return Event{}, err
	}
	if p.dirty {
		p.reset()
		return Event{}, errIncompleteEvent
	}
	return Event{}, io.EOF
}

func (p *sseParser) field(line []byte) {
	if line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	p.dirty = true
	switch string(name) {
	case "data":
		if p.has {
			p.data.WriteByte('\n')
		}
		p.data.Write(value)
		p.has = true
	case "event":
		p.cur.Event = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.cur.ID = string(value)
		}
	case "retry":
		p.cur.Retry = string(value)
	}
}

func (p *sseParser) dispatch() (Event, bool) {
	defer p.reset()
	if !p.has {
		return Event{}, false
	}
	ev := p.cur
	ev.Data = p.data.String()
	return ev, true
}

func (p *sseParser) reset() {
	p.cur = Event{}
	p.data.Reset()
	p.has, p.dirty = false, false
}

// splitSSELines is a bufio.SplitFunc for the three SSE line endings.
func splitSSELines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // a CR at the end: wait to see whether LF follows
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// ParseSSE reads an event stream from r until it ends or a limit is hit, and returns the events
// in order. truncatedBy names the limit that stopped it ("bytes", "events" or "deadline"; empty
// when the stream ended on its own). The deadline is measured from the call; a Read that blocks
// is the caller's to cancel (Do does it with the request context). err reports a read error, or
// an unfinished last event, which is discarded as the SSE rules say.
func ParseSSE(r io.Reader, lim Limits) (events []Event, truncatedBy string, err error) {
	lim = lim.WithDefaults()
	cr := &capReader{r: r, max: lim.MaxBodyBytes}
	p := newSSEParser(cr, lim.MaxBodyBytes)
	defer p.release()
	deadline := time.Now().Add(lim.ReadTimeout)
	for {
		ev, err := p.next()
		switch {
		case err == nil:
			events = append(events, ev)
			if len(events) >= lim.MaxSSEEvents {
				return events, TruncatedEvents, nil
			}
			if time.Now().After(deadline) {
				return events, TruncatedDeadline, nil
			}
		case cr.exceeded || errors.Is(err, bufio.ErrTooLong):
			return events, TruncatedBytes, nil
		case errors.Is(err, io.EOF):
			return events, "", nil
		default:
			return events, "", fmt.Errorf("reading event stream after %d event(s): %w", len(events), err)
		}
	}
}

// capReader passes at most max bytes through and records whether the source had more. It keeps
// a copy of what it passed when keep is set, so a body can be both parsed and stored verbatim.
type capReader struct {
	r        io.Reader
	max      int64
	n        int64
	exceeded bool
	keep     bool
	buf      bytes.Buffer
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n >= c.max {
		// Probe one byte to tell "exactly max" from "more than max".
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			c.exceeded = true
			return 0, io.EOF
		}
		if err == nil {
			return 0, nil
		}
		return 0, err
	}
	if rem := c.max - c.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.keep && n > 0 {
		c.buf.Write(p[:n])
	}
	return n, err
}
