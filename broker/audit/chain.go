package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Genesis is the prev-hash of the first entry: 32 zero bytes in hex. A chain always starts here,
// so a deleted head is as visible as an edited row.
var Genesis = strings.Repeat("0", 64)

// Entry is what the broker appends for every tool invocation: who called which tool with what
// (a digest, never the arguments), and how it ended.
type Entry struct {
	// At is when the invocation was decided; stored at microsecond precision.
	At      time.Time
	Tenant  string
	Subject string
	Tool    string
	// ArgsDigest is the hex SHA-256 of the canonical arguments; payloads never reach the log.
	ArgsDigest string
	// Outcome is "ok", "input_required", "replayed", "tool_error" or "error".
	Outcome string
	// DecidedBy names the tier that produced the result (heuristic, judge, cache) or "" when no
	// metric ran.
	DecidedBy string
	// RequestID is the result's requestId (the stored evaluation's id) when the call produced
	// one, so an evaluation and its audit row can be joined.
	RequestID string
	// Detail is what the call applied, as JSON: a policy write's value (the one in force after
	// it, also for a replayed retry).
	Detail string
}

// Record is an Entry as stored: its position, its predecessor's hash and its own, and the
// signature of that hash by the broker's audit key (KeyID names the key).
type Record struct {
	Seq      int64
	Entry    Entry
	PrevHash string
	Hash     string
	KeyID    string
	Sig      string
}

// Hash computes the hash of an entry at position seq following prevHash. Every field takes part,
// length-prefixed, so no two distinct rows hash alike by shifting text from one field into the
// next. An entry with neither RequestID nor Detail hashes exactly as the first schema's rows did
// (which had neither), so chains written before them still verify; blanking both fields of a
// newer row changes its field count, and so its hash.
func Hash(seq int64, prevHash string, e Entry) string {
	fields := []string{
		prevHash,
		strconv.FormatInt(seq, 10),
		strconv.FormatInt(e.At.UnixMicro(), 10),
		e.Tenant, e.Subject, e.Tool, e.ArgsDigest, e.Outcome, e.DecidedBy,
	}
	if e.RequestID != "" || e.Detail != "" {
		fields = append(fields, e.RequestID, e.Detail)
	}
	h := sha256.New()
	for _, f := range fields {
		h.Write([]byte(strconv.Itoa(len(f))))
		h.Write([]byte{':'})
		h.Write([]byte(f))
		h.Write([]byte{0x1f})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Link builds the record that follows prev (nil for the first one).
func Link(prev *Record, e Entry) Record {
	seq, prevHash := int64(1), Genesis
	if prev != nil {
		seq, prevHash = prev.Seq+1, prev.Hash
	}
	e.At = e.At.Truncate(time.Microsecond)
	return Record{Seq: seq, Entry: e, PrevHash: prevHash, Hash: Hash(seq, prevHash, e)}
}
