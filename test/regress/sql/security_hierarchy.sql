-- Hierarchies have owners and versions; their catalog is written only through
-- the functions, and none of their SQL runs a caller's look-alike objects.
-- Roles with default rights only (USAGE on schema privrisk is PUBLIC's).
CREATE ROLE hsteward1;
CREATE ROLE hsteward2;
CREATE ROLE hstranger;
CREATE SCHEMA hstranger_s AUTHORIZATION hstranger;

-- Steward 1 creates one hierarchy with each builder and owns them.
SET ROLE hsteward1;
SELECT privrisk.interval_hierarchy('hage', 0, 120, ARRAY[5, 10, 20]) AS age,
       privrisk.prefix_hierarchy('hzip', 5) AS zip,
       privrisk.date_hierarchy('hbirth') AS birth,
       privrisk.load_hierarchy('hmarital', E'married;together;*\ndivorced;apart;*\nsingle;apart;*') AS marital;
RESET ROLE;
SELECT min(version) AS v0 FROM privrisk.hierarchy WHERE name IN ('hage', 'hzip', 'hbirth', 'hmarital') \gset
SELECT name, kind, owner, created_by, version - :v0 AS version, leaves
FROM privrisk.hierarchies WHERE name IN ('hage', 'hzip', 'hbirth', 'hmarital') ORDER BY name;
-- The catalog as it is now; every refused attempt below must leave it so.
CREATE TEMP TABLE catalog_state AS
SELECT (SELECT md5(string_agg(h::text, '|' ORDER BY h.name)) FROM privrisk.hierarchy h) AS hierarchies,
       (SELECT md5(string_agg(l::text, '|' ORDER BY l.hierarchy, l.line)) FROM privrisk.hierarchy_leaf l) AS leaves;
GRANT SELECT ON catalog_state TO PUBLIC;
CREATE FUNCTION pg_temp.catalog_unchanged() RETURNS boolean LANGUAGE sql AS $$
    SELECT (SELECT md5(string_agg(h::text, '|' ORDER BY h.name)) FROM privrisk.hierarchy h) = c.hierarchies
       AND (SELECT md5(string_agg(l::text, '|' ORDER BY l.hierarchy, l.line)) FROM privrisk.hierarchy_leaf l) = c.leaves
    FROM catalog_state c $$;

-- A second steward may not replace, drop or give away steward 1's hierarchy,
-- through any builder, with or without replace.
SET ROLE hsteward2;
SELECT privrisk.interval_hierarchy('hage', 0, 120, ARRAY[1, 2, 4], replace => true);
SELECT privrisk.interval_hierarchy('hage', 0, 120, ARRAY[1]);
SELECT privrisk.prefix_hierarchy('hage', 3, replace => true);
SELECT privrisk.date_hierarchy('hage', replace => true);
SELECT privrisk.load_hierarchy('hage', E'39;*', replace => true);
SELECT privrisk.load_hierarchy('hmarital', E'married;*\ndivorced;*', ';', true);
SELECT privrisk.drop_hierarchy('hage');
SELECT privrisk.drop_hierarchy('hmarital');
SELECT privrisk.alter_hierarchy_owner('hage', 'hsteward2');
-- Direct writes on the catalog tables and its version sequence.
INSERT INTO privrisk.hierarchy(name, kind, height, owner) VALUES ('hfake', 'date', 3, 'hsteward2');
UPDATE privrisk.hierarchy SET widths = ARRAY[1, 2, 4] WHERE name = 'hage';
UPDATE privrisk.hierarchy SET owner = 'hsteward2' WHERE name = 'hage';
DELETE FROM privrisk.hierarchy WHERE name = 'hage';
TRUNCATE privrisk.hierarchy CASCADE;
INSERT INTO privrisk.hierarchy_leaf(hierarchy, line, path) VALUES ('hmarital', 9, ARRAY['widowed', 'apart']);
UPDATE privrisk.hierarchy_leaf SET path[2] = 'together' WHERE hierarchy = 'hmarital';
DELETE FROM privrisk.hierarchy_leaf WHERE hierarchy = 'hmarital';
TRUNCATE privrisk.hierarchy_leaf;
SELECT nextval('privrisk.hierarchy_version_seq');
SELECT setval('privrisk.hierarchy_version_seq', 1);
-- Reading is everyone's right, and a new name is anyone's to create.
SELECT privrisk.generalize('hage', '39', 1) AS age39, privrisk.generalize('hmarital', 'single', 1) AS single;
SELECT privrisk.prefix_hierarchy('h2own', 3) AS own;
-- Steward 2 cannot give its own hierarchy to a role it is not a member of.
SELECT privrisk.alter_hierarchy_owner('h2own', 'hsteward1');
RESET ROLE;
SELECT privrisk.drop_hierarchy('h2own');  -- a superuser may drop anyone's
SELECT pg_temp.catalog_unchanged() AS catalog_unchanged_after_steward2;

-- A stranger shadows operators, functions and types named like built-ins
-- (each records in its own table and raises a NOTICE if it ever runs), then
-- uses every hierarchy function with its objects first on the search_path.
SET ROLE hstranger;
CREATE TABLE hstranger_s.ran (what text);
CREATE FUNCTION hstranger_s.note(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO hstranger_s.ran VALUES (what);
    RAISE NOTICE 'hostile % ran as %', what, current_user;
    RETURN true;
END $$;
CREATE FUNCTION hstranger_s.text_eq(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM hstranger_s.note('text ='); RETURN a OPERATOR(pg_catalog.=) b; END $$;
CREATE OPERATOR hstranger_s.= (LEFTARG = text, RIGHTARG = text, FUNCTION = hstranger_s.text_eq);
CREATE FUNCTION hstranger_s.int_lt(a int, b int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM hstranger_s.note('int4 <'); RETURN a OPERATOR(pg_catalog.<) b; END $$;
CREATE OPERATOR hstranger_s.< (LEFTARG = int, RIGHTARG = int, FUNCTION = hstranger_s.int_lt);
CREATE FUNCTION hstranger_s.count() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN PERFORM hstranger_s.note('count'); RETURN 0; END $$;
CREATE FUNCTION hstranger_s.unnest(a int[], b text[]) RETURNS SETOF record LANGUAGE plpgsql AS $$
BEGIN PERFORM hstranger_s.note('unnest'); END $$;
CREATE FUNCTION hstranger_s.nextval(s regclass) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN PERFORM hstranger_s.note('nextval'); RETURN 1; END $$;
DO $$
DECLARE t pg_catalog.text;
BEGIN  -- text last: the loop's own expressions are planned before it is shadowed
    FOREACH t IN ARRAY ARRAY['float8', 'int8', 'int4', 'name', 'oid', 'text'] LOOP
        EXECUTE pg_catalog.format('CREATE DOMAIN pg_temp.%I AS pg_catalog.%I CHECK (hstranger_s.note(%L))',
                                  t, t, t || ' domain');
    END LOOP;
END $$;
SET search_path = pg_temp, hstranger_s, pg_catalog;
-- The shadows are live for the stranger's own SQL:
SELECT 'a'::text = 'a'::text AS shadowed_equals;
SELECT pg_catalog.count(*) AS shadows_ran_so_far FROM hstranger_s.ran;
TRUNCATE hstranger_s.ran;
-- Builders (new names: allowed), readers on fresh loads, replace and drop of its own.
SELECT privrisk.load_hierarchy('hs_tree', E'a;x;*\nb;x;*\nc;y;*') AS tree,
       privrisk.interval_hierarchy('hs_age', 0, 100, ARRAY[10, 50]) AS age,
       privrisk.prefix_hierarchy('hs_zip', 4) AS zip,
       privrisk.date_hierarchy('hs_day') AS day;
SELECT privrisk.generalize('hs_tree', 'a', 1) AS tree, privrisk.generalize('hs_age', '42', 1) AS age,
       privrisk.generalize('hs_zip', '4767', 2) AS zip, privrisk.generalize('hs_day', '2020-02-29', 1) AS day,
       privrisk.generalize('hage', '39', 2) AS steward_age, privrisk.generalize('hmarital', 'divorced', 1) AS marital;
SELECT privrisk.hierarchy_height('hs_tree') AS height, privrisk.generalizes('hs_tree', 'x', 'a') AS generalizes,
       privrisk.consistent('hs_tree', 'y', 'a') AS consistent;
SELECT privrisk.load_hierarchy('hs_tree', E'a;*\nb;*', ';', true) AS replaced_tree,
       privrisk.interval_hierarchy('hs_age', 0, 100, ARRAY[25], true) AS replaced_age;
SELECT privrisk.generalize('hs_tree', 'a', 0) AS tree, privrisk.generalize('hs_age', '42', 1) AS age;
SELECT name, kind, owner, leaves FROM privrisk.hierarchies WHERE name LIKE 'hs\_%' ORDER BY name;
-- The shadows do not help against steward 1 either.
SELECT privrisk.drop_hierarchy('hage');
SELECT privrisk.interval_hierarchy('hage', 0, 120, ARRAY[1], replace => true);
SELECT privrisk.alter_hierarchy_owner('hmarital', 'hstranger');
SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name LIKE 'hs\_%' ORDER BY name;
-- pg_temp is searched first for types even on the default path: drop the look-alikes.
DROP DOMAIN pg_temp.float8, pg_temp.int8, pg_temp.int4, pg_temp.text, pg_temp.name, pg_temp.oid;
RESET search_path;
SELECT count(*) AS hostile_code_runs FROM hstranger_s.ran;
-- Squatting a name is possible, and visible: the owner shows who defined it.
SELECT privrisk.date_hierarchy('hsquat');
RESET ROLE;
SELECT name, owner FROM privrisk.hierarchies WHERE name = 'hsquat';
SELECT privrisk.drop_hierarchy('hsquat');
SELECT pg_temp.catalog_unchanged() AS catalog_unchanged_after_stranger;

-- Hostile builder input: each a clear error naming the argument, nothing stored.
SET ROLE hsteward1;
SELECT privrisk.interval_hierarchy('hbad', 0, 1e18, ARRAY[5]);
SELECT privrisk.interval_hierarchy('hbad', 1e18, 1e18 + 10, ARRAY[5]);
SELECT privrisk.interval_hierarchy('hbad', 0, 9007199254740993, ARRAY[5]);
SELECT privrisk.interval_hierarchy('hbad', -9007199254740993, 0, ARRAY[5]);
SELECT privrisk.interval_hierarchy('hbad', 0, 9007199254740992, ARRAY[1]);
SELECT privrisk.interval_hierarchy('hbad', 0, 9007199254740000, ARRAY[1000, 2000]);
SELECT privrisk.interval_hierarchy('hbad', 0, 'NaN', ARRAY[5]);
SELECT privrisk.interval_hierarchy('hbad', '-Infinity', 0, ARRAY[5]);
SELECT privrisk.interval_hierarchy('hbad', 0, 'Infinity', ARRAY[5]);
SELECT privrisk.interval_hierarchy('hbad', 0, 1e400, ARRAY[5]);
SELECT privrisk.interval_hierarchy('hbad', 5, 5, ARRAY[1]);
SELECT privrisk.interval_hierarchy('hbad', NULL, 5, ARRAY[1]);
SELECT privrisk.interval_hierarchy('hbad', 0, 100, ARRAY[-5]);
SELECT privrisk.interval_hierarchy('hbad', 0, 100, ARRAY[10, 10]);
SELECT privrisk.interval_hierarchy('hbad', 0, 100, ARRAY[10, 25]);
SELECT privrisk.interval_hierarchy('hbad', 0, 100, NULL);
SELECT privrisk.interval_hierarchy('hbad', 0, 100, ARRAY[[5, 10], [20, 40]]);
SELECT privrisk.interval_hierarchy('hbad', 0, 100, array_fill(5, ARRAY[64]));
SELECT privrisk.interval_hierarchy('hbad', 0, 100, ARRAY[5], NULL);
SELECT privrisk.prefix_hierarchy('hbad', -1);
SELECT privrisk.prefix_hierarchy('hbad', 1025);
SELECT privrisk.prefix_hierarchy('hbad', 2147483647);
SELECT privrisk.load_hierarchy('hbad', E'a;x;*\nb;*');
SELECT privrisk.load_hierarchy('hbad', E'a;x;*', '');
SELECT privrisk.load_hierarchy('hbad', E'a;x;*', NULL);
SELECT privrisk.load_hierarchy('hbad', E'a;x;*\n"b;x;*');
SELECT privrisk.date_hierarchy(NULL);
SELECT privrisk.date_hierarchy('');
SELECT privrisk.prefix_hierarchy(repeat('z', 201), 5);
SELECT privrisk.interval_hierarchy(E'h\nbad', 0, 100, ARRAY[5]);
SELECT privrisk.drop_hierarchy(NULL);
SELECT privrisk.alter_hierarchy_owner('hage', NULL);
SELECT privrisk.alter_hierarchy_owner('hage', 'no_such_role_h');
SELECT privrisk.alter_hierarchy_owner('hage', 4242424::oid::regrole);
SELECT privrisk.alter_hierarchy_owner('hnope', 'hsteward1');
-- The owner's own replace with bad input stores nothing either.
SELECT privrisk.interval_hierarchy('hage', 0, 1e18, ARRAY[5], replace => true);
SELECT privrisk.load_hierarchy('hmarital', E'married;*\nmarried;*', ';', true);
RESET ROLE;
SELECT pg_temp.catalog_unchanged() AS catalog_unchanged_after_bad_input,
       (SELECT count(*) FROM privrisk.hierarchy WHERE name = 'hbad') AS hbad_rows;

-- Versions: a replace by the owner gives a new version, and the new definition
-- is served at once (the cache does not keep the old one).
SET ROLE hsteward1;
SELECT privrisk.generalize('hage', '39', 1) AS before_replace;
SELECT privrisk.interval_hierarchy('hage', 0, 120, ARRAY[10, 20], replace => true) AS replaced;
SELECT privrisk.generalize('hage', '39', 1) AS after_replace;
SELECT privrisk.load_hierarchy('hmarital', E'married;*\ndivorced;*\nsingle;*\nwidowed;*', ';', true) AS replaced;
SELECT privrisk.generalize('hmarital', 'widowed', 0) AS widowed, privrisk.hierarchy_height('hmarital') AS height;
RESET ROLE;
SELECT name, kind, version - :v0 AS version, leaves FROM privrisk.hierarchies
WHERE name IN ('hage', 'hmarital') ORDER BY name;
-- Drop and re-create: the name comes back with a version never used before.
SELECT version AS v_before_drop FROM privrisk.hierarchy WHERE name = 'hage' \gset
SET ROLE hsteward1;
SELECT privrisk.drop_hierarchy('hage');
SELECT privrisk.interval_hierarchy('hage', 0, 120, ARRAY[5, 10, 20]) AS recreated;
RESET ROLE;
SELECT version > :v_before_drop AS new_version_after_recreate, owner FROM privrisk.hierarchy WHERE name = 'hage';

-- Ownership transfer: only to a role the owner is a member of.
SET ROLE hsteward1;
SELECT privrisk.alter_hierarchy_owner('hzip', 'hsteward2');
RESET ROLE;
GRANT hsteward2 TO hsteward1;
SET ROLE hsteward1;
SELECT privrisk.alter_hierarchy_owner('hzip', 'hsteward2');
RESET ROLE;
REVOKE hsteward2 FROM hsteward1;
SELECT name, owner, version - :v0 AS version FROM privrisk.hierarchies WHERE name = 'hzip';
-- Now steward 1 has lost it, and steward 2 may replace it.
SET ROLE hsteward1;
SELECT privrisk.drop_hierarchy('hzip');
SELECT privrisk.prefix_hierarchy('hzip', 4, replace => true);
SET ROLE hsteward2;
SELECT privrisk.prefix_hierarchy('hzip', 4, replace => true) AS replaced;
SELECT privrisk.generalize('hzip', '4767', 1) AS zip;
RESET ROLE;
SELECT name, owner, version - :v0 AS version FROM privrisk.hierarchies WHERE name = 'hzip';

-- Updating from 0.8 takes back the write grants the README used to advise, and
-- gives the existing hierarchies to the catalog's owner with fresh versions.
\set regress_db :DBNAME
CREATE DATABASE hsec_upgrade;
\c hsec_upgrade
SET client_min_messages = warning;
CREATE EXTENSION privrisk VERSION '0.8';
RESET client_min_messages;
SELECT privrisk.load_hierarchy('hold', E'a;x;*\nb;x;*') AS old_tree, privrisk.date_hierarchy('hold_day') AS old_date;
GRANT INSERT, UPDATE, DELETE ON privrisk.hierarchy, privrisk.hierarchy_leaf TO hsteward2;
GRANT TRUNCATE ON privrisk.hierarchy_leaf TO PUBLIC;
GRANT UPDATE (widths) ON privrisk.hierarchy TO hstranger;
ALTER EXTENSION privrisk UPDATE TO '0.9';
SELECT r.rolname, t.relname, p.privilege,
       has_table_privilege(r.rolname, 'privrisk.' || t.relname, p.privilege) AS granted
FROM (VALUES ('hsteward2'), ('hstranger'), ('hsteward1')) AS r(rolname),
     (VALUES ('hierarchy'), ('hierarchy_leaf')) AS t(relname),
     (VALUES ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE')) AS p(privilege)
WHERE p.privilege = 'SELECT' OR has_table_privilege(r.rolname, 'privrisk.' || t.relname, p.privilege)
   OR p.privilege IN ('INSERT', 'UPDATE') AND has_any_column_privilege(r.rolname, 'privrisk.' || t.relname, p.privilege)
ORDER BY 1, 2, 3;
SELECT h.name, h.owner = (SELECT relowner FROM pg_class WHERE oid = 'privrisk.hierarchy'::regclass) AS owned_by_catalog_owner,
       h.version >= 1 AS versioned
FROM privrisk.hierarchy h ORDER BY h.name;
SET ROLE hsteward2;
-- (the installer's name varies, so only the SQLSTATE is shown)
DO $$ BEGIN
    PERFORM privrisk.drop_hierarchy('hold');
    RAISE NOTICE 'dropped';
EXCEPTION WHEN insufficient_privilege THEN RAISE NOTICE 'drop_hierarchy refused: %', SQLSTATE;
END $$;
DELETE FROM privrisk.hierarchy WHERE name = 'hold';
UPDATE privrisk.hierarchy SET widths = NULL;
TRUNCATE privrisk.hierarchy_leaf;
SELECT count(*) AS still_there FROM privrisk.hierarchy;
RESET ROLE;
\c :regress_db
DROP DATABASE hsec_upgrade;

-- Clean up.
SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy
WHERE name IN ('hage', 'hzip', 'hbirth', 'hmarital') ORDER BY name;
SET client_min_messages = warning;
DROP SCHEMA hstranger_s CASCADE;
RESET client_min_messages;
DROP ROLE hsteward1, hsteward2, hstranger;
