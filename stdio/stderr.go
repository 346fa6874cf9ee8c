package stdio

import (
	"fmt"
	"sync"
)

// boundedBuffer keeps the first and the last halves of what is written to it, and counts the
// rest: a server that floods stderr costs its cap, and what is kept still shows how it started
// and how it ended, which is what a failure report needs.
type boundedBuffer struct {
	mu    sync.Mutex
	cap   int
	head  []byte
	tail  []byte // a ring of the most recent bytes, once head is full
	start int    // index of the oldest byte in tail, once tail is full
	total int64
}

func newBoundedBuffer(capBytes int) *boundedBuffer {
	if capBytes < 2 {
		capBytes = 2
	}
	return &boundedBuffer{cap: capBytes}
}

// Write keeps what fits and never fails.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	half := b.cap / 2
	if room := half - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	tailCap := b.cap - half
	if len(p) >= tailCap {
		b.tail = append(b.tail[:0], p[len(p)-tailCap:]...)
		b.start = 0
		return n, nil
	}
	for _, c := range p {
		if len(b.tail) < tailCap {
			b.tail = append(b.tail, c)
			continue
		}
		b.tail[b.start] = c
		b.start = (b.start + 1) % tailCap
	}
	return n, nil
}

// Total is every byte written, kept or not.
func (b *boundedBuffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// String is the head, a marker naming the bytes dropped (when any were), and the tail in order.
func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := append(append([]byte(nil), b.tail[b.start:]...), b.tail[:b.start]...)
	kept := int64(len(b.head) + len(tail))
	if dropped := b.total - kept; dropped > 0 {
		return fmt.Sprintf("%s\n[… %d bytes of stderr not kept …]\n%s", b.head, dropped, tail)
	}
	return string(b.head) + string(tail)
}
