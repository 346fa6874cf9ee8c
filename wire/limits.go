package wire

import "time"

// Defaults for Limits. They are generous for a real server and small enough that a hostile one
// (an endless stream, a 100 MB body) cannot exhaust the scanner.
const (
	// DefaultMaxBodyBytes caps one response body: 8 MiB.
	DefaultMaxBodyBytes int64 = 8 << 20
	// DefaultMaxSSEEvents caps the events read from one event stream.
	DefaultMaxSSEEvents = 1000
	// DefaultReadTimeout caps one exchange, from sending the request to the end of the body.
	DefaultReadTimeout = 10 * time.Second
)

// How a read was cut short; the value of Response.TruncatedBy.
const (
	TruncatedBytes    = "bytes"
	TruncatedEvents   = "events"
	TruncatedDeadline = "deadline"
	// TruncatedUntil: the request's Until predicate was satisfied, so the read stopped there.
	TruncatedUntil = "until"
)

// Limits bounds what wire reads from a peer. Zero fields take the Default* values; negative
// values are treated as zero.
type Limits struct {
	// MaxBodyBytes caps the bytes read from one body (0 → DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// MaxSSEEvents caps the events parsed from one stream (0 → DefaultMaxSSEEvents).
	MaxSSEEvents int
	// ReadTimeout caps one exchange end to end (0 → DefaultReadTimeout).
	ReadTimeout time.Duration
}

// WithDefaults returns l with every zero or negative field replaced by its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxSSEEvents <= 0 {
		l.MaxSSEEvents = DefaultMaxSSEEvents
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	return l
}
