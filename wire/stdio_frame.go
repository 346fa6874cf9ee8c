package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// The stdio binding of 2026-07-28 frames one JSON-RPC message per line: messages are delimited by
// newlines and must not contain embedded ones. This file is that framing, for both directions and
// for every reader of stdio bytes (the prober, the shim, the passive checks): a line is read with
// a byte cap, and a line over the cap is skipped to its newline without ever being held whole, so a
// peer that writes 100 MB without a newline costs the reader the cap and a fixed buffer, no more.
//
// [stdio binding]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio

// lineBufferBytes is the bufio buffer a LineReader reads through; lines longer than it are
// assembled from several reads, up to the cap.
const lineBufferBytes = 64 << 10

// ErrEmbeddedNewline is returned by EncodeLine for a message that contains a newline or a carriage
// return: written as it is, it would reach the peer as two lines, neither a message.
var ErrEmbeddedNewline = errors.New("message contains an embedded newline")

// Line is one newline-delimited frame as it crossed a stdio stream.
type Line struct {
	// Bytes is the line without its terminating newline (a trailing carriage return is kept: the
	// decoder, not the framer, says what it means). When TooLong, it holds only the first
	// MaxBytes bytes.
	Bytes []byte
	// Size is how many bytes the line really had, without the newline, even when TooLong.
	Size int64
	// TooLong is true when the line passed the reader's cap; Bytes is then a prefix.
	TooLong bool
	// Unterminated is true for a last line the stream ended without a newline after.
	Unterminated bool
}

// LineReader frames a stdio stream into lines with a byte cap per line. It is not safe for
// concurrent use; one goroutine reads one stream.
type LineReader struct {
	r   *bufio.Reader
	max int64
}

// NewLineReader reads lines of at most maxBytes bytes from r (0 or less → DefaultMaxBodyBytes,
// the same cap as one HTTP body, since a line is one message).
func NewLineReader(r io.Reader, maxBytes int64) *LineReader {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBodyBytes
	}
	size := lineBufferBytes
	if int64(size) > maxBytes {
		size = int(maxBytes)
	}
	if size < 16 {
		size = 16 // bufio's minimum
	}
	return &LineReader{r: bufio.NewReaderSize(r, size), max: maxBytes}
}

// Max is the reader's cap on one line, in bytes.
func (lr *LineReader) Max() int64 { return lr.max }

// Next returns the next line. It returns io.EOF once the stream has ended and every byte has been
// returned (a final line without a newline is returned first, marked Unterminated), and the
// underlying reader's error, wrapped, when reading fails; a line cut by such an error is returned
// with it. A line over the cap is returned with TooLong set, its prefix, and its full Size: the
// rest of it is read and dropped, never kept.
func (lr *LineReader) Next() (Line, error) {
	var l Line
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n := int64(len(chunk))
		terminated := n > 0 && chunk[n-1] == '\n'
		if terminated {
			chunk = chunk[:n-1]
			n--
		}
		l.Size += n
		if room := lr.max - int64(len(l.Bytes)); room > 0 && !l.TooLong {
			keep := chunk
			if int64(len(keep)) > room {
				keep = keep[:room]
			}
			l.Bytes = append(l.Bytes, keep...)
		}
		if l.Size > lr.max {
			l.TooLong = true
		}
		switch {
		case terminated:
			return l, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if l.Size == 0 {
				return Line{}, io.EOF
			}
			l.Unterminated = true
			return l, nil
		case err != nil:
			return l, fmt.Errorf("reading a stdio line: %w", err)
		}
	}
}

// EncodeLine frames one message for a stdio stream: msg followed by a newline. A message that
// contains a newline or a carriage return is refused with ErrEmbeddedNewline rather than sent as
// what the peer would read as two lines; compact the JSON first (json.Compact removes every raw
// newline a valid JSON text can hold, since newlines inside strings are always escaped).
func EncodeLine(msg []byte) ([]byte, error) {
	if i := bytes.IndexAny(msg, "\r\n"); i >= 0 {
		return nil, fmt.Errorf("framing a %d-byte message for stdio: %w at byte %d", len(msg), ErrEmbeddedNewline, i)
	}
	out := make([]byte, 0, len(msg)+1)
	out = append(out, msg...)
	return append(out, '\n'), nil
}

// LineFramer is the push form of LineReader, for a caller that sees the bytes of a stream as they
// pass (the shim copying them between two processes) rather than reading it: Write returns the
// lines each chunk completes, with the same cap and the same Line values LineReader would give for
// the same bytes. It holds at most one line prefix of MaxBytes. It is not safe for concurrent use.
type LineFramer struct {
	max int64
	cur Line
}

// NewLineFramer frames lines of at most maxBytes (0 or less → DefaultMaxBodyBytes).
func NewLineFramer(maxBytes int64) *LineFramer {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBodyBytes
	}
	return &LineFramer{max: maxBytes}
}

// Write frames p and returns the lines it completed, in order. The returned lines own their
// bytes; p is not retained.
func (lf *LineFramer) Write(p []byte) []Line {
	var out []Line
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		lf.add(chunk)
		if i < 0 {
			break
		}
		out = append(out, lf.cur)
		lf.cur = Line{}
		p = p[i+1:]
	}
	return out
}

// Flush returns the partial line at the end of the stream, marked Unterminated, if there is one.
func (lf *LineFramer) Flush() (Line, bool) {
	if lf.cur.Size == 0 {
		return Line{}, false
	}
	l := lf.cur
	l.Unterminated = true
	lf.cur = Line{}
	return l, true
}

func (lf *LineFramer) add(chunk []byte) {
	lf.cur.Size += int64(len(chunk))
	if room := lf.max - int64(len(lf.cur.Bytes)); room > 0 && !lf.cur.TooLong {
		keep := chunk
		if int64(len(keep)) > room {
			keep = keep[:room]
		}
		lf.cur.Bytes = append(lf.cur.Bytes, keep...)
	}
	if lf.cur.Size > lf.max {
		lf.cur.TooLong = true
	}
}
