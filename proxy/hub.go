package proxy

import "sync"

// event is one item on the admin API's live stream: an exchange summary or a finding.
type event struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// subscriberBuffer is how many events a slow live-stream reader may fall behind before events
// are dropped for it; publishing never waits.
const subscriberBuffer = 256

// hub fans events out to live-stream subscribers without ever blocking the publisher.
type hub struct {
	mu   sync.Mutex
	subs map[chan event]struct{}
}

func newHub() *hub { return &hub{subs: map[chan event]struct{}{}} }

func (h *hub) subscribe() (<-chan event, func()) {
	ch := make(chan event, subscriberBuffer)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

func (h *hub) publish(e event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- e:
		default: // a slow reader loses events rather than slowing grading
		}
	}
}
