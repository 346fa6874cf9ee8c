package store

// migration is one schema step; the statements run in one transaction and the version is
// recorded with them.
type migration struct {
	version  int
	sqlite   []string
	postgres []string
}

// tables is the part of the schema both dialects spell alike. Times are unix microseconds, so
// both stores compare and order them the same way.
var tables = []string{
	`CREATE TABLE evaluations (
		id TEXT PRIMARY KEY,
		tenant TEXT NOT NULL,
		subject TEXT NOT NULL,
		tool TEXT NOT NULL,
		created_at BIGINT NOT NULL,
		metric_version TEXT NOT NULL,
		judge_model TEXT NOT NULL,
		input_digest TEXT NOT NULL,
		input TEXT,
		policy TEXT NOT NULL,
		result TEXT NOT NULL
	)`,
	`CREATE TABLE handles (
		digest TEXT PRIMARY KEY,
		evaluation_id TEXT NOT NULL REFERENCES evaluations(id),
		tenant TEXT NOT NULL,
		subject TEXT NOT NULL,
		created_at BIGINT NOT NULL,
		expires_at BIGINT NOT NULL,
		revoked_at BIGINT
	)`,
	`CREATE TABLE effects (
		idempotency_key TEXT PRIMARY KEY,
		tenant TEXT NOT NULL,
		tool TEXT NOT NULL,
		created_at BIGINT NOT NULL,
		result TEXT
	)`,
	`CREATE TABLE policies (
		tenant TEXT NOT NULL,
		metric TEXT NOT NULL,
		body TEXT NOT NULL,
		revision BIGINT NOT NULL,
		updated_at BIGINT NOT NULL,
		PRIMARY KEY (tenant, metric)
	)`,
	`CREATE TABLE audit_log (
		seq BIGINT PRIMARY KEY,
		at BIGINT NOT NULL,
		tenant TEXT NOT NULL,
		subject TEXT NOT NULL,
		tool TEXT NOT NULL,
		args_digest TEXT NOT NULL,
		outcome TEXT NOT NULL,
		decided_by TEXT NOT NULL,
		prev_hash TEXT NOT NULL,
		hash TEXT NOT NULL UNIQUE
	)`,
}

// migrations is the whole history; append, never edit a released step.
var migrations = []migration{{
	version: 1,
	sqlite: append(append([]string{}, tables...),
		`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
		 BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`,
		`CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
		 BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`,
	),
	postgres: append(append([]string{}, tables...),
		`CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$`,
		`CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
		 FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`,
		`CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
		 FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`,
	),
}, migrationV2}

// v2 signs the audit log and anchors it: each row carries the request it answered, what it
// applied, and a signature of its hash; signed checkpoints of the head are kept in a table as
// append-only as the log. An effect records the fingerprint of its request, so an idempotency key
// reused for another request is refused rather than replayed.
var v2 = []string{
	`ALTER TABLE effects ADD COLUMN fingerprint TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE audit_log ADD COLUMN request_id TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE audit_log ADD COLUMN detail TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE audit_log ADD COLUMN key_id TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE audit_log ADD COLUMN sig TEXT NOT NULL DEFAULT ''`,
	`CREATE TABLE audit_checkpoints (
		seq BIGINT NOT NULL,
		hash TEXT NOT NULL,
		at BIGINT NOT NULL,
		key_id TEXT NOT NULL,
		sig TEXT NOT NULL,
		PRIMARY KEY (seq, key_id, at)
	)`,
}

// migrationV2 brings a version-1 database to version 2.
var migrationV2 = migration{
	version: 2,
	sqlite: append(append([]string{}, v2...),
		`CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
			 BEGIN SELECT RAISE(ABORT, 'audit_checkpoints is append-only'); END`,
		`CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
			 BEGIN SELECT RAISE(ABORT, 'audit_checkpoints is append-only'); END`,
	),
	postgres: append(append([]string{}, v2...),
		`CREATE TRIGGER audit_checkpoints_no_change BEFORE UPDATE OR DELETE ON audit_checkpoints
			 FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`,
		`CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints
			 FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`,
	),
}

// SchemaVersion is the version Migrate brings a database to.
var SchemaVersion = migrations[len(migrations)-1].version
