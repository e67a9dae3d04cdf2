-- What privrisk runs cannot be steered by the caller's search_path, a rule
-- condition means what its owner wrote, planning reads nothing before the
-- reader check, and the audit log takes only computed rows. Roles here have
-- the default rights only (plus TEMP, a schema of their own, and SELECT on one
-- release view for the analyst). Hostile code records that it ran in
-- sec_marks; every attempt ends with that table empty.
CREATE ROLE sec_steward;
CREATE ROLE sec_analyst;
CREATE ROLE sec_stranger;
CREATE SCHEMA sec_data AUTHORIZATION sec_steward;
CREATE SCHEMA sec_analyst AUTHORIZATION sec_analyst;
CREATE SCHEMA sec_stranger AUTHORIZATION sec_stranger;
GRANT USAGE ON SCHEMA sec_data TO sec_analyst, sec_stranger;
CREATE TABLE public.sec_marks (who name, what text, query text);
GRANT INSERT ON public.sec_marks TO PUBLIC;
SELECT privrisk.prefix_hierarchy('sec_region', 6);

-- 1. Every SQL and PL/pgSQL function of the extension pins its search path.
SELECT p.oid::regprocedure AS unpinned
  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'privrisk'
  JOIN pg_language l ON l.oid = p.prolang
 WHERE l.lanname IN ('sql', 'plpgsql')
   AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
 ORDER BY 1;
SELECT count(*) > 10 AS pinned_functions_checked
  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'privrisk'
  JOIN pg_language l ON l.oid = p.prolang
 WHERE l.lanname IN ('sql', 'plpgsql');

SET ROLE sec_steward;
CREATE TABLE sec_data.people (id int, region text, income int, secret text);
INSERT INTO sec_data.people
SELECT i, CASE WHEN i % 3 = 0 THEN 'metro' ELSE 'rural' || (i % 7) END, 1000 + i, 'SECRET-' || i
FROM generate_series(1, 300) AS i;
SELECT privrisk.create_policy('sec_people', 'sec_data.people');
SELECT privrisk.add_rule('sec_people', 'region', 'gen', 'region = ''metro''', 'sec_region', 2);
SELECT privrisk.add_rule('sec_people', 'secret', 'hide', 'false');
SELECT privrisk.add_rule('sec_people', 'income', 'hide', 'income < 1100 AND region IN (''metro'')');
SELECT privrisk.create_release_view('sec_people', 'sec_data.people_release');
GRANT SELECT ON sec_data.people_release TO sec_analyst;
-- What the release shows, as its owner sees it: the reference for every attempt below.
CREATE TABLE sec_data.expected AS SELECT * FROM sec_data.people_release;
GRANT SELECT ON sec_data.expected TO sec_analyst;
SELECT count(*) AS rows, count(*) FILTER (WHERE region = 'metro') AS metro_shown,
       count(*) FILTER (WHERE region LIKE 'rura%' AND region <> 'rura**') AS rural_ungeneralized,
       count(secret) AS secrets, count(income) AS incomes
  FROM sec_data.expected;
RESET ROLE;

-- 2. Operator hijack of a condition: the analyst's '=' on text is '<>', first on its path.
SET ROLE sec_analyst;
CREATE FUNCTION sec_analyst.ne(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE
    AS $$ SELECT $1 <> $2 $$;
CREATE OPERATOR sec_analyst.= (LEFTARG = text, RIGHTARG = text, FUNCTION = sec_analyst.ne);
CREATE OPERATOR sec_analyst.< (LEFTARG = int, RIGHTARG = int, FUNCTION = pg_catalog.int4ge);
SET search_path = sec_analyst, public, pg_catalog;
SELECT count(*) AS rows_differing_from_owner_view
  FROM (SELECT * FROM sec_data.people_release EXCEPT SELECT * FROM sec_data.expected) AS d;
SELECT count(*) FILTER (WHERE region LIKE 'rura%' AND region <> 'rura**') AS rural_ungeneralized,
       count(secret) AS secrets
  FROM sec_data.people_release;
-- The same through release() itself, with a column definition list.
SELECT count(*) AS rows_differing
  FROM (SELECT * FROM privrisk.release('sec_people') AS r(id int, region text, income int, secret text)
        EXCEPT SELECT * FROM sec_data.expected) AS d;
RESET search_path;

-- 3. Types shadowed in pg_temp: a domain named like a built-in whose check runs
--    the analyst's code, while privrisk reads its catalog as the catalog's owner.
CREATE FUNCTION sec_analyst.mark(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.sec_marks VALUES (current_user, what, pg_catalog.current_query());
    RETURN true;
END $$;
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (sec_analyst.mark('oid domain'));
CREATE DOMAIN pg_temp.int8 AS pg_catalog.int8 CHECK (sec_analyst.mark('int8 domain'));
CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (sec_analyst.mark('text domain'));
CREATE DOMAIN pg_temp.name AS pg_catalog.name CHECK (sec_analyst.mark('name domain'));
SET search_path = pg_temp, sec_analyst, public;
SELECT count(*) FROM privrisk.release('sec_people') AS r(id int);
SELECT count(*) FROM sec_data.people_release;
EXPLAIN (COSTS OFF) SELECT * FROM privrisk.release('sec_people') AS r(id int);
SELECT privrisk.generalize('sec_region', 'metro', 1);
-- Functions and operators named like built-ins in the analyst's schema, first on the path.
CREATE FUNCTION sec_analyst.now() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN PERFORM sec_analyst.mark('now()'); RETURN pg_catalog.now(); END $$;
CREATE FUNCTION sec_analyst.jsonb_typeof(jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM sec_analyst.mark('jsonb_typeof'); RETURN pg_catalog.jsonb_typeof($1); END $$;
CREATE FUNCTION sec_analyst.count(anyelement) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN PERFORM sec_analyst.mark('count'); RETURN 1; END $$;
CREATE FUNCTION sec_analyst.string_agg(text, text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM sec_analyst.mark('string_agg'); RETURN ''; END $$;
CREATE FUNCTION sec_analyst.texteq_mark(text, text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM sec_analyst.mark('= on text'); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
DROP OPERATOR sec_analyst.= (text, text);
CREATE OPERATOR sec_analyst.= (LEFTARG = text, RIGHTARG = text, FUNCTION = sec_analyst.texteq_mark);
SET search_path = sec_analyst, pg_temp, public, pg_catalog;
SELECT count(*) FROM sec_data.people_release;
SELECT privrisk.audit('sec_data.expected', ARRAY['region'], 'secret') ->> 'k_anonymity' AS k;
SELECT privrisk.audit('sec_data.expected', ARRAY['region', 'income'], NULL, NULL, NULL, '{"risk_threshold": 0.5}') ->> 'classes' AS classes;
SELECT privrisk.search('sec_data.expected', ARRAY['region'], ARRAY[NULL]::pg_catalog.text[], NULL, '{"k": 2}') -> 'result' -> 'node' AS node;
SELECT count(*) AS nodes FROM privrisk.lattice('sec_data.expected', ARRAY['region'], ARRAY[NULL]::pg_catalog.text[]);
CALL privrisk.record_audit('sec_data.expected', ARRAY['region']);
SELECT privrisk.add_rule('sec_people', 'region', 'hide', 'false');
SELECT privrisk.create_policy('sec_mine', 'sec_data.expected');
RESET search_path;
DROP DOMAIN pg_temp.oid, pg_temp.int8, pg_temp.text, pg_temp.name;
RESET ROLE;
SELECT who, what, query FROM public.sec_marks;
SELECT rolsuper AS analyst_is_superuser FROM pg_roles WHERE rolname = 'sec_analyst';

-- 4. A non-constant policy argument is refused at planning, before anything runs.
SET ROLE sec_stranger;
EXPLAIN SELECT * FROM privrisk.release((SELECT 'sec_people')) AS r(id int);
SELECT * FROM privrisk.release((SELECT 'sec_people')) AS r(id int);
SELECT * FROM privrisk.release(pg_catalog.md5(random()::text)) AS r(id int);
SELECT * FROM (VALUES ('sec_people')) AS v(p), LATERAL privrisk.release(v.p) AS r(id int);
-- A parameter is a constant for the planner: allowed, and checked like one.
PREPARE sec_q(text) AS SELECT count(*) FROM privrisk.release($1) AS r(id int);
EXECUTE sec_q('sec_people');
DEALLOCATE sec_q;

-- 5. A stranger learns nothing of the catalog from errors: a missing policy and
--    one it may not read give the same message.
SELECT count(*) FROM privrisk.release('sec_people') AS r(id int);
SELECT count(*) FROM privrisk.release('no_such_policy') AS r(id int);
SELECT privrisk.add_rule('sec_people', 'region', 'hide', 'false');
SELECT privrisk.add_rule('no_such_policy', 'region', 'hide', 'false');
SELECT privrisk.drop_policy('sec_people');
SELECT privrisk.drop_policy('no_such_policy');
SELECT privrisk.create_release_view('sec_people', 'sec_stranger.v');
SELECT privrisk.refresh_policy('sec_people');
-- Not even a plan of a policy it may not read.
EXPLAIN SELECT * FROM privrisk.release('sec_people') AS r(id int);
-- The audit log takes rows only from record_audit.
INSERT INTO privrisk.audit_log(audited_by, source, settings, result) VALUES ('sec_stranger', 'x', '{}', '{}');
INSERT INTO privrisk.audit_log(audited_by, audited_at, source, settings, result)
VALUES ('sec_stranger', '2001-01-01', 'sec_data.people', '{}', '{"k_anonymity": 100}');
UPDATE privrisk.audit_log SET result = '{}';
RESET ROLE;

-- 6. Policies and release views are permanent: a temporary one would leave an
--    OID behind that a later relation could inherit.
SET ROLE sec_steward;
CREATE TEMP TABLE sec_temp (id int);
SELECT privrisk.create_policy('sec_temp', 'sec_temp');
SELECT privrisk.create_release_view('sec_people', 'pg_temp.sec_view');
CREATE TEMP VIEW sec_shadow AS SELECT 1;
-- The view name is resolved on the caller's path, the statement run under the pinned one.
SET search_path = sec_data;
SELECT privrisk.create_release_view('sec_people', 'people_release2') AS view_created;
RESET search_path;
SELECT privrisk.drop_policy('sec_people', cascade => true);
RESET ROLE;

-- 7. The audit log records who ran an audit; a role reads its own rows only.
SET ROLE sec_steward;
SELECT privrisk.create_policy('sec_people', 'sec_data.people');
SELECT privrisk.add_rule('sec_people', 'region', 'gen', 'region = ''metro''', 'sec_region', 2);
CALL privrisk.record_audit('sec_data.people', ARRAY['region'], 'secret');
SELECT audited_by, session_role, source, result ->> 'k_anonymity' AS k,
       audited_at > now() - interval '1 minute' AS recorded_now
  FROM privrisk.audit_log ORDER BY id;
RESET ROLE;
SELECT audited_by, source FROM privrisk.audit_log ORDER BY id;

-- 8. A condition is bound by column number and built-in OIDs: renaming a
--    column it reads keeps it; retyping that column stops the release until
--    the owner binds it again.
SET ROLE sec_steward;
SELECT privrisk.add_rule('sec_people', 'secret', 'hide', 'id > 150 AND id < 0');
SELECT rule, condition, condition_columns FROM privrisk.policy_rule WHERE policy = 'sec_data.sec_people' ORDER BY rule;
ALTER TABLE sec_data.people RENAME COLUMN id TO ident;
SELECT count(secret) AS secrets FROM privrisk.release('sec_people') AS r(secret text);
ALTER TABLE sec_data.people RENAME COLUMN ident TO id;
ALTER TABLE sec_data.people ALTER COLUMN region TYPE varchar(20);
SELECT count(region) FROM privrisk.release('sec_people') AS r(region text);
SELECT privrisk.refresh_policy('sec_people');
SELECT count(*) FILTER (WHERE region = 'metro') AS metro_shown,
       count(*) FILTER (WHERE region LIKE 'rura%' AND region <> 'rura**') AS rural_ungeneralized
  FROM privrisk.release('sec_people') AS r(region text);
-- Conditions may use built-in objects only: a function, operator or type of the owner's own is refused.
CREATE FUNCTION sec_data.always(int) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE OPERATOR sec_data.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = pg_catalog.int4eq);
CREATE DOMAIN sec_data.posint AS int CHECK (VALUE > 0);
SELECT privrisk.add_rule('sec_people', 'secret', 'hide', 'sec_data.always(id)');
SELECT privrisk.add_rule('sec_people', 'secret', 'hide', 'id OPERATOR(sec_data.===) 3');
SELECT privrisk.add_rule('sec_people', 'secret', 'hide', 'id::sec_data.posint > 3');
SELECT privrisk.add_rule('sec_people', 'secret', 'hide', 'my_own_function(id)');
SELECT privrisk.add_rule('sec_people', 'secret', 'hide', 'id IN (SELECT 1 FROM sec_data.people)');
-- A tree changed in the catalog behind privrisk's back (only the catalog's
-- owner can) is checked again before it runs.
RESET ROLE;
UPDATE privrisk.policy_rule SET condition_tree = replace(condition_tree, ':opno 98 ', ':opno 99999 ')
 WHERE policy = 'sec_data.sec_people' AND rule = 1;
SELECT count(region) FROM privrisk.release('sec_people') AS r(region text);
UPDATE privrisk.policy_rule SET condition_tree = NULL WHERE policy = 'sec_data.sec_people' AND rule = 1;
SELECT count(region) FROM privrisk.release('sec_people') AS r(region text);
SELECT privrisk.refresh_policy('sec_people');
SELECT count(*) FILTER (WHERE region = 'metro') AS metro_shown FROM privrisk.release('sec_people') AS r(region text);

-- 9. audit(), search(), lattice() and release() read inheritance children, as
--    SELECT * FROM the parent does (a child's columns may stand in another order).
CREATE TABLE sec_parent (zip text);
INSERT INTO sec_parent SELECT '47906' FROM generate_series(1, 10);
CREATE TABLE sec_child (extra int, zip text);
ALTER TABLE sec_child INHERIT sec_parent;
INSERT INTO sec_child VALUES (1, '99999');
SELECT count(*) AS rows_select_reads FROM sec_parent;
SELECT privrisk.audit('sec_parent', ARRAY['zip']) ->> 'rows' AS rows, privrisk.audit('sec_parent', ARRAY['zip']) ->> 'k_anonymity' AS k;
SELECT privrisk.search('sec_parent', ARRAY['zip'], ARRAY[NULL::text]) -> 'result' -> 'measures' ->> 'k_anonymity' AS k_searched;
SELECT node, measures ->> 'k_anonymity' AS k FROM privrisk.lattice('sec_parent', ARRAY['zip'], ARRAY[NULL::text]) ORDER BY node;
SELECT privrisk.prefix_hierarchy('sec_zip', 5);
SELECT privrisk.create_policy('sec_inherited', 'sec_parent');
SELECT privrisk.add_rule('sec_inherited', 'zip', 'gen', 'zip <> ''99999''', 'sec_zip', 2);
SELECT zip, count(*) FROM privrisk.release('sec_inherited') AS r(zip text) GROUP BY zip ORDER BY zip;
SELECT privrisk.drop_policy('sec_inherited');
SELECT privrisk.drop_hierarchy('sec_zip');
DROP TABLE sec_child, sec_parent;

-- 10. A policy runs the hierarchy versions its owner approved. A hierarchy's
--     owner replacing it (the only role that may) stops every release that uses
--     it until the policy's owner approves the new version.
CREATE ROLE sec_steward2;
SET ROLE sec_steward2;
SELECT privrisk.interval_hierarchy('sec_age', 0, 100, ARRAY[10, 50]);
RESET ROLE;
SET ROLE sec_steward;
CREATE TABLE sec_data.ages AS SELECT i AS id, (i * 7) % 100 AS age FROM generate_series(1, 200) AS i;
SELECT privrisk.create_policy('sec_ages', 'sec_data.ages');
SELECT privrisk.add_rule('sec_ages', 'age', 'gen', 'false', 'sec_age', 1);
SELECT count(DISTINCT age) AS age_classes FROM privrisk.release('sec_ages') AS r(age text);
-- Only its owner may replace a hierarchy: the policy's owner may not.
SELECT privrisk.interval_hierarchy('sec_age', 0, 100, ARRAY[2, 50], replace => true);
RESET ROLE;
-- The hierarchy's owner replaces it with finer classes.
SET ROLE sec_steward2;
SELECT privrisk.interval_hierarchy('sec_age', 0, 100, ARRAY[2, 50], replace => true);
RESET ROLE;
-- Version numbers come from one sequence for the whole database: masked here.
CREATE FUNCTION public.sec_error(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, 'version \d+, now \d+', 'version A, now B');
END $$;
SET ROLE sec_steward;
SELECT public.sec_error('SELECT count(DISTINCT age) FROM privrisk.release(''sec_ages'') AS r(age text)');
-- Every read is refused, even one that runs no rule: the release's shape comes from the hierarchy.
SELECT public.sec_error('SELECT count(*) FROM privrisk.release(''sec_ages'') AS r(id int)');
SELECT public.sec_error('SELECT privrisk.add_rule(''sec_ages'', ''id'', ''hide'', ''false'')');
-- Its owner approves the new version: the release runs it.
SELECT privrisk.refresh_policy('sec_ages');
SELECT count(DISTINCT age) AS age_classes FROM privrisk.release('sec_ages') AS r(age text);
SELECT privrisk.drop_policy('sec_ages');
RESET ROLE;
SET ROLE sec_steward2;
SELECT privrisk.drop_hierarchy('sec_age');
RESET ROLE;
DROP FUNCTION public.sec_error(text);

SELECT count(*) AS hostile_code_ran FROM public.sec_marks;
DELETE FROM privrisk.audit_log;
SELECT privrisk.drop_policy('sec_people', cascade => true);
DROP TABLE public.sec_marks;
SELECT privrisk.drop_hierarchy('sec_region');
DROP OWNED BY sec_steward, sec_steward2, sec_analyst, sec_stranger;
DROP ROLE sec_steward, sec_steward2, sec_analyst, sec_stranger;
