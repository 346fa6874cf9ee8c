-- Grants on the broker's tables, for the services. Run as a superuser (or as sentinel_owner) after
-- roles.sql and `broker migrate --db postgres://sentinel_owner@...`, which created the tables; the
-- broker replicas then connect as broker_app, whose start-up migration check only reads.
--
-- Tables (broker/store/schema.go): evaluations, handles, effects, policies, audit_log,
-- audit_checkpoints, schema_migrations, all owned by sentinel_owner. No sequences: audit_log.seq
-- is assigned under an advisory lock.
--
-- The audit log is append-only three times over: broker_app may only INSERT and SELECT it; the
-- triggers created by the migrations refuse UPDATE, DELETE and TRUNCATE for every role; and since
-- no service owns the tables, no service can disable those triggers. Only a superuser can; the
-- rows' signatures and the signed checkpoints kept outside the database are what then reveal it
-- (`broker audit verify`).

-- Evaluations are immutable once stored; handles are revoked by UPDATE; an effect row is claimed
-- by INSERT and its result recorded by UPDATE; policies are upserted.
GRANT SELECT, INSERT ON evaluations TO broker_app;
GRANT SELECT, INSERT, UPDATE ON handles, effects, policies TO broker_app;
GRANT SELECT ON schema_migrations TO broker_app;
GRANT SELECT, INSERT ON audit_log, audit_checkpoints TO broker_app;
REVOKE UPDATE, DELETE, TRUNCATE ON audit_log, audit_checkpoints FROM broker_app;
