-- Roles and grants for a shared Sentinel/broker PostgreSQL. Run once as a superuser after the
-- broker's migrations (`broker migrate`) have created the tables.
--
-- The audit log is append-only by grant, not by convention: the broker's role may INSERT and
-- SELECT audit rows and can never UPDATE, DELETE or TRUNCATE them. A trigger created by the
-- migrations refuses the same even for roles that hold the privilege by mistake.

CREATE ROLE broker_app LOGIN;      -- set its password out of band: ALTER ROLE broker_app PASSWORD ...
CREATE ROLE sentinel_proxy LOGIN;  -- the proxies' findings store

GRANT USAGE ON SCHEMA public TO broker_app, sentinel_proxy;

-- Broker: ordinary read/write on its working tables.
GRANT SELECT, INSERT, UPDATE, DELETE ON evaluations, handles, effects, policies TO broker_app;
-- Broker: the audit log is append-only.
GRANT SELECT, INSERT ON audit_log TO broker_app;
REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM broker_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO broker_app;

-- Proxies: findings and exchanges.
GRANT SELECT, INSERT, UPDATE, DELETE ON findings, exchanges TO sentinel_proxy;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO sentinel_proxy;
