package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Event is one item on the admin API's live stream: an exchange summary or a finding.
type Event struct {
	Type string
	Data any
}

// Event types of the live stream.
const (
	EventExchange = "exchange"
	EventFinding  = "finding"
)

// Defaults of the live stream.
const (
	// DefaultSubscriberQueue is how many published batches (each grading round's events, in
	// one write) a live-stream reader may fall behind before it is dropped.
	DefaultSubscriberQueue = 256
	// DefaultMaxSubscribers bounds the live-stream readers at once; more are refused (503).
	DefaultMaxSubscribers = 64
)

// HubOptions configures a Hub.
type HubOptions struct {
	// Queue is how many batches one subscriber may fall behind; 0 means DefaultSubscriberQueue.
	Queue int
	// MaxSubscribers bounds subscribers; 0 means DefaultMaxSubscribers.
	MaxSubscribers int
}

// Hub fans the live stream out to subscribers. Each event is encoded once, and publishing
// never waits: a subscriber whose queue is full is dropped (its stream ends; it reconnects and
// reloads what it missed) and counted, so a slow reader never slows grading or traffic.
type Hub struct {
	queue int
	max   int
	m     *metrics

	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	closed bool
}

// newHub returns an empty hub counting into m.
func newHub(opts HubOptions, m *metrics) *Hub {
	return &Hub{queue: orDefault(opts.Queue, DefaultSubscriberQueue), max: orDefault(opts.MaxSubscribers, DefaultMaxSubscribers),
		m: m, subs: map[*Subscription]struct{}{}}
}

// Subscription is one reader of the live stream.
type Subscription struct {
	// Frames delivers each published batch as encoded SSE frames ("event: ...\ndata: ...\n\n"
	// each), ready to write.
	Frames <-chan []byte
	frames chan []byte
	// Done is closed when the hub dropped the subscriber (it fell behind) or closed.
	Done     <-chan struct{}
	done     chan struct{}
	dropOnce sync.Once
	// Dropped is set (before Done closes) when the subscriber fell behind.
	dropped bool
	hub     *Hub
}

// Errors of Subscribe.
var (
	ErrTooManySubscribers = errors.New("too many live-stream subscribers")
	ErrHubClosed          = errors.New("the live stream is closed (the proxy is stopping)")
)

// Subscribe adds a reader; Cancel removes it.
func (h *Hub) Subscribe() (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrHubClosed
	}
	if len(h.subs) >= h.max {
		return nil, fmt.Errorf("%w (%d): try again later", ErrTooManySubscribers, h.max)
	}
	s := &Subscription{frames: make(chan []byte, h.queue), done: make(chan struct{}), hub: h}
	s.Frames, s.Done = s.frames, s.done
	h.subs[s] = struct{}{}
	h.m.subscribers.Store(int64(len(h.subs)))
	return s, nil
}

// Cancel removes the subscriber; safe to call more than once.
func (s *Subscription) Cancel() {
	h := s.hub
	h.mu.Lock()
	delete(h.subs, s)
	h.m.subscribers.Store(int64(len(h.subs)))
	h.mu.Unlock()
	s.dropOnce.Do(func() { close(s.done) })
}

// WasDropped reports whether the hub dropped the subscriber for falling behind.
func (s *Subscription) WasDropped() bool {
	select {
	case <-s.done:
		return s.dropped
	default:
		return false
	}
}

// Frame encodes an event as one SSE frame.
func Frame(e Event) ([]byte, error) {
	b, err := json.Marshal(e.Data)
	if err != nil {
		return nil, fmt.Errorf("encoding a %s event: %w", e.Type, err)
	}
	out := make([]byte, 0, len(e.Type)+len(b)+16)
	out = append(out, "event: "...)
	out = append(out, e.Type...)
	out = append(out, "\ndata: "...)
	out = append(out, b...)
	return append(out, "\n\n"...), nil
}

// listened reports whether anyone subscribes now, so that a publisher can skip building
// events nobody reads (Publish checks again under its lock).
func (h *Hub) listened() bool { return h.m.subscribers.Load() > 0 }

// Publish sends the events, in order and encoded once, to every subscriber without waiting.
func (h *Hub) Publish(events ...Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) == 0 || len(events) == 0 {
		return
	}
	var frame []byte
	for _, e := range events {
		f, err := Frame(e)
		if err != nil {
			continue
		}
		frame = append(frame, f...)
	}
	for s := range h.subs {
		select {
		case s.frames <- frame:
		default:
			// Fallen behind: drop it rather than wait, and say so in /metrics.
			delete(h.subs, s)
			s.dropped = true
			s.dropOnce.Do(func() { close(s.done) })
			h.m.subscribersDropped.Add(1)
		}
	}
	h.m.subscribers.Store(int64(len(h.subs)))
}

// Close ends every subscription and refuses new ones: the proxy is stopping, and a stream left
// open would hold the admin server's shutdown until its deadline.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		delete(h.subs, s)
		s.dropOnce.Do(func() { close(s.done) })
	}
	h.m.subscribers.Store(0)
}
