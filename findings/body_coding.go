package findings

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"
)

// Stored bodies of compressBodyMin bytes or more are kept s2-compressed (klauspost/compress,
// already in the module's graph through the Prometheus client) when that saves at least an
// eighth; the exchanges row's body_coding says which of its two bodies are. SQLite writes every
// page a body takes twice, to the WAL and again at the checkpoint, one system call a page: a
// 64 KiB body was most of what storing a 256 KiB exchange cost the grading worker, while s2
// compresses 64 KiB of JSON in about 30 µs (to about a quarter) and gives up on incompressible
// bytes within a few. Bodies read back decompressed, byte for byte what was stored before;
// rows written before the column existed (or by an older proxy sharing a PostgreSQL store) have
// body_coding 0 and read as they are.
const compressBodyMin = 4 << 10

// body_coding bits.
const (
	codingRequestS2  = 1
	codingResponseS2 = 2
)

// maxDecodedBody bounds what a stored body may claim to inflate to: no body this store writes
// comes near it, so a larger claim is a damaged row, not a body.
const maxDecodedBody = 64 << 20

// encodeBuffers lends the buffers bodies are compressed into; the driver copies a bound blob
// before the statement runs, so a buffer goes back once the row's insert returns.
var encodeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, s2.MaxEncodedLen(DefaultMaxStoredBody)); return &b }}

// compressBody returns b s2-compressed in a buffer lent from encodeBuffers and true, or b itself
// and false when b is short or does not shrink by an eighth. A lent buffer is given back with
// giveBackEncoded.
func compressBody(b []byte) ([]byte, *[]byte, bool) {
	if len(b) < compressBodyMin {
		return b, nil, false
	}
	buf := encodeBuffers.Get().(*[]byte)
	need := s2.MaxEncodedLen(len(b))
	if need < 0 { // too large for s2's block format; never at the store's caps
		encodeBuffers.Put(buf)
		return b, nil, false
	}
	if cap(*buf) < need {
		*buf = make([]byte, 0, need)
	}
	enc := s2.Encode((*buf)[:need], b)
	if len(enc) > len(b)-len(b)/8 {
		encodeBuffers.Put(buf)
		return b, nil, false
	}
	return enc, buf, true
}

// giveBackEncoded returns a buffer compressBody lent; nil is ignored.
func giveBackEncoded(buf *[]byte) {
	if buf != nil {
		encodeBuffers.Put(buf)
	}
}

// decodeBody inflates a stored body whose coding bit is set.
func decodeBody(id string, enc []byte) ([]byte, error) {
	n, err := s2.DecodedLen(enc)
	if err != nil || n > maxDecodedBody {
		return nil, fmt.Errorf("decoding a stored body of exchange %s: length %d: %w", id, n, errCorruptBody(err))
	}
	out, err := s2.Decode(make([]byte, n), enc)
	if err != nil {
		return nil, fmt.Errorf("decoding a stored body of exchange %s: %w", id, err)
	}
	return out, nil
}

func errCorruptBody(err error) error {
	if err != nil {
		return err
	}
	return s2.ErrCorrupt
}
