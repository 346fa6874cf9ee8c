-- Roles for a shared Sentinel/broker PostgreSQL. Run once as a superuser, before anything else:
--
--   psql -U postgres -d sentinel -v ON_ERROR_STOP=1 -f deploy/postgres/roles.sql
--   broker migrate --db postgres://sentinel_owner@db/sentinel      (the schema, as its owner)
--   psql -U postgres -d sentinel -v ON_ERROR_STOP=1 -f deploy/postgres/grants.sql
--
-- Who owns what. A table's owner can disable its triggers, alter it and drop it, so the broker's
-- tables — the append-only audit log and its checkpoints among them — belong to sentinel_owner,
-- a role no service ever connects as: only `broker migrate` logs in as it. The services get
-- least privilege (grants.sql); none of them can run DDL on the broker's tables, disable their
-- triggers, or create anything beside them. Set passwords out of band:
--   ALTER ROLE sentinel_owner PASSWORD '...';  (and the same for the two service roles)
--
-- The proxy's findings store creates its own tables at start, so it keeps them in a schema of
-- its own, sentinel_proxy (its default search_path, "$user", puts them there); it has no access
-- to public, where the broker's tables are.

CREATE ROLE sentinel_owner LOGIN;  -- owns the broker's schema; used by `broker migrate` only
CREATE ROLE broker_app LOGIN;      -- the broker replicas
CREATE ROLE sentinel_proxy LOGIN;  -- the proxies

-- Nobody but the owner creates anything in public (PostgreSQL 15 already withholds CREATE from
-- PUBLIC; older versions do not).
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO sentinel_owner;
GRANT USAGE ON SCHEMA public TO broker_app;

CREATE SCHEMA sentinel_proxy AUTHORIZATION sentinel_proxy;
