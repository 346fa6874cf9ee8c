// Package handle mints and resolves the broker's evaluation handles: opaque, server-minted
// strings with 256 bits of randomness that name a stored evaluation. A handle is bound to the
// principal (tenant and subject) it was minted for, expires, and can be revoked.
//
// Resolve is the only function that turns a handle into something usable, and it answers every
// kind of refusal — no such handle, not yours, expired, revoked, malformed — with the same error
// after the same single lookup, so a caller cannot probe for other principals' handles.
//
// The store keeps only a SHA-256 digest of each handle, so a database reader cannot use one.
//
// handle imports broker/store only; never Sentinel's harness (rules, wire, active, passive,
// proxy, findings, report, tui).
package handle

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/store"
)

// Prefix starts every handle, so one is recognisable in logs and in a client's hands.
const Prefix = "hdl_"

// RandomBytes is the handle's entropy: 256 bits.
const RandomBytes = 32

// DefaultTTL is how long a handle stays usable when Service.TTL is 0.
const DefaultTTL = 24 * time.Hour

// ErrUnusable is the one answer for a handle that cannot be used by this caller, whatever the
// reason. Its text is what the client sees.
var ErrUnusable = errors.New("unknown handle: it does not exist, has expired, or was revoked")

// Store is what the service needs of the broker's store.
type Store interface {
	store.Handles
	store.Evaluations
}

// Service issues, resolves and revokes handles over a store.
type Service struct {
	Store Store
	// TTL is a handle's lifetime; 0 means DefaultTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Digest is the stored form of a handle.
func Digest(h string) string {
	sum := sha256.Sum256([]byte(h))
	return hex.EncodeToString(sum[:])
}

// New returns a fresh handle string.
func New() string {
	b := make([]byte, RandomBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return Prefix + base64.RawURLEncoding.EncodeToString(b)
}

// Mint returns a fresh handle for evaluationID bound to tenant and subject, and the record to
// store for it. Nothing is written: the caller commits the record together with the evaluation
// and its audit row, so a handle exists exactly when its evaluation does.
func (s *Service) Mint(tenant, subject, evaluationID string) (string, store.Handle) {
	ttl := s.TTL
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	h := New()
	now := s.now()
	return h, store.Handle{Digest: Digest(h), EvaluationID: evaluationID, Tenant: tenant, Subject: subject,
		CreatedAt: now, ExpiresAt: now.Add(ttl)}
}

// Issue mints a handle for evaluationID and stores it on its own.
func (s *Service) Issue(ctx context.Context, tenant, subject, evaluationID string) (string, error) {
	h, rec := s.Mint(tenant, subject, evaluationID)
	if err := s.Store.PutHandle(ctx, rec); err != nil {
		return "", fmt.Errorf("issuing a handle: %w", err)
	}
	return h, nil
}

// Resolve returns the evaluation h names if, and only if, h was minted for exactly this tenant
// and subject, has not expired and was not revoked. Every refusal is ErrUnusable; store failures
// are wrapped separately (they are the broker's fault, not the caller's).
func (s *Service) Resolve(ctx context.Context, tenant, subject, h string) (store.Evaluation, error) {
	rec, err := s.Store.GetHandle(ctx, Digest(h))
	found := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.Evaluation{}, fmt.Errorf("resolving a handle: %w", err)
	}
	now := s.now()
	// Every check runs whatever the others said: no early exit tells "not yours" from "absent".
	ok := 1
	ok &= boolInt(found)
	ok &= subtle.ConstantTimeCompare([]byte(rec.Tenant), []byte(tenant))
	ok &= subtle.ConstantTimeCompare([]byte(rec.Subject), []byte(subject))
	ok &= boolInt(now.Before(rec.ExpiresAt))
	ok &= boolInt(rec.RevokedAt.IsZero())
	if ok != 1 {
		return store.Evaluation{}, ErrUnusable
	}
	ev, err := s.Store.GetEvaluation(ctx, rec.EvaluationID)
	if err != nil {
		return store.Evaluation{}, fmt.Errorf("resolving a handle: reading its evaluation: %w", err)
	}
	return ev, nil
}

// Revoke revokes h for its owner. Someone else's or an unknown handle is ErrUnusable, like Resolve.
func (s *Service) Revoke(ctx context.Context, tenant, subject, h string) error {
	if _, err := s.Resolve(ctx, tenant, subject, h); err != nil {
		return err
	}
	if err := s.Store.RevokeHandle(ctx, Digest(h), s.now()); err != nil {
		return fmt.Errorf("revoking a handle: %w", err)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
