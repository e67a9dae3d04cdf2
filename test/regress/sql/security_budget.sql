-- The privacy budget under attack by its clients. Every spend commits in a
-- transaction of its own before a row is read, so no rollback makes a release
-- free; the budget's SQL runs as its owner, qualified and under a pinned
-- search_path, so nothing a client defines runs in it; budgets belong to one
-- ordinary, permanent relation and go with it.
CREATE ROLE regress_sb_owner;
CREATE ROLE regress_sb_client;
GRANT CREATE ON SCHEMA public TO regress_sb_owner;
SET ROLE regress_sb_owner;
CREATE TABLE sb_census AS SELECT g AS id, 17 + (g * 7919) % 74 AS age FROM generate_series(1, 20000) g;
RESET ROLE;
SELECT privrisk.interval_hierarchy('sb_age', 0, 100, ARRAY[5, 10, 20, 100]);
-- What sql/dp_release.sql grants its DP client: SELECT on the source.
GRANT SELECT ON sb_census TO regress_sb_client;
SET ROLE regress_sb_owner;
SELECT privrisk.set_budget('sb_census', 5, 0.5);
RESET ROLE;
-- The state the assertions read: a view is bound when created, so reading it
-- under a hostile search_path runs nothing of the reader's.
CREATE VIEW sb_state AS
SELECT round(b.spent_epsilon::numeric, 6) AS spent_epsilon, round(b.spent_delta::numeric, 9) AS spent_delta,
       (SELECT count(*) FROM privrisk.budget_ledger l WHERE l.relation = b.relation) AS spends,
       round((SELECT sum(l.epsilon) FROM privrisk.budget_ledger l WHERE l.relation = b.relation)::numeric, 6) AS ledger_epsilon
FROM privrisk.budget b WHERE b.relation = 'sb_census'::regclass;
GRANT SELECT ON sb_state TO PUBLIC;

-- The client's own schema (any database where it may create objects; public
-- before PostgreSQL 15) and a marker table: a row in it means hostile code ran.
CREATE SCHEMA regress_sb_evil AUTHORIZATION regress_sb_client;
SET ROLE regress_sb_client;
CREATE TABLE regress_sb_evil.ran (what text, who name);
GRANT INSERT, SELECT ON regress_sb_evil.ran TO PUBLIC;
GRANT USAGE ON SCHEMA regress_sb_evil TO PUBLIC;
CREATE FUNCTION regress_sb_evil.mark(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO regress_sb_evil.ran VALUES (what, current_user);
    RETURN true;
END $$;
CREATE FUNCTION regress_sb_evil.eq_regclass(a regclass, b regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM regress_sb_evil.mark('=(regclass, regclass)');
    RETURN a::oid OPERATOR(pg_catalog.=) b::oid;
END $$;
CREATE OPERATOR regress_sb_evil.= (LEFTARG = regclass, RIGHTARG = regclass, FUNCTION = regress_sb_evil.eq_regclass);
CREATE FUNCTION regress_sb_evil.eq_oid(a oid, b oid) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM regress_sb_evil.mark('=(oid, oid)');
    RETURN a OPERATOR(pg_catalog.=) b;
END $$;
CREATE OPERATOR regress_sb_evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = regress_sb_evil.eq_oid);
CREATE FUNCTION regress_sb_evil.plus(a float8, b float8) RETURNS float8 LANGUAGE plpgsql AS $$
BEGIN
    PERFORM regress_sb_evil.mark('+(float8, float8)');
    RETURN 0;
END $$;
CREATE OPERATOR regress_sb_evil.+ (LEFTARG = float8, RIGHTARG = float8, FUNCTION = regress_sb_evil.plus);
CREATE FUNCTION regress_sb_evil.now() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN
    PERFORM regress_sb_evil.mark('now()');
    RETURN '2000-01-01';
END $$;
CREATE FUNCTION regress_sb_evil.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN
    PERFORM regress_sb_evil.mark('clock_timestamp()');
    RETURN '2000-01-01';
END $$;
RESET ROLE;

-- 1. A release rolled back after its rows arrived: still spent and logged.
SET ROLE regress_sb_client;
SELECT * FROM sb_state;
BEGIN;
SELECT count(*) > 0 AS released FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2,
                                                          levels => ARRAY[2], seed => 1) AS r(age text);
ROLLBACK;
SELECT * FROM sb_state;
-- 2. Inside a savepoint rolled back, then the transaction committed.
BEGIN;
SAVEPOINT s;
SELECT count(*) > 0 AS released FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2,
                                                          levels => ARRAY[2], seed => 2) AS r(age text);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT * FROM sb_state;
-- 3. Rolled back by an error later in the transaction.
BEGIN;
SELECT count(*) > 0 AS released FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2,
                                                          levels => ARRAY[2], seed => 3) AS r(age text);
SELECT 1 / 0;
ROLLBACK;
SELECT * FROM sb_state;
-- 4. Read through a cursor, one row fetched, then rolled back.
BEGIN;
DECLARE c CURSOR FOR SELECT age IS NOT NULL AS got_a_row FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2,
                                                         levels => ARRAY[2], seed => 4) AS r(age text);
FETCH 1 FROM c;
ROLLBACK;
SELECT * FROM sb_state;
-- 5. In a read-only, serializable transaction, rolled back.
BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY;
SELECT count(*) > 0 AS released FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2,
                                                          levels => ARRAY[2], seed => 5) AS r(age text);
ROLLBACK;
SELECT * FROM sb_state;
RESET ROLE;

-- 6-7. Through a SECURITY DEFINER wrapper (the natural way to serve DP
-- clients), rolled back, and rolled back to a savepoint: spent, by the definer.
SET ROLE regress_sb_owner;
CREATE FUNCTION sb_wrapper(seed int8) RETURNS SETOF text LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp AS $$
    SELECT age FROM privrisk.dp_release('public.sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2,
                                        levels => ARRAY[2], seed => seed) AS r(age text)
$$;
REVOKE ALL ON FUNCTION sb_wrapper(int8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION sb_wrapper(int8) TO regress_sb_client;
SET ROLE regress_sb_client;
BEGIN;
SELECT count(*) > 0 AS released FROM sb_wrapper(6);
ROLLBACK;
SELECT * FROM sb_state;
BEGIN;
SAVEPOINT s;
SELECT count(*) > 0 AS released FROM sb_wrapper(7);
ROLLBACK TO SAVEPOINT s;
ROLLBACK;
SELECT * FROM sb_state;
SELECT spent_by, count(*) FROM privrisk.budget_ledger WHERE relation = 'sb_census'::regclass GROUP BY 1 ORDER BY 1;
RESET ROLE;

-- 8-9. Overspending is refused and changes nothing, also when rolled back.
SET ROLE regress_sb_client;
SELECT count(*) FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 4, 1e-2, levels => ARRAY[2]) AS r(age text);
SELECT * FROM sb_state;
BEGIN;
SELECT count(*) FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 0.49, levels => ARRAY[2]) AS r(age text);
ROLLBACK;
SELECT * FROM sb_state;
-- 10-11. Refused before the spend: a bad level, a column the client may not read.
SELECT count(*) FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2, levels => ARRAY[9]) AS r(age text);
RESET ROLE;
REVOKE SELECT ON sb_census FROM regress_sb_client;
SET ROLE regress_sb_client;
SELECT count(*) FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2, levels => ARRAY[2]) AS r(age text);
RESET ROLE;
GRANT SELECT ON sb_census TO regress_sb_client;
SET ROLE regress_sb_client;
SELECT * FROM sb_state;
-- 12-14. Nobody but set_budget and the spend writes the budget or the ledger.
UPDATE privrisk.budget SET spent_epsilon = 0;
DELETE FROM privrisk.budget_ledger;
SELECT privrisk.set_budget('sb_census', 100, 0.5);
SELECT * FROM sb_state;
RESET ROLE;

-- Types in pg_temp shadow the built-in ones (pg_temp is searched first for
-- types unless the search_path places it); each domain's check marks its use.
-- They live only for the hostile attempts below.
SET ROLE regress_sb_client;
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (regress_sb_evil.mark('domain oid'));
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float8 CHECK (regress_sb_evil.mark('domain float8'));
CREATE DOMAIN pg_temp.regclass AS pg_catalog.regclass CHECK (regress_sb_evil.mark('domain regclass'));
CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (regress_sb_evil.mark('domain text'));
CREATE DOMAIN pg_temp.name AS pg_catalog.name CHECK (regress_sb_evil.mark('domain name'));
CREATE DOMAIN pg_temp.jsonb AS pg_catalog.jsonb CHECK (regress_sb_evil.mark('domain jsonb'));
CREATE DOMAIN pg_temp.int8 AS pg_catalog.int8 CHECK (regress_sb_evil.mark('domain int8'));
-- Control: the traps fire for SQL that does not qualify its names.
SET search_path = regress_sb_evil, pg_temp, pg_catalog;
SELECT 'public.sb_census'::regclass = 'public.sb_census'::regclass AS unqualified_eq, 1::float8 + 1::float8 AS unqualified_plus,
       now() = '2000-01-01' AS unqualified_now, 'x'::text AS unqualified_text;
RESET search_path;
SELECT what, who FROM regress_sb_evil.ran ORDER BY what;
DELETE FROM regress_sb_evil.ran;

-- 15-16. Hostile search_path while spending and while overspending: the
-- release works, the traps never fire.
SET search_path = regress_sb_evil, pg_temp, pg_catalog;
SELECT count(*) > 0 AS released FROM privrisk.dp_release('public.sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2,
                                                          levels => ARRAY[2], seed => 15) AS r(age pg_catalog.text);
SELECT count(*) FROM privrisk.dp_release('public.sb_census', ARRAY['age'], ARRAY['sb_age'], 4, 1e-2, levels => ARRAY[2])
    AS r(age pg_catalog.text);
RESET search_path;
SELECT * FROM sb_state;
SELECT what, who FROM regress_sb_evil.ran;
-- 17. The same path through the SECURITY DEFINER wrapper.
SET search_path = regress_sb_evil, pg_temp, pg_catalog;
SELECT count(*) > 0 AS released FROM public.sb_wrapper(17);
RESET search_path;
SELECT * FROM sb_state;
SELECT what, who FROM regress_sb_evil.ran;
RESET ROLE;
-- 18-19. Hostile search_path while the owner sets a budget (set_budget runs
-- as the budget catalog's owner, a superuser): the traps never fire.
GRANT USAGE ON SCHEMA regress_sb_evil TO regress_sb_owner;
SET ROLE regress_sb_owner;
SET search_path = regress_sb_evil, pg_temp, pg_catalog;
SELECT privrisk.set_budget('public.sb_census', 12, 0.5);
SELECT privrisk.set_budget('public.sb_census', 1, 0.5);
RESET search_path;
SELECT epsilon, delta, set_by, set_at > '2001-01-01' AS set_now FROM privrisk.budget
WHERE relation = 'sb_census'::pg_catalog.regclass;  -- pg_temp.regclass still shadows the type
SELECT what, who FROM regress_sb_evil.ran;
SELECT privrisk.set_budget('sb_census', 5, 0.5);
SET ROLE regress_sb_client;
DROP DOMAIN pg_temp.oid, pg_temp.float8, pg_temp.regclass, pg_temp.text, pg_temp.name, pg_temp.jsonb, pg_temp.int8;
RESET ROLE;

-- 20. A release in the transaction that changed the budget cannot see the
-- change; a clear error, nothing released or spent.
SET ROLE regress_sb_owner;
BEGIN;
SELECT privrisk.set_budget('sb_census', 20, 0.5);
SELECT count(*) FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2, levels => ARRAY[2]) AS r(age text);
ROLLBACK;
-- 21. The same for a table created, given a budget and released in one transaction.
BEGIN;
CREATE TABLE sb_new AS SELECT * FROM sb_census;
SELECT privrisk.set_budget('sb_new', 1, 0.5);
SELECT count(*) FROM privrisk.dp_release('sb_new', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2, levels => ARRAY[2]) AS r(age text);
ROLLBACK;
SELECT epsilon FROM privrisk.budget WHERE relation = 'sb_census'::regclass;
SELECT * FROM sb_state;

-- 22-28. set_budget takes only tables, partitioned tables and materialized
-- views, never temporary ones.
CREATE VIEW sb_view AS SELECT * FROM sb_census;
CREATE SEQUENCE sb_seq;
CREATE TEMP TABLE sb_temp AS SELECT * FROM sb_census;
CREATE TYPE sb_composite AS (a int);
CREATE INDEX sb_index ON sb_census (age);
SELECT privrisk.set_budget('sb_view', 1, 0.5);
SELECT privrisk.set_budget('sb_seq', 1, 0.5);
SELECT privrisk.set_budget('sb_temp', 1, 0.5);
SELECT privrisk.set_budget('sb_composite', 1, 0.5);
SELECT privrisk.set_budget('sb_index', 1, 0.5);
RESET ROLE;
CREATE FOREIGN DATA WRAPPER sb_fdw;
CREATE SERVER sb_server FOREIGN DATA WRAPPER sb_fdw;
CREATE FOREIGN TABLE sb_foreign (a int) SERVER sb_server;
SELECT privrisk.set_budget('sb_foreign', 1, 0.5);
SELECT privrisk.set_budget((SELECT reltoastrelid FROM pg_class WHERE oid = 'pg_statistic'::regclass)::regclass, 1, 0.5);
SET ROLE regress_sb_owner;
-- 29-30. Materialized views and partitioned tables may have one.
CREATE MATERIALIZED VIEW sb_matview AS SELECT * FROM sb_census;
CREATE TABLE sb_parted (id int, age int) PARTITION BY RANGE (id);
SELECT privrisk.set_budget('sb_matview', 1, 0.5);
SELECT privrisk.set_budget('sb_parted', 1, 0.5);
SELECT relation, epsilon FROM privrisk.budget WHERE relation <> 'sb_census'::regclass ORDER BY relation::text;

-- 31-42. Values that are not a budget.
SELECT privrisk.set_budget(NULL, 1, 0.5);
SELECT privrisk.set_budget('sb_census', NULL, 0.5);
SELECT privrisk.set_budget('sb_census', 1, NULL);
SELECT privrisk.set_budget('sb_census', 'NaN', 0.5);
SELECT privrisk.set_budget('sb_census', 1, 'NaN');
SELECT privrisk.set_budget('sb_census', 'Infinity', 0.5);
SELECT privrisk.set_budget('sb_census', '-Infinity', 0.5);
SELECT privrisk.set_budget('sb_census', 1, 'Infinity');
SELECT privrisk.set_budget('sb_census', -1, 0.5);
SELECT privrisk.set_budget('sb_census', 0, 0.5);
SELECT privrisk.set_budget('sb_census', 1, -0.1);
SELECT privrisk.set_budget('sb_census', 1, 1);
-- 43. Not below what was spent.
SELECT privrisk.set_budget('sb_census', 0.5, 0.5);
SELECT epsilon, delta FROM privrisk.budget WHERE relation = 'sb_census'::regclass;
SELECT * FROM sb_state;
RESET ROLE;

-- 44. A temporary table that shadows the budgeted one has no budget of its own.
SET ROLE regress_sb_client;
CREATE TEMP TABLE sb_census AS SELECT * FROM public.sb_census;
SELECT count(*) FROM privrisk.dp_release('sb_census', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2, levels => ARRAY[2]) AS r(age text);
DROP TABLE pg_temp.sb_census;
RESET ROLE;

-- 45-46. A dropped table takes its budget and ledger along: a table created
-- again under its name has none, and no row names the old OID.
SET ROLE regress_sb_owner;
CREATE TABLE sb_gone AS SELECT * FROM sb_census;
GRANT SELECT ON sb_gone TO regress_sb_client;
SELECT privrisk.set_budget('sb_gone', 1, 0.5);
SET ROLE regress_sb_client;
SELECT count(*) > 0 AS released FROM privrisk.dp_release('sb_gone', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2,
                                                          levels => ARRAY[2], seed => 45) AS r(age text);
SET ROLE regress_sb_owner;
SELECT 'sb_gone'::regclass::oid AS gone_oid \gset
DROP TABLE sb_gone;
SELECT (SELECT count(*) FROM privrisk.budget WHERE relation::oid = :gone_oid) AS budgets,
       (SELECT count(*) FROM privrisk.budget_ledger WHERE relation::oid = :gone_oid) AS ledger_rows;
CREATE TABLE sb_gone AS SELECT * FROM sb_census;
GRANT SELECT ON sb_gone TO regress_sb_client;
SET ROLE regress_sb_client;
SELECT count(*) FROM privrisk.dp_release('sb_gone', ARRAY['age'], ARRAY['sb_age'], 0.5, 1e-2, levels => ARRAY[2]) AS r(age text);
-- 47. The same through DROP SCHEMA … CASCADE.
RESET ROLE;
CREATE SCHEMA sb_schema AUTHORIZATION regress_sb_owner;
SET ROLE regress_sb_owner;
CREATE TABLE sb_schema.t AS SELECT * FROM sb_census;
SELECT privrisk.set_budget('sb_schema.t', 1, 0.5);
SELECT 'sb_schema.t'::regclass::oid AS schema_t_oid \gset
RESET ROLE;
DROP SCHEMA sb_schema CASCADE;
SELECT count(*) AS budgets FROM privrisk.budget WHERE relation::oid = :schema_t_oid;
-- 48. The cleanup is not for clients to call.
SET ROLE regress_sb_client;
SELECT privrisk.forget_dropped_budgets();
RESET ROLE;

-- 49-51. Per-record weight budgets: a budget that is not a finite number is
-- refused, not met.
SELECT privrisk.check_weight_budget(ARRAY[0.3, 0.4], 'NaN');
SELECT privrisk.check_weight_budget(ARRAY[0.3, 0.4], 'NaN', 'exactly');
SELECT privrisk.check_weight_budget(ARRAY[0.3, 0.4], 'Infinity', 'exactly');
SELECT privrisk.check_weight_budget(ARRAY[0.3, 0.4], 1) AS within, privrisk.check_weight_budget(ARRAY[0.6, 0.4], 1, 'exactly') AS exact;

-- The ledger, in the end: every release that returned rows, and only those.
SELECT (parameters->>'seed')::int AS seed, spent_by, epsilon, delta, private
FROM privrisk.budget_ledger WHERE relation = 'sb_census'::regclass ORDER BY id;
SELECT * FROM sb_state;
SELECT what, who FROM regress_sb_evil.ran;

DROP FOREIGN TABLE sb_foreign;
DROP SERVER sb_server;
DROP FOREIGN DATA WRAPPER sb_fdw;
DROP VIEW sb_state;
DROP TABLE sb_census, sb_gone, sb_parted CASCADE;
DROP SEQUENCE sb_seq;
DROP TABLE pg_temp.sb_temp;
DROP TYPE sb_composite;
DROP FUNCTION sb_wrapper(int8);
DROP SCHEMA regress_sb_evil CASCADE;
SELECT count(*) AS budgets_left FROM privrisk.budget;
SELECT count(*) AS ledger_rows_left FROM privrisk.budget_ledger;
SELECT privrisk.drop_hierarchy('sb_age');
REVOKE CREATE ON SCHEMA public FROM regress_sb_owner;
DROP ROLE regress_sb_owner;
DROP ROLE regress_sb_client;
