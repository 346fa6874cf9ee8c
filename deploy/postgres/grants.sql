-- Roles and grants for a shared Sentinel/broker PostgreSQL. Run once as a superuser after the
-- broker's migrations (`broker migrate --db postgres://<schema owner>@...`) have created the
-- tables; the broker itself then connects as broker_app, which cannot run DDL, and its start-up
-- migration check only reads schema_migrations.
--
-- The audit log is append-only by grant, not by convention: the broker's role may INSERT and
-- SELECT audit rows and can never UPDATE, DELETE or TRUNCATE them. Triggers created by the
-- migrations (audit_log_no_change, audit_log_no_truncate) refuse the same even for roles that
-- hold the privilege by mistake; only a superuser who disables them can edit a row, and
-- `broker audit verify` then names the entry.
--
-- Tables (broker/store/schema.go): evaluations, handles, effects, policies, audit_log,
-- audit_checkpoints, schema_migrations. No sequences: audit_log.seq is assigned under an advisory lock.

CREATE ROLE broker_app LOGIN;      -- set its password out of band: ALTER ROLE broker_app PASSWORD ...
CREATE ROLE sentinel_proxy LOGIN;  -- the proxies' findings store

GRANT USAGE ON SCHEMA public TO broker_app, sentinel_proxy;

-- Broker: least privilege per table. Evaluations are immutable once stored; handles are
-- revoked by UPDATE; an effect row is claimed by INSERT and its result recorded by UPDATE;
-- policies are upserted.
GRANT SELECT, INSERT ON evaluations TO broker_app;
GRANT SELECT, INSERT, UPDATE ON handles, effects, policies TO broker_app;
GRANT SELECT ON schema_migrations TO broker_app;
-- Broker: the audit log is append-only.
GRANT SELECT, INSERT ON audit_log, audit_checkpoints TO broker_app;
REVOKE UPDATE, DELETE, TRUNCATE ON audit_log, audit_checkpoints FROM broker_app;

-- Proxies: findings and exchanges.
GRANT SELECT, INSERT, UPDATE, DELETE ON findings, exchanges TO sentinel_proxy;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO sentinel_proxy;
