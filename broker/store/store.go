package store

import (
	"context"
	"errors"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/eval"
)

// ErrNotFound is returned when a looked-up row does not exist. Handle resolution deliberately
// folds it into one indistinguishable error (see broker/handle); the store itself says what it saw.
var ErrNotFound = errors.New("not found")

// Evaluation is one stored evaluation. It pins what is needed to reproduce it: the metric version
// and judge model, the policy it ran under, and — only when the tenant archives payloads — the
// texts; otherwise just their digest.
type Evaluation struct {
	ID      string
	Tenant  string
	Subject string
	Tool    string
	// CreatedAt is stored at microsecond precision.
	CreatedAt     time.Time
	MetricVersion string
	JudgeModel    string
	// InputDigest is the hex SHA-256 of the canonical input (response and context texts).
	InputDigest string
	// Input is the canonical input JSON; nil unless the tenant's archivePayloads is true.
	Input []byte
	// Policy is the tenant policy JSON the evaluation ran under.
	Policy []byte
	// Result is the eval.EvaluationResult JSON returned to the caller.
	Result []byte
}

// Evaluations stores evaluations by id.
type Evaluations interface {
	// PutEvaluation inserts e; an existing id is an error (ids are minted, never reused).
	PutEvaluation(ctx context.Context, e Evaluation) error
	// GetEvaluation returns the evaluation with id, or ErrNotFound.
	GetEvaluation(ctx context.Context, id string) (Evaluation, error)
}

// Handle is the stored side of a client-held handle: never the handle itself, only its digest,
// so a reader of the database cannot use what it reads.
type Handle struct {
	Digest       string
	EvaluationID string
	Tenant       string
	Subject      string
	CreatedAt    time.Time
	ExpiresAt    time.Time
	// RevokedAt is zero while the handle is live.
	RevokedAt time.Time
}

// Handles stores handle records by digest.
type Handles interface {
	PutHandle(ctx context.Context, h Handle) error
	// GetHandle returns the record for digest, or ErrNotFound.
	GetHandle(ctx context.Context, digest string) (Handle, error)
	// RevokeHandle marks the handle revoked at at; revoking twice keeps the first time. An unknown
	// digest is ErrNotFound.
	RevokeHandle(ctx context.Context, digest string, at time.Time) error
}

// Tx is what an effect may do inside its transaction. Everything written through it commits
// together with the effect's recorded result, or not at all.
type Tx interface {
	// PutPolicy writes the tenant's policy for one metric and bumps its revision, the count of
	// writes ever applied to it (the source-side effect counter).
	PutPolicy(ctx context.Context, tenant string, p eval.MetricPolicy) (revision int64, err error)
	// Append adds the effect's audit entry in the same transaction, so the write and its audit
	// row commit together or not at all.
	Append(ctx context.Context, e audit.Entry) (audit.Record, error)
}

// EffectFunc performs an effect through tx and returns the result to record and replay.
type EffectFunc func(ctx context.Context, tx Tx) (result []byte, err error)

// Effects runs effects exactly once per idempotency key.
type Effects interface {
	// Once runs fn in a transaction claimed by key and records its result in the same
	// transaction. If key was already recorded — by this process or any other sharing the
	// database, concurrently or earlier — fn is not run and the recorded result is returned with
	// replayed true; if it was recorded with another non-empty fingerprint (the same key for a
	// different request) the error is ErrKeyReused. If fn fails nothing is recorded and the key
	// stays free.
	Once(ctx context.Context, key, tenant, tool, fingerprint string, fn EffectFunc) (result []byte, replayed bool, err error)
	// Recorded returns the result recorded under key, and false when the key has none.
	Recorded(ctx context.Context, key, tenant, tool string) (result []byte, ok bool, err error)
}

// ErrKeyReused is returned by Once for a key recorded with another fingerprint: a client reused
// an idempotency key for a different request, which is refused rather than replayed.
var ErrKeyReused = errors.New("idempotency key already used for a different request")

// PolicyRow is one stored metric policy with its write count.
type PolicyRow struct {
	Tenant   string
	Policy   eval.MetricPolicy
	Revision int64
	At       time.Time
}

// Policies reads the tenant policies written by set_metric_policy (writes go through Effects).
type Policies interface {
	// Policies returns every stored metric policy of tenant, ordered by metric.
	Policies(ctx context.Context, tenant string) ([]PolicyRow, error)
}

// CallRecord is what one acknowledged tool call leaves behind: its audit entry and, for an
// evaluating call, the evaluation and its handle. They commit in one transaction or not at all,
// so no stored evaluation lacks its audit row and no audit row names a missing evaluation.
type CallRecord struct {
	Audit      audit.Entry
	Evaluation *Evaluation
	Handle     *Handle
}

// Audit is the append-only, hash-chained, signed log and its checkpoints.
type Audit interface {
	// Commit stores r durably in one transaction and returns the audit record: linked to the
	// current head and signed with the store's audit key (WithSigner). Concurrent commits are
	// grouped into shared transactions, but each returns only after its transaction committed.
	// Appends are serialised across processes, so the chain never forks.
	Commit(ctx context.Context, r CallRecord) (audit.Record, error)
	// Append is Commit of an audit entry alone.
	Append(ctx context.Context, e audit.Entry) (audit.Record, error)
	// Walk calls fn for every record in sequence order until fn returns an error.
	Walk(ctx context.Context, fn func(audit.Record) error) error
	// Head returns the last record (Seq 0 and Hash audit.Genesis when the log is empty).
	Head(ctx context.Context) (audit.Record, error)
	// PutCheckpoint stores a signed checkpoint (append-only, like the log).
	PutCheckpoint(ctx context.Context, c audit.Checkpoint) error
	// Checkpoints returns every stored checkpoint in sequence order.
	Checkpoints(ctx context.Context) ([]audit.Checkpoint, error)
}

// Store is every concern at once, which is what one database provides.
type Store interface {
	Evaluations
	Handles
	Effects
	Policies
	Audit
	// Migrate brings the schema to the current version; safe to run concurrently from replicas.
	Migrate(ctx context.Context) error
	// Ping checks the database answers.
	Ping(ctx context.Context) error
	// Dialect is "sqlite" or "postgres".
	Dialect() string
	Close() error
}
