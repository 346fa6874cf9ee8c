package audit

import (
	"context"
	"sync"
)

// Note is what a tool handler tells the audit middleware about its call that the middleware cannot
// see in the result: which tier decided it, and whether it was a replay. The middleware puts one
// in the context before the handler runs and reads it after.
type Note struct {
	mu        sync.Mutex
	decidedBy string
	outcome   string
	requestID string
	detail    string
}

type noteKey struct{}

// WithNote returns ctx carrying a fresh note, and the note.
func WithNote(ctx context.Context) (context.Context, *Note) {
	n := &Note{}
	return context.WithValue(ctx, noteKey{}, n), n
}

// NoteFrom returns the note in ctx, or nil; every method is safe on nil, so handlers need not
// check.
func NoteFrom(ctx context.Context) *Note {
	n, _ := ctx.Value(noteKey{}).(*Note)
	return n
}

// SetDecidedBy records the deciding tier.
func (n *Note) SetDecidedBy(v string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.decidedBy = v
}

// SetOutcome overrides the outcome the middleware would infer (e.g. "replayed").
func (n *Note) SetOutcome(v string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.outcome = v
}

// SetRequestID records the id of the request's result (the stored evaluation's id), which the
// audit entry carries so the two can be joined.
func (n *Note) SetRequestID(v string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.requestID = v
}

// SetDetail records what the call applied (a policy write's value, as JSON).
func (n *Note) SetDetail(v string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.detail = v
}

// Refs returns the noted request id and detail.
func (n *Note) Refs() (requestID, detail string) {
	if n == nil {
		return "", ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.requestID, n.detail
}

// Values returns what was noted.
func (n *Note) Values() (decidedBy, outcome string) {
	if n == nil {
		return "", ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.decidedBy, n.outcome
}
