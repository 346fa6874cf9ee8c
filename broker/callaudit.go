package broker

import (
	"context"
	"errors"
	"sync"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/store"
)

// callAudit is one tools/call's pending durable record, in its context: the audit entry the
// middleware will write, and what the handler staged to commit with it (an evaluation and its
// handle). The middleware commits them together after the handler returns, and the result goes
// out only if that commit succeeded; an effect that wrote its own audit row inside its own
// transaction marks it done instead.
type callAudit struct {
	entry audit.Entry

	mu      sync.Mutex
	ev      *store.Evaluation
	handle  *store.Handle
	written bool
}

type callAuditKey struct{}

func withCallAudit(ctx context.Context, e audit.Entry) (context.Context, *callAudit) {
	c := &callAudit{entry: e}
	return context.WithValue(ctx, callAuditKey{}, c), c
}

func callAuditFrom(ctx context.Context) *callAudit {
	c, _ := ctx.Value(callAuditKey{}).(*callAudit)
	return c
}

// errNotAudited is returned when something that must be committed with a call's audit row is
// recorded outside an audited call, which a correctly wired server never does.
var errNotAudited = errors.New("recording outside an audited tools/call")

// stage keeps the evaluation and its handle for the middleware's commit.
func (c *callAudit) stage(ev store.Evaluation, h store.Handle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ev, c.handle = &ev, &h
}

// record builds the call's record from the entry template and what the note says.
func (c *callAudit) record(n *audit.Note, outcome string) store.CallRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry
	e.DecidedBy, _ = n.Values()
	e.RequestID, e.Detail = n.Refs()
	e.Outcome = outcome
	return store.CallRecord{Audit: e, Evaluation: c.ev, Handle: c.handle}
}

// markWritten says the call's audit row was written inside an effect's transaction.
func (c *callAudit) markWritten() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.written = true
}

func (c *callAudit) isWritten() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.written
}
