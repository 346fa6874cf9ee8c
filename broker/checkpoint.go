package broker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/store"
)

// DefaultCheckpointInterval is how often a running broker checkpoints its audit head (when it
// moved). The window it leaves is the window in which a deleted tail goes unnoticed: rows appended
// since the last checkpoint are each signed, but their removal is visible only against a later
// checkpoint.
const DefaultCheckpointInterval = time.Minute

// Checkpointer anchors the audit chain: it signs the head (sequence, hash) with the broker's audit
// key and writes the checkpoint to the store and, when File is set, appends it to a file outside
// the database. Whoever can rewrite the database cannot forge the signature, and cannot reach the
// file; `broker audit verify` checks the chain against the latest checkpoint of either.
type Checkpointer struct {
	Store  store.Audit
	Signer *audit.Signer
	// File, when set, receives one JSON line per checkpoint (appended, synced).
	File string
	// Interval is the period of Run; 0 means DefaultCheckpointInterval.
	Interval time.Duration
	Logger   *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu   sync.Mutex
	last int64 // the sequence last checkpointed; -1 before the first
	done bool
}

// Checkpoint writes a checkpoint of the current head unless the head has not moved since the last
// one this checkpointer wrote. It returns the checkpoint written, or nil.
func (c *Checkpointer) Checkpoint(ctx context.Context) (*audit.Checkpoint, error) {
	if c == nil || c.Signer == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	head, err := c.Store.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("checkpointing the audit log: %w", err)
	}
	if c.done && head.Seq == c.last {
		return nil, nil
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	cp := c.Signer.SignCheckpoint(audit.Checkpoint{Seq: head.Seq, Hash: head.Hash, At: now().UnixMicro()})
	if c.File != "" {
		if err := appendCheckpoint(c.File, cp); err != nil {
			return nil, err
		}
	}
	if err := c.Store.PutCheckpoint(ctx, cp); err != nil {
		return nil, fmt.Errorf("checkpointing the audit log: %w", err)
	}
	c.last, c.done = head.Seq, true
	return &cp, nil
}

// Run checkpoints at start, every Interval while ctx lives, and once more when ctx ends (with a
// context of its own, so a shutdown still writes it).
func (c *Checkpointer) Run(ctx context.Context) {
	if c == nil || c.Signer == nil {
		return
	}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	interval := c.Interval
	if interval <= 0 {
		interval = DefaultCheckpointInterval
	}
	write := func(ctx context.Context, when string) {
		cp, err := c.Checkpoint(ctx)
		switch {
		case err != nil:
			log.Error("audit checkpoint failed", slog.String("when", when), slog.Any("error", err))
		case cp != nil:
			// The line carries the whole signed checkpoint under its JSON names, so a log store is
			// one more copy outside the database: `broker audit verify --checkpoints` reads the
			// broker's JSON log as it reads a checkpoint file.
			log.Info("audit checkpoint", slog.String("when", when), slog.Int64("seq", cp.Seq), slog.String("hash", cp.Hash),
				slog.Int64("at", cp.At), slog.String("keyId", cp.KeyID), slog.String("sig", cp.Sig))
		}
	}
	write(ctx, "start")
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), StoreTimeout)
			write(final, "shutdown")
			cancel()
			return
		case <-t.C:
			write(ctx, "periodic")
		}
	}
}

// appendCheckpoint appends cp as one line to path (created 0600) and syncs it.
func appendCheckpoint(path string, cp audit.Checkpoint) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("writing the audit checkpoint file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("writing the audit checkpoint file: %w", err)
	}
	b, _ := json.Marshal(cp)
	if _, err := f.Write(append(b, '\n')); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing the audit checkpoint file: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing the audit checkpoint file: %w", err)
	}
	return f.Close()
}

// ReadCheckpointFile reads the checkpoints in path: a checkpoint file, or the broker's JSON log,
// whose "audit checkpoint" lines carry the same fields (other JSON lines, without a signature, are
// skipped). A last line without its newline (a write torn by a crash) is ignored; a line that is
// not JSON is an error.
func ReadCheckpointFile(path string) ([]audit.Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the audit checkpoint file: %w", err)
	}
	var out []audit.Checkpoint
	r := bufio.NewReader(bytes.NewReader(b))
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return out, nil // a torn, newline-less last line is not a checkpoint
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var cp audit.Checkpoint
		if jerr := json.Unmarshal(line, &cp); jerr != nil {
			return nil, fmt.Errorf("reading the audit checkpoint file %s: line %d is not JSON", path, n)
		}
		if cp.Sig == "" {
			continue // another log record
		}
		out = append(out, cp)
	}
}
