package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/store"
)

// ErrNotVerified is returned by VerifyAudit when no audit key was given: the chain's links were
// checked (a naive edit shows), but not its signatures or checkpoints, so a rewrite with
// recomputed hashes, a truncated tail or a forged entry would pass. It is not a pass.
var ErrNotVerified = errors.New("signatures and checkpoints not checked: no audit key given")

// VerifyAudit walks the audit chain in st and checks it against keys and the latest trusted
// checkpoint among those stored in st and those in checkpointFiles (the copies kept outside the
// database), and writes what it found to w. It returns nil when the chain is intact and verified,
// the *audit.Break (truncated, rewritten or forged, naming the first bad sequence) when it is not,
// ErrNotVerified when keys is nil and the links hold, and a wrapped error when it could not read,
// so a caller can tell "tampered" (exit 1) from "could not check" (exit 2).
func VerifyAudit(ctx context.Context, st store.Audit, keys audit.Keys, checkpointFiles []string, w io.Writer) error {
	cps, err := st.Checkpoints(ctx)
	if err != nil {
		return fmt.Errorf("verifying the audit chain: %w", err)
	}
	// where each checkpoint was read, by signature, so that a break names the copy it was
	// found against: a checkpoint file outlives the database it is named after
	from := make(map[string]string, len(cps))
	for _, cp := range cps {
		from[cp.Sig] = "the database"
	}
	for _, f := range checkpointFiles {
		more, err := ReadCheckpointFile(f)
		if err != nil {
			return fmt.Errorf("verifying the audit chain: %w", err)
		}
		for _, cp := range more {
			if _, ok := from[cp.Sig]; !ok {
				from[cp.Sig] = f
			}
		}
		cps = append(cps, more...)
	}
	rep, err := store.VerifyChain(ctx, st, keys, cps)
	if err != nil {
		return fmt.Errorf("verifying the audit chain: %w", err)
	}
	if b := rep.Break; b != nil {
		_, _ = fmt.Fprintf(w, "audit chain %s at entry %d: %s (%d entries before it verify)\n", strings.ToUpper(b.Kind), b.Seq, b.Reason, max(0, b.Seq-1))
		if cp := rep.Checkpoint; cp != nil && b.Kind != audit.Forged {
			_, _ = fmt.Fprintf(w, "checked against the checkpoint at entry %d signed %s by key %s, read from %s\n",
				cp.Seq, time.UnixMicro(cp.At).UTC().Format(time.RFC3339), cp.KeyID, from[cp.Sig])
		}
		return b
	}
	if !rep.SignaturesChecked {
		_, _ = fmt.Fprintf(w, "audit chain links intact: %d entries, head %s\n%v: pass --audit-key\n", rep.Entries, rep.Head, ErrNotVerified)
		return ErrNotVerified
	}
	_, _ = fmt.Fprintf(w, "audit chain intact: %d entries, head %s\n", rep.Entries, rep.Head)
	if cp := rep.Checkpoint; cp != nil {
		_, _ = fmt.Fprintf(w, "anchored: checkpoint at entry %d signed %s by key %s; %d entries since, each signed",
			cp.Seq, time.UnixMicro(cp.At).UTC().Format(time.RFC3339), cp.KeyID, rep.AfterCheckpoint)
		if rep.Unsigned > 0 {
			_, _ = fmt.Fprintf(w, "; %d entries from before signing, covered by the checkpoint", rep.Unsigned)
		}
		_, _ = fmt.Fprintln(w)
	} else {
		_, _ = fmt.Fprintf(w, "no trusted checkpoint yet: every entry is signed, but a truncated tail cannot be detected until one is written\n")
	}
	return nil
}
