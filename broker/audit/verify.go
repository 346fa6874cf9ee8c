package audit

import "fmt"

// Break names the first link of a chain that does not hold and why.
type Break struct {
	// Seq is the position of the first record that fails.
	Seq int64
	// Reason says what failed: a gap in the sequence, a prev-hash that is not its predecessor's
	// hash, or a hash that does not match the record's contents.
	Reason string
}

func (b *Break) Error() string {
	return fmt.Sprintf("audit chain broken at entry %d: %s", b.Seq, b.Reason)
}

// Verifier checks records one at a time, in sequence order, so a caller can stream a chain of any
// length from the database without holding it in memory.
type Verifier struct {
	prev  *Record
	count int64
}

// Next checks r against the record before it. It returns a *Break for the first bad link; after
// a break the verifier's verdict stands and the caller should stop.
func (v *Verifier) Next(r Record) error {
	wantSeq, wantPrev := int64(1), Genesis
	if v.prev != nil {
		wantSeq, wantPrev = v.prev.Seq+1, v.prev.Hash
	}
	switch {
	case r.Seq != wantSeq:
		return &Break{Seq: wantSeq, Reason: fmt.Sprintf("expected entry %d, found %d (a row was removed or inserted)", wantSeq, r.Seq)}
	case r.PrevHash != wantPrev:
		return &Break{Seq: r.Seq, Reason: "its prev_hash is not the hash of the entry before it"}
	case Hash(r.Seq, r.PrevHash, r.Entry) != r.Hash:
		return &Break{Seq: r.Seq, Reason: "its contents do not match its hash (the row was edited)"}
	}
	rc := r
	v.prev = &rc
	v.count++
	return nil
}

// Count is how many records have verified so far.
func (v *Verifier) Count() int64 { return v.count }

// Head is the last verified record's hash (Genesis for an empty chain); printing it lets an
// operator anchor the chain elsewhere and so detect truncation of its tail.
func (v *Verifier) Head() string {
	if v.prev == nil {
		return Genesis
	}
	return v.prev.Hash
}

// Verify checks a whole chain held in memory.
func Verify(records []Record) (int64, error) {
	var v Verifier
	for _, r := range records {
		if err := v.Next(r); err != nil {
			return v.Count(), err
		}
	}
	return v.Count(), nil
}
