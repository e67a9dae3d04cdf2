-- Adversarial suite, part 1a: catalog statements and rule conditions under a
-- hostile search_path (classes 1 and 2). The lab: test/regress/attack_lab.psql.
\i test/regress/attack_lab.psql

------------------------------------------------------------------------------
-- Class 1: catalog statements run as the catalog owner must not resolve a type,
-- operator or function in the caller's pg_temp or schemas.
------------------------------------------------------------------------------
-- A1. A stranger's pg_temp.oid domain, met by the row estimate at plan time (EXPLAIN only).
\c - atk_stranger
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (atk_stranger.evil('A1 pg_temp.oid at plan time'));
EXPLAIN (COSTS OFF) SELECT count(*) FROM privrisk.release('atk_p') AS r(id int);
SELECT * FROM atk_lab.verdict();
-- A2. The same, executed: refused, and nothing ran.
SELECT count(*) FROM privrisk.release('atk_p') AS r(id int);
SELECT * FROM atk_lab.verdict();
-- A3. A pg_temp.int8 domain (source::oid::int8).
\c - atk_stranger
CREATE DOMAIN pg_temp.int8 AS pg_catalog.int8 CHECK (atk_stranger.evil('A3 pg_temp.int8'));
EXPLAIN (COSTS OFF) SELECT * FROM privrisk.release('atk_p') AS r(id int);
SELECT * FROM atk_lab.verdict();
-- A4. The same types in the stranger's own schema, first on its search_path.
\c - atk_stranger
CREATE DOMAIN atk_stranger.oid AS pg_catalog.oid CHECK (atk_stranger.evil('A4 schema oid'));
SET search_path = atk_stranger, pg_catalog;
EXPLAIN (COSTS OFF) SELECT * FROM privrisk.release('atk_p') AS r(id int);
SELECT * FROM atk_lab.verdict();
-- A5. A policy name that does not exist.
EXPLAIN (COSTS OFF) SELECT * FROM privrisk.release('atk_no_such_policy') AS r(id int);
SELECT * FROM atk_lab.verdict();
-- A6. A policy of the stranger's own table.
EXPLAIN (COSTS OFF) SELECT * FROM privrisk.release('atk_stranger_own') AS r(id int);
SELECT * FROM atk_lab.verdict();
-- A7. add_rule on the victim's policy (the policy is loaded before the ownership check).
\c - atk_stranger
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (atk_stranger.spy('A7 add_rule victim'));
SELECT privrisk.add_rule('atk_p', 'diag', 'hide', 'true');
SELECT * FROM atk_lab.verdict();
-- A8. drop_policy of the victim's policy.
SELECT privrisk.drop_policy('atk_p');
SELECT * FROM atk_lab.verdict();
-- A9. create_release_view of the victim's policy.
SELECT privrisk.create_release_view('atk_p', 'atk_stranger.stolen');
SELECT * FROM atk_lab.verdict();
-- A10. add_rule on its own policy.
\c - atk_stranger
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (atk_stranger.evil('A10 add_rule own'));
SELECT privrisk.add_rule('atk_stranger_own', 'zip', 'hide', 'false');
SELECT * FROM atk_lab.verdict();
-- A11. create_release_view of its own policy.
SELECT privrisk.create_release_view('atk_stranger_own', 'atk_stranger.mine_release');
SELECT * FROM atk_lab.verdict();
-- A12. drop_policy of its own policy (the policy comes back for the next attempts).
SELECT privrisk.drop_policy('atk_stranger_own', cascade => true);
SELECT * FROM atk_lab.verdict();
DROP DOMAIN pg_temp.oid;
SELECT privrisk.create_policy('atk_stranger_own', 'atk_stranger.mine');
-- A13. add_rule's $3::name, through a pg_temp.name domain.
CREATE DOMAIN pg_temp.name AS pg_catalog.name CHECK (atk_stranger.evil('A13 pg_temp.name'));
SELECT privrisk.add_rule('atk_stranger_own', 'zip', 'hide', 'false');
SELECT * FROM atk_lab.verdict();
-- A14. create_policy with the same domain (and pg_temp.oid, pg_temp.text).
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (atk_stranger.evil('A14 pg_temp.oid'));
CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (atk_stranger.evil('A14 pg_temp.text'));
SELECT privrisk.create_policy('atk_stranger_two', 'atk_stranger.mine');
SELECT * FROM atk_lab.verdict();
-- A15. drop_policy then sees them all.
SELECT privrisk.drop_policy('atk_stranger_two');
SELECT * FROM atk_lab.verdict();
-- A16. The name domain in the stranger's schema, first on the path.
\c - atk_stranger
CREATE DOMAIN atk_stranger.name AS pg_catalog.name CHECK (atk_stranger.evil('A16 schema name'));
SET search_path = atk_stranger, pg_catalog;
SELECT privrisk.add_rule('atk_stranger_own', 'age', 'hide', 'false');
SELECT * FROM atk_lab.verdict();
DROP DOMAIN atk_stranger.name;
DROP DOMAIN atk_stranger.oid;
RESET search_path;
-- A17. An operator =(text, text) first on the path: the catalog compares policy names.
CREATE FUNCTION atk_stranger.text_eq(text, text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN RETURN atk_stranger.evil('A17 =(text,text)') AND $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE OPERATOR atk_stranger.= (LEFTARG = text, RIGHTARG = text, FUNCTION = atk_stranger.text_eq);
SET search_path = atk_stranger, pg_catalog;
EXPLAIN (COSTS OFF) SELECT * FROM privrisk.release('atk_p') AS r(id int);
SELECT privrisk.add_rule('atk_stranger_own', 'id', 'hide', 'false');
SELECT * FROM atk_lab.verdict();
RESET search_path;
DROP OPERATOR atk_stranger.= (text, text);

-- Budgets: the budget owner's statements.
-- A18. An operator =(regclass, regclass) in the stranger's schema, on its path (after
-- pg_catalog, which has no exact match): set_budget compares every budget row with it.
CREATE FUNCTION atk_stranger.regclass_eq(regclass, regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN RETURN atk_stranger.evil('A18 =(regclass,regclass)') AND $1::pg_catalog.oid OPERATOR(pg_catalog.=) $2::pg_catalog.oid; END $$;
CREATE OPERATOR atk_stranger.= (LEFTARG = regclass, RIGHTARG = regclass, FUNCTION = atk_stranger.regclass_eq);
SET search_path = pg_catalog, atk_stranger;
SELECT privrisk.set_budget('atk_stranger.mine', 1, 1e-5);
SELECT * FROM atk_lab.verdict();
-- A19. The same on a table it does not own: refused before any statement.
SELECT privrisk.set_budget(:atk_people_oid::regclass, 100, 1e-3);
SELECT * FROM atk_lab.verdict();
-- A20. dp_release spends its own table's budget through the same operator.
SELECT count(*) >= 0 AS released FROM privrisk.dp_release('atk_stranger.mine', ARRAY['age'], ARRAY['atk_age'], 0.1, 1e-6,
       levels => ARRAY[2], seed => 7) AS r(age text);
SELECT * FROM atk_lab.verdict();
RESET search_path;
DROP OPERATOR atk_stranger.= (regclass, regclass);
-- A21. now() first on the path: set_budget's ON CONFLICT branch calls it.
CREATE FUNCTION atk_stranger.now() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN PERFORM atk_stranger.evil('A21 now()'); RETURN pg_catalog.now(); END $$;
SET search_path = atk_stranger, pg_catalog;
SELECT privrisk.set_budget('atk_stranger.mine', 2, 1e-5);
SELECT * FROM atk_lab.verdict();
RESET search_path;
-- A22. +(float8, float8) first on the path: dp_release adds to what was spent.
CREATE FUNCTION atk_stranger.f8_plus(float8, float8) RETURNS float8 LANGUAGE plpgsql AS $$
BEGIN PERFORM atk_stranger.evil('A22 +(float8,float8)'); RETURN $1 OPERATOR(pg_catalog.+) $2; END $$;
CREATE OPERATOR atk_stranger.+ (LEFTARG = float8, RIGHTARG = float8, FUNCTION = atk_stranger.f8_plus);
SET search_path = atk_stranger, pg_catalog;
SELECT count(*) >= 0 AS released FROM privrisk.dp_release('atk_stranger.mine', ARRAY['age'], ARRAY['atk_age'], 0.1, 1e-6,
       levels => ARRAY[2], seed => 7) AS r(age text);
SELECT * FROM atk_lab.verdict();
RESET search_path;
DROP OPERATOR atk_stranger.+ (float8, float8);
-- A23. The ledger's $6::jsonb, through a pg_temp.jsonb domain.
CREATE DOMAIN pg_temp.jsonb AS pg_catalog.jsonb CHECK (atk_stranger.evil('A23 pg_temp.jsonb'));
SELECT count(*) >= 0 AS released FROM privrisk.dp_release('atk_stranger.mine', ARRAY['age'], ARRAY['atk_age'], 0.1, 1e-6,
       levels => ARRAY[2], seed => 7) AS r(age text);
SELECT * FROM atk_lab.verdict();
-- A24. A pg_temp.float8 domain: the hierarchy catalog's lo::float8, read for dp_release.
\c - atk_stranger
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float8 CHECK (atk_stranger.evil('A24 pg_temp.float8'));
SELECT count(*) >= 0 AS released FROM privrisk.dp_release('atk_stranger.mine', ARRAY['age'], ARRAY['atk_age'], 0.1, 1e-6,
       levels => ARRAY[2], seed => 7) AS r(age text);
SELECT * FROM atk_lab.verdict();
-- A25. The event trigger that forgets dropped relations (SECURITY DEFINER) meets a pg_temp.oid.
\c - atk_stranger
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (atk_stranger.evil('A25 event trigger'));
CREATE TABLE atk_stranger.scratch (a int);
DROP TABLE atk_stranger.scratch;
SELECT * FROM atk_lab.verdict();

-- The analyst (SELECT on the release view) with the same weapons.
-- A26. pg_temp.oid while reading the view it was granted (plan time, release_views_of).
\c - atk_analyst
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (atk_analyst.evil('A26 view read'));
SELECT count(*) FROM atk_src.people_release;
SELECT * FROM atk_lab.verdict();
-- A27. pg_temp.int8 while calling release() directly.
\c - atk_analyst
CREATE DOMAIN pg_temp.int8 AS pg_catalog.int8 CHECK (atk_analyst.evil('A27 release() read'));
SELECT count(diag) FROM privrisk.release('atk_p') AS r(diag text);
SELECT * FROM atk_lab.verdict();
-- A28. A prepared statement through the view, executed twice (plan cache).
PREPARE atk_q AS SELECT count(*) FROM atk_src.people_release;
EXECUTE atk_q;
EXECUTE atk_q;
SELECT * FROM atk_lab.verdict();
-- A29. The policy with no view, which it may not read (a fresh session).
\c - atk_analyst
EXPLAIN (COSTS OFF) SELECT * FROM privrisk.release('atk_p_unviewed') AS r(id int);
SELECT count(*) FROM privrisk.release('atk_p_unviewed') AS r(id int);
SELECT * FROM atk_lab.verdict();
-- A30. pg_temp.float8 while reading the view (hierarchy lookups of the gen rules).
\c - atk_analyst
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float8 CHECK (atk_analyst.evil('A30 hierarchy lookup'));
SELECT count(age) FROM atk_src.people_release;
SELECT * FROM atk_lab.verdict();
------------------------------------------------------------------------------
-- Class 2: rule conditions keep the owner's meaning whatever the reader's path.
-- The analyst copies what it reads into pg_temp.got under a hostile path, then
-- counts with a clean path: rows, disclosed diag, generalized zip, disclosed
-- city and note, generalized age, and SECRET diagnoses. Safe: the owner's
-- 60 | 30 | 40 | 20 | 20 | 19 | 0.
------------------------------------------------------------------------------
\c - atk_analyst
CREATE FUNCTION atk_analyst.seen(OUT rows bigint, OUT diag_shown bigint, OUT zip_generalized bigint, OUT city_shown bigint,
                                 OUT note_shown bigint, OUT age_generalized bigint, OUT secrets bigint)
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    SELECT count(*), count(diag), count(*) FILTER (WHERE zip LIKE '%*'), count(city), count(note),
           count(*) FILTER (WHERE age LIKE '[%'), count(*) FILTER (WHERE diag LIKE 'SECRET%')
    INTO rows, diag_shown, zip_generalized, city_shown, note_shown, age_generalized, secrets FROM pg_temp.got;
END $$;
CREATE TEMP TABLE got AS SELECT * FROM atk_src.people_release;
SELECT * FROM atk_analyst.seen();
DROP TABLE got;
-- B1. =(text, text) as textne first on the path: region = 'metro' would turn into <>.
CREATE OPERATOR atk_analyst.= (LEFTARG = text, RIGHTARG = text, FUNCTION = pg_catalog.textne);
SET search_path = atk_analyst, pg_catalog;
CREATE TEMP TABLE got AS SELECT * FROM atk_src.people_release;
RESET search_path;
SELECT * FROM atk_analyst.seen();
DROP TABLE got;
-- B2. The same through release() with a column definition list: a reader of the
--     view reads the view, never release() directly.
SET search_path = atk_analyst, pg_catalog;
CREATE TEMP TABLE got AS SELECT * FROM privrisk.release('atk_p')
    AS r(id int, zip text, age text, diag text, region text, consent boolean, city text, note text);
RESET search_path;
-- B3. A prepared statement planned under the clean path, executed under the hostile one.
PREPARE atk_read AS SELECT * FROM atk_src.people_release;
SET search_path = atk_analyst, pg_catalog;
CREATE TEMP TABLE got AS EXECUTE atk_read;
RESET search_path;
SELECT * FROM atk_analyst.seen();
DROP TABLE got;
DEALLOCATE atk_read;
-- B4. A cursor declared under the hostile path, fetched under a clean one.
BEGIN;
SET LOCAL search_path = atk_analyst, pg_catalog;
DECLARE atk_c CURSOR FOR SELECT count(*) FILTER (WHERE region OPERATOR(pg_catalog.<>) 'metro' AND zip NOT LIKE '%*') AS zip_leaks
FROM atk_src.people_release;
SET LOCAL search_path = pg_catalog, pg_temp;
FETCH ALL FROM atk_c;
COMMIT;
DROP OPERATOR atk_analyst.= (text, text);
-- B5. >=(int4, int4) as int4lt: age >= 30 would disclose the young.
CREATE OPERATOR atk_analyst.>= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = pg_catalog.int4lt);
SET search_path = atk_analyst, pg_catalog;
CREATE TEMP TABLE got AS SELECT * FROM atk_src.people_release;
RESET search_path;
SELECT * FROM atk_analyst.seen();
DROP TABLE got;
DROP OPERATOR atk_analyst.>= (int4, int4);
-- B6. ~~ (LIKE) as textnlike.
CREATE OPERATOR atk_analyst.~~ (LEFTARG = text, RIGHTARG = text, FUNCTION = pg_catalog.textnlike);
SET search_path = atk_analyst, pg_catalog;
CREATE TEMP TABLE got AS SELECT * FROM atk_src.people_release;
RESET search_path;
SELECT * FROM atk_analyst.seen();
DROP TABLE got;
DROP OPERATOR atk_analyst.~~ (text, text);
-- B7. upper(text) of its own, first on the path (it returns 'METRO').
CREATE FUNCTION atk_analyst.upper(text) RETURNS text LANGUAGE sql IMMUTABLE RETURN 'METRO';
SET search_path = atk_analyst, pg_catalog;
CREATE TEMP TABLE got AS SELECT * FROM atk_src.people_release;
RESET search_path;
SELECT * FROM atk_analyst.seen();
DROP TABLE IF EXISTS got;
DROP FUNCTION atk_analyst.upper(text);
-- B8. An operator = whose function is its own hostile code.
CREATE FUNCTION atk_analyst.text_eq(text, text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN RETURN atk_analyst.evil('B8 rule operator'); END $$;
CREATE OPERATOR atk_analyst.= (LEFTARG = text, RIGHTARG = text, FUNCTION = atk_analyst.text_eq);
SET search_path = atk_analyst, pg_catalog;
CREATE TEMP TABLE got AS SELECT * FROM atk_src.people_release;
RESET search_path;
SELECT * FROM atk_analyst.seen();
SELECT * FROM atk_lab.verdict();
DROP TABLE IF EXISTS got;
DROP OPERATOR atk_analyst.= (text, text);
-- B9. Operators are never taken from pg_temp, even when it is listed first.
CREATE FUNCTION pg_temp.textne_copy(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE RETURN $1 <> $2;
CREATE OPERATOR pg_temp.= (LEFTARG = text, RIGHTARG = text, FUNCTION = pg_catalog.textne);
SET search_path = pg_temp, pg_catalog;
CREATE TEMP TABLE got AS SELECT * FROM atk_src.people_release;
RESET search_path;
SELECT * FROM atk_analyst.seen();
DROP TABLE got;
-- B10. The owner's session is not affected by the analyst's operator (nor its own reads).
\c - atk_owner
SELECT count(*) FILTER (WHERE region <> 'metro' AND zip NOT LIKE '%*') AS zip_leaks FROM atk_src.people_release;

-- (C33 and C34 of the catalog suite run here, where the stranger has rules of its own.)
\c - :atk_su
-- C33. Statistics of the catalog tables (row-level security hides their rows).
ANALYZE privrisk.policy, privrisk.policy_rule, privrisk.release_view, privrisk.audit_log;
\c - atk_stranger
SELECT count(*) AS stats_rows FROM pg_stats WHERE schemaname = 'privrisk'
   AND tablename IN ('policy', 'policy_rule', 'release_view', 'audit_log');
-- C34. A leaky function over the catalog sees only the stranger's own rows.
CREATE FUNCTION atk_stranger.peek(text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN INSERT INTO atk_lab.marks VALUES (current_user, 'peek: ' || $1); RETURN true; END $$;
SELECT count(*) AS rules_seen FROM privrisk.policy_rule WHERE atk_stranger.peek(policy || ': ' || condition);
SELECT count(*) AS policies_seen FROM privrisk.policy WHERE atk_stranger.peek(name);
SELECT count(*) FILTER (WHERE what LIKE 'peek: atk\_p%') AS victim_names_seen FROM atk_lab.marks;
SELECT FROM atk_lab.verdict();   -- clears the marks

\i test/regress/attack_lab_end.psql
