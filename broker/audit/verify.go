package audit

import (
	"fmt"
	"time"
)

// Kinds of problem a verification reports. They are distinct because they mean different things
// to an investigator: rows removed from the end, history changed, or entries nobody wrote.
const (
	// Truncated: the chain ends before the latest signed checkpoint says it reached.
	Truncated = "truncated"
	// Rewritten: an entry the chain or a checkpoint vouched for was changed or removed, even if
	// every hash after it was recomputed.
	Rewritten = "rewritten"
	// Forged: an entry (or a checkpoint) that no trusted key signed.
	Forged = "forged"
)

// Break names the first sequence that fails verification, what kind of failure it is and why.
type Break struct {
	// Kind is Truncated, Rewritten or Forged.
	Kind string
	// Seq is the first bad sequence: the first missing entry of a truncation, the first changed
	// entry of a rewrite, the first unsigned entry of a forgery.
	Seq int64
	// Reason says what failed.
	Reason string
}

func (b *Break) Error() string {
	return fmt.Sprintf("audit chain %s at entry %d: %s", b.Kind, b.Seq, b.Reason)
}

// Report is what a verification found.
type Report struct {
	// Entries is how many records were read; Head is the last one's hash (Genesis when empty).
	Entries int64
	Head    string
	// Checkpoint is the latest checkpoint with a trusted signature, the anchor the chain was
	// checked against; nil when there is none (then a truncated tail cannot be detected).
	Checkpoint *Checkpoint
	// AfterCheckpoint is how many entries follow it (each had to carry a trusted signature).
	AfterCheckpoint int64
	// Unsigned is how many entries carry no signature: allowed only before the first signed
	// entry (written before the broker had an audit key) and only when a checkpoint covers them.
	Unsigned int64
	// SignaturesChecked is false when no keys were given: only the chain's own links were
	// checked, which catches naive edits but not a rewrite with recomputed hashes.
	SignaturesChecked bool
	// Break is the first problem, or nil.
	Break *Break
}

// Verifier checks records one at a time, in sequence order, so a caller can stream a chain of any
// length from the database without holding it in memory; Finish then checks the end of the chain
// against the checkpoint.
type Verifier struct {
	keys       Keys
	cp         *Checkpoint
	prev       *Record
	count      int64
	unsigned   int64
	signedSeen bool
	after      int64
	brk        *Break
	forgedCP   *Break
}

// NewVerifier verifies with keys (nil: links only, no signatures) against the latest of
// checkpoints that keys trust. A checkpoint with an untrusted signature is a forgery, reported
// unless the chain breaks earlier.
func NewVerifier(keys Keys, checkpoints []Checkpoint) *Verifier {
	v := &Verifier{keys: keys}
	if keys == nil {
		return v
	}
	for _, c := range checkpoints {
		if !keys.VerifyCheckpoint(c) {
			if v.forgedCP == nil || c.Seq < v.forgedCP.Seq {
				v.forgedCP = &Break{Kind: Forged, Seq: c.Seq, Reason: "a checkpoint for this entry is not signed by a trusted audit key"}
			}
			continue
		}
		if v.cp == nil || c.Seq > v.cp.Seq {
			cc := c
			v.cp = &cc
		}
	}
	return v
}

func (v *Verifier) fail(kind string, seq int64, format string, a ...any) error {
	v.brk = &Break{Kind: kind, Seq: seq, Reason: fmt.Sprintf(format, a...)}
	return v.brk
}

// covered reports whether the checkpoint vouches for seq.
func (v *Verifier) covered(seq int64) bool { return v.cp != nil && seq <= v.cp.Seq }

// Next checks r against the record before it and its signature. It returns a *Break for the first
// bad record; after a break the verdict stands and the caller should stop.
func (v *Verifier) Next(r Record) error {
	if v.brk != nil {
		return v.brk
	}
	wantSeq, wantPrev := int64(1), Genesis
	if v.prev != nil {
		wantSeq, wantPrev = v.prev.Seq+1, v.prev.Hash
	}
	switch {
	case r.Seq != wantSeq:
		return v.fail(Rewritten, wantSeq, "expected entry %d, found %d: entries were removed or inserted", wantSeq, r.Seq)
	case r.PrevHash != wantPrev:
		return v.fail(Rewritten, r.Seq, "its prev_hash is not the hash of the entry before it")
	case Hash(r.Seq, r.PrevHash, r.Entry) != r.Hash:
		return v.fail(Rewritten, r.Seq, "its contents do not match its hash (the row was edited)")
	}
	if v.keys != nil {
		switch {
		case v.keys.VerifyRecord(r):
			v.signedSeen = true
		case r.Sig == "" && !v.signedSeen:
			v.unsigned++ // written before signing; the checkpoint must vouch for it (Finish)
		case v.covered(r.Seq):
			return v.fail(Rewritten, r.Seq, "its signature does not match it: the entry was changed after it was signed (a checkpoint covers it)")
		default:
			return v.fail(Forged, r.Seq, "it is not signed by a trusted audit key (no broker wrote it)")
		}
		if v.cp != nil && r.Seq == v.cp.Seq && r.Hash != v.cp.Hash {
			first := r.Seq
			if v.unsigned > 0 {
				first = 1 // the unsigned entries cannot say which of them changed
			}
			return v.fail(Rewritten, first, "the chain up to entry %d no longer matches the checkpoint signed at %s", r.Seq, time.UnixMicro(v.cp.At).UTC().Format(time.RFC3339))
		}
		if v.cp != nil && r.Seq > v.cp.Seq {
			v.after++
		}
	}
	rc := r
	v.prev = &rc
	v.count++
	return nil
}

// Finish completes the verification after the last record and returns the report.
func (v *Verifier) Finish() Report {
	rep := Report{Entries: v.count, Head: Genesis, Checkpoint: v.cp, AfterCheckpoint: v.after,
		Unsigned: v.unsigned, SignaturesChecked: v.keys != nil, Break: v.brk}
	if v.prev != nil {
		rep.Head = v.prev.Hash
	}
	if rep.Break != nil {
		return rep
	}
	last := int64(0)
	if v.prev != nil {
		last = v.prev.Seq
	}
	switch {
	case v.cp != nil && last < v.cp.Seq:
		rep.Break = &Break{Kind: Truncated, Seq: last + 1, Reason: fmt.Sprintf("the chain ends at entry %d, but a checkpoint signed at %s vouches for %d entries: entries %d to %d were removed",
			last, time.UnixMicro(v.cp.At).UTC().Format(time.RFC3339), v.cp.Seq, last+1, v.cp.Seq)}
	case v.unsigned > 0 && !v.covered(v.unsigned):
		rep.Break = &Break{Kind: Forged, Seq: 1, Reason: fmt.Sprintf("%d entries carry no signature and no trusted checkpoint vouches for them", v.unsigned)}
	case v.forgedCP != nil:
		rep.Break = v.forgedCP
	}
	return rep
}

// Count is how many records have verified so far.
func (v *Verifier) Count() int64 { return v.count }

// Head is the last verified record's hash (Genesis for an empty chain).
func (v *Verifier) Head() string {
	if v.prev == nil {
		return Genesis
	}
	return v.prev.Hash
}

// Verify checks a whole chain held in memory against keys and checkpoints.
func Verify(records []Record, keys Keys, checkpoints []Checkpoint) Report {
	v := NewVerifier(keys, checkpoints)
	for _, r := range records {
		if v.Next(r) != nil {
			break
		}
	}
	return v.Finish()
}
