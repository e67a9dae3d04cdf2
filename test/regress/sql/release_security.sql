-- Release views leak nothing (docs/release.md): an analyst granted only the view never
-- obtains a hidden value, by any path. 'SECRET-…' values are the hidden ones.
CREATE ROLE regress_privrisk_steward;
CREATE ROLE regress_privrisk_analyst;
CREATE ROLE regress_privrisk_stranger;
CREATE SCHEMA regress_release AUTHORIZATION regress_privrisk_steward;
GRANT USAGE ON SCHEMA regress_release TO regress_privrisk_analyst, regress_privrisk_stranger;
CREATE SCHEMA regress_analyst AUTHORIZATION regress_privrisk_analyst;
SELECT privrisk.prefix_hierarchy('sec_zip', 5);

SET ROLE regress_privrisk_steward;
CREATE TABLE regress_release.patients (id int, zip text, diagnosis text, consent boolean);
INSERT INTO regress_release.patients
SELECT i, lpad((47000 + i % 50)::text, 5, '0'),
       CASE WHEN i % 4 = 0 THEN 'SECRET-' || i ELSE 'flu' END, i % 4 <> 0
FROM generate_series(1, 2000) AS i;
ANALYZE regress_release.patients;
SELECT privrisk.create_policy('patients', 'regress_release.patients');
-- diagnosis is disclosed only with consent (never for the SECRET rows); zip is generalized to 3 digits
-- except for consenting rows; consent itself is public.
SELECT privrisk.add_rule('patients', 'diagnosis', 'hide', 'consent');
SELECT privrisk.add_rule('patients', 'zip', 'gen', 'consent', 'sec_zip', 2);
SELECT privrisk.create_release_view('patients', 'regress_release.patients_release');
GRANT SELECT ON regress_release.patients_release TO regress_privrisk_analyst;
SELECT name, source, rules, views FROM privrisk.policies;   -- the steward sees its own
RESET ROLE;

SET ROLE regress_privrisk_analyst;
-- The source itself is out of reach.
SELECT count(*) FROM regress_release.patients;
-- The rules are not readable either (row-level security on the catalog).
SELECT count(*) AS rules_seen FROM privrisk.policy_rule;
SELECT count(*) AS policies_seen FROM privrisk.policies;
SELECT count(*) AS all_rows, count(diagnosis) AS disclosed, count(*) FILTER (WHERE diagnosis LIKE 'SECRET%') AS secrets,
       count(*) FILTER (WHERE zip LIKE '%**') AS generalized_zips
FROM regress_release.patients_release;
-- WHERE on the hidden column: the qual sees the released value (NULL), so nothing matches.
SELECT count(*) AS found FROM regress_release.patients_release WHERE diagnosis = 'SECRET-4';
SELECT count(*) AS found FROM regress_release.patients_release WHERE diagnosis LIKE 'SECRET%';
SELECT count(*) AS found FROM regress_release.patients_release WHERE zip = '47004';
-- Ordering and grouping on it: only released values appear.
SELECT diagnosis, count(*) FROM regress_release.patients_release GROUP BY diagnosis ORDER BY diagnosis;
SELECT id, diagnosis FROM regress_release.patients_release ORDER BY diagnosis DESC NULLS LAST, id LIMIT 3;
SELECT zip, count(*) FROM regress_release.patients_release WHERE NOT consent GROUP BY zip ORDER BY zip;
-- A leaky function in a qual: it is handed released values only.
CREATE FUNCTION regress_analyst.leak(text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN
    IF $1 LIKE 'SECRET%' OR $1 ~ '^[0-9]{5}$' AND $1 NOT IN (SELECT zip FROM regress_release.patients_release WHERE consent) THEN
        RAISE NOTICE 'leaked: %', $1;
    END IF;
    RETURN true;
END $$;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM regress_release.patients_release WHERE regress_analyst.leak(diagnosis) AND regress_analyst.leak(zip);
SELECT count(*) FROM regress_release.patients_release WHERE regress_analyst.leak(diagnosis) AND regress_analyst.leak(zip);
CREATE FUNCTION regress_analyst.show(text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN RAISE NOTICE 'saw: %', coalesce($1, 'NULL'); RETURN true; END $$;
ALTER FUNCTION regress_analyst.show(text) COST 1000000;
SELECT id FROM regress_release.patients_release WHERE id IN (4, 8) AND regress_analyst.show(diagnosis) ORDER BY id;
-- EXPLAIN ANALYZE row counts: the filter removes rows by their released value. The value cache's
-- counts are not shown to a reader (they count distinct source values).
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM regress_release.patients_release WHERE diagnosis = 'SECRET-4';
-- Prepared statements, custom and generic plans.
PREPARE q(text) AS SELECT count(*) FROM regress_release.patients_release WHERE diagnosis = $1;
EXECUTE q('SECRET-4');
SET plan_cache_mode = force_generic_plan;
EXECUTE q('SECRET-8');
RESET plan_cache_mode;
DEALLOCATE q;
-- Cursors.
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, diagnosis FROM regress_release.patients_release WHERE id % 4 = 0 ORDER BY id;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
COMMIT;
-- COPY (SELECT …).
COPY (SELECT id, zip, diagnosis FROM regress_release.patients_release WHERE id IN (3, 4) ORDER BY id) TO STDOUT;
-- Joins and subqueries, with the hidden value as the join key.
SELECT count(*) AS joined FROM regress_release.patients_release r JOIN (VALUES ('SECRET-4'), ('SECRET-8')) AS s(d) ON r.diagnosis = s.d;
SELECT count(*) AS matched FROM regress_release.patients_release WHERE diagnosis IN (SELECT 'SECRET-' || g FROM generate_series(1, 2000) AS g);
SELECT count(*) AS exists_match FROM generate_series(1, 2000) AS g
WHERE EXISTS (SELECT 1 FROM regress_release.patients_release r WHERE r.diagnosis = 'SECRET-' || g);
SELECT (SELECT max(diagnosis) FROM regress_release.patients_release) AS max_diagnosis;
-- Parallel plans.
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM regress_release.patients_release WHERE diagnosis LIKE 'SECRET%';
SELECT count(*) FILTER (WHERE diagnosis LIKE 'SECRET%') AS secrets, count(diagnosis) AS disclosed
FROM regress_release.patients_release;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- release() called directly is refused: the analyst reads the release through its view, and only so...
SELECT count(diagnosis) AS disclosed, count(*) FILTER (WHERE diagnosis LIKE 'SECRET%') AS secrets
FROM privrisk.release('patients') AS r(diagnosis text);
-- ...and rules cannot be written by a role that does not own the source.
SELECT privrisk.add_rule('patients', 'diagnosis', 'hide', 'true');
SELECT privrisk.drop_policy('patients');
SELECT privrisk.create_release_view('patients', 'regress_analyst.mine');
SELECT privrisk.create_policy('mine', 'regress_release.patients');
-- Writing the catalog directly is refused too.
INSERT INTO privrisk.policy_rule VALUES ('patients', 99, 'diagnosis', 'hide', 'true', NULL, NULL);
DELETE FROM privrisk.policy_rule;
RESET ROLE;

-- A role with no grant at all: neither the view nor release() itself.
SET ROLE regress_privrisk_stranger;
SELECT count(*) FROM regress_release.patients_release;
SELECT count(*) FROM privrisk.release('patients') AS r(diagnosis text);
EXPLAIN SELECT * FROM privrisk.release('patients') AS r(diagnosis text);
RESET ROLE;

-- Errors while applying a rule can carry a source value (a failed cast in a condition,
-- a value missing from a hierarchy): the owner sees them, a release-only reader does not
-- (the hierarchy error names only the column and the hierarchy, both public).
SET ROLE regress_privrisk_steward;
INSERT INTO regress_release.patients VALUES (9999, 'SECRET-ZIP-99', 'x', false);
SELECT privrisk.create_policy('casting', 'regress_release.patients');
SELECT privrisk.add_rule('casting', 'diagnosis', 'hide', 'zip::int > 47010');
SELECT privrisk.create_release_view('casting', 'regress_release.casting_release');
GRANT SELECT ON regress_release.casting_release TO regress_privrisk_analyst;
SELECT count(diagnosis) FROM regress_release.casting_release;
SELECT count(zip) FROM regress_release.patients_release;
RESET ROLE;
SET ROLE regress_privrisk_analyst;
SELECT count(diagnosis) FROM regress_release.casting_release;
SELECT count(zip) FROM regress_release.patients_release;
SELECT count(*) FROM regress_release.patients_release;   -- no rule applied, nothing to fail
RESET ROLE;

-- A dropped release view is forgotten (its OID could later name a stranger's table),
-- and a dropped source takes its policies along.
SET ROLE regress_privrisk_steward;
DROP VIEW regress_release.casting_release;
RESET ROLE;
SELECT count(*) AS casting_views FROM privrisk.release_view WHERE policy = 'regress_release.casting';
SET ROLE regress_privrisk_analyst;
SELECT count(*) FROM privrisk.release('casting') AS r(id int);
RESET ROLE;
-- Releases over shards (docs/scale-out.md; test/shards runs them on real shards): the
-- pin's form; the checks a shard and the coordinator run, and who learns what from them.
SELECT 'patients@0123456789abcdef@shard1'::privrisk.pinned_policy AS pin,
       'a\@b@0123456789abcdef@s'::privrisk.pinned_policy AS escaped;
SELECT 'patients'::privrisk.pinned_policy;
SELECT 'patients@0123@shard1'::privrisk.pinned_policy;
SET ROLE regress_privrisk_stranger;
-- A stranger learns nothing: an existing policy gives the error a missing one gives.
SELECT privrisk.release_is_pinned(1, 'patients@0123456789abcdef@shard1');
SELECT privrisk.release_is_pinned(1, 'nope@0123456789abcdef@shard1');
SELECT privrisk.release_policy_is('patients', '0123456789abcdef');
SET ROLE regress_privrisk_analyst;
-- Called on its own (anywhere but in the quals of its policy's release scan),
-- the shard's check always fails.
SELECT privrisk.release_is_pinned(1, 'patients@0123456789abcdef@shard1');
-- The scan finds the pin among its quals (as a shard does in the coordinator's
-- query) and checks it before any row, whatever other quals come first: the
-- digest, named with the server; the policy; the reader's rights.
SELECT count(*) FROM regress_release.patients_release
WHERE id IS NULL AND privrisk.release_is_pinned(id, 'patients@0123456789abcdef@shard1');
SELECT count(*) FROM regress_release.patients_release
WHERE privrisk.release_is_pinned(id, 'other@0123456789abcdef@shard1');
SELECT privrisk.release_policy_is('patients', '0123456789abcdef');
-- A view that keeps the check from the release scan (security_barrier) is
-- refused when the query is planned, whatever filter comes first.
RESET ROLE;
CREATE VIEW regress_release.patients_barrier WITH (security_barrier) AS SELECT * FROM regress_release.patients_release;
GRANT SELECT ON regress_release.patients_barrier TO regress_privrisk_analyst;
SET ROLE regress_privrisk_analyst;
SELECT count(*) FROM regress_release.patients_barrier
WHERE id = 1 AND privrisk.release_is_pinned(id, 'patients@0123456789abcdef@shard1');
-- Read with a pin, a release reads nothing else: a view joining it with its
-- table (whose owner may read the table) is refused before any row.
SET ROLE regress_privrisk_steward;
CREATE VIEW regress_release.patients_join AS
SELECT r.id, r.zip, p.diagnosis
FROM privrisk.release('patients') AS r(id int, zip text, diagnosis text, consent boolean)
JOIN regress_release.patients p USING (id);
GRANT SELECT ON regress_release.patients_join TO regress_privrisk_analyst;
SET ROLE regress_privrisk_analyst;
SELECT count(diagnosis) FROM regress_release.patients_join
WHERE privrisk.release_is_pinned(id, 'patients@0123456789abcdef@shard1');
-- Nor a function in FROM, nor the release of another (say, a lenient) policy.
SELECT count(*) FROM regress_release.patients_release r, generate_series(1, 2) g
WHERE privrisk.release_is_pinned(r.id, 'patients@0123456789abcdef@shard1');
SET ROLE regress_privrisk_steward;
SELECT privrisk.create_policy('patients_lenient', 'regress_release.patients');
SELECT count(l.diagnosis)
FROM regress_release.patients_release r
JOIN privrisk.release('patients_lenient') AS l(id int, diagnosis text) USING (id)
WHERE privrisk.release_is_pinned(r.id, 'patients@0123456789abcdef@shard1');
SELECT privrisk.drop_policy('patients_lenient');
-- The source's owner reads it: a shard refuses to serve its release to such a
-- role (a rule's error would name a value), before any rule runs.
SELECT count(*) FROM regress_release.patients_release
WHERE diagnosis IS NULL AND privrisk.release_is_pinned(id, 'patients@0123456789abcdef@shard1');
RESET ROLE;
-- A release view reads either its own tables or the shards' releases, not both.
CREATE EXTENSION postgres_fdw;
CREATE SERVER regress_shard FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname 'nowhere');
GRANT USAGE ON FOREIGN SERVER regress_shard TO regress_privrisk_steward;
SET ROLE regress_privrisk_steward;
CREATE TABLE regress_release.mixed (id int, zip text) PARTITION BY RANGE (id);
CREATE TABLE regress_release.mixed_local PARTITION OF regress_release.mixed FOR VALUES FROM (0) TO (10);
CREATE FOREIGN TABLE regress_release.mixed_remote PARTITION OF regress_release.mixed FOR VALUES FROM (10) TO (20)
    SERVER regress_shard;
SELECT privrisk.create_policy('mixed', 'regress_release.mixed');
SELECT privrisk.create_release_view('mixed', 'regress_release.mixed_release');
SELECT count(*) FROM privrisk.release('mixed') AS r(id int, zip text);
SELECT privrisk.drop_policy('mixed');
-- Over foreign partitions only: the pin rides on the first column of a built-in
-- type (postgres_fdw ships no expression over an enum); with none, refused.
CREATE TYPE regress_release.mood AS ENUM ('low', 'high');
CREATE TABLE regress_release.sharded (m regress_release.mood, id int) PARTITION BY LIST (id);
CREATE FOREIGN TABLE regress_release.sharded_1 PARTITION OF regress_release.sharded DEFAULT SERVER regress_shard;
SELECT privrisk.create_policy('sharded', 'regress_release.sharded');
SELECT privrisk.create_release_view('sharded', 'regress_release.sharded_release');
SELECT pg_get_viewdef('regress_release.sharded_release') ~ 'release_is_pinned\(sharded_release_1\.id, ' AS pin_on_id;
CREATE TABLE regress_release.moods (m regress_release.mood) PARTITION BY LIST (m);
CREATE FOREIGN TABLE regress_release.moods_1 PARTITION OF regress_release.moods DEFAULT SERVER regress_shard;
SELECT privrisk.create_policy('moods', 'regress_release.moods');
SELECT privrisk.create_release_view('moods', 'regress_release.moods_release');
SELECT privrisk.drop_policy('sharded', cascade => true), privrisk.drop_policy('moods');
RESET ROLE;
DROP SERVER regress_shard CASCADE;
DROP EXTENSION postgres_fdw;

DROP SCHEMA regress_analyst CASCADE;
SET ROLE regress_privrisk_steward;
DROP SCHEMA regress_release CASCADE;
RESET ROLE;
SELECT count(*) AS policies_left, (SELECT count(*) FROM privrisk.release_view) AS views_left FROM privrisk.policy;
DROP ROLE regress_privrisk_steward, regress_privrisk_analyst, regress_privrisk_stranger;
SELECT privrisk.drop_hierarchy('sec_zip');

-- The planner hook knows release_is_pinned by an OID it looks up once per
-- backend; creating, dropping and creating the extension again in a session
-- that loaded privrisk before is seen by the next plan: the pin is refused when
-- the query is planned (the table is empty: evaluated, the pin would never be,
-- so a stale OID would return 0 without an error).
\set regress_db :DBNAME
CREATE DATABASE regress_pin_cache;
\c regress_pin_cache
SET client_min_messages = warning;
LOAD 'privrisk';
SELECT 1 AS planned_without_the_extension;
CREATE EXTENSION privrisk;
CREATE TABLE pinned (id int);
SELECT count(*) FROM pinned WHERE privrisk.release_is_pinned(id, 'p@0123456789abcdef@s');
DROP EXTENSION privrisk;
CREATE EXTENSION privrisk;
SELECT count(*) FROM pinned WHERE privrisk.release_is_pinned(id, 'p@0123456789abcdef@s');
\c :regress_db
DROP DATABASE regress_pin_cache;
