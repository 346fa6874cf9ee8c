package broker

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/store"
)

// VerifyAudit walks the audit chain in st and writes what it found to w: on an intact chain the
// number of entries and the head hash (to anchor elsewhere, which is what reveals a truncated
// tail), else the first broken link. A broken chain returns the *audit.Break; a failure to read
// returns a wrapped error, so a caller can tell "tampered" (exit 1) from "could not check" (exit 2).
func VerifyAudit(ctx context.Context, st store.Audit, w io.Writer) error {
	n, head, err := store.VerifyChain(ctx, st)
	var b *audit.Break
	switch {
	case errors.As(err, &b):
		_, _ = fmt.Fprintf(w, "audit chain BROKEN at entry %d: %s (%d entries before it verify)\n", b.Seq, b.Reason, n)
		return b
	case err != nil:
		return fmt.Errorf("verifying the audit chain: %w", err)
	}
	_, _ = fmt.Fprintf(w, "audit chain intact: %d entries, head %s\n", n, head)
	return nil
}
