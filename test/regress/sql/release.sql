-- Disclosure policies run by Custom Scan (PrivriskRelease) (docs/release.md; [LSFB09],
-- the paper's §7.1 operator example and Proposition 3).
SELECT privrisk.load_hierarchy('rel_a2', E'a1;A-low;*\na2;A-low;*\na3;A-high;*\na4;A-high;*');
CREATE TABLE t (a1 int PRIMARY KEY, a2 text, a3 text);
INSERT INTO t VALUES (1, 'a1', 'b1'), (2, 'a2', 'b2'), (3, 'a3', 'b3'), (4, 'a4', 'b4');

-- hide_T(A2, F′ ∧ F″) as two rules F′ = (A1 ≠ 1), F″ = (A1 ≠ 3): tuples 1 and 3 lose A2.
SELECT privrisk.create_policy('hide_a2', 't');
SELECT privrisk.add_rule('hide_a2', 'a2', 'hide', 'a1 <> 1');
SELECT privrisk.add_rule('hide_a2', 'a2', 'hide', 'a1 <> 3');
SELECT * FROM privrisk.release('hide_a2') AS r(a1 int, a2 text, a3 text) ORDER BY a1;
EXPLAIN (COSTS OFF) SELECT * FROM privrisk.release('hide_a2') AS r(a1 int, a2 text, a3 text);

-- gen_T(A2, F′ ∧ F″): tuples 1 and 3 get the generalized value, 2 and 4 keep theirs.
SELECT privrisk.create_policy('gen_a2', 't');
SELECT privrisk.add_rule('gen_a2', 'a2', 'gen', 'a1 <> 1 AND a1 <> 3', 'rel_a2', 1);
SELECT * FROM privrisk.release('gen_a2') AS r(a1 int, a2 text, a3 text) ORDER BY a1;
-- gen to the top is hide; hide and gen on one column: ⊥ wins where hide's condition fails.
SELECT privrisk.add_rule('gen_a2', 'a2', 'hide', 'a1 <> 4');
SELECT * FROM privrisk.release('gen_a2') AS r(a1 int, a2 text) ORDER BY a1;

-- Rules on two attributes commute: {(1,⊥,b1),(2,a2,b2),(3,a3,b3),(4,a4,⊥)} either way.
SELECT privrisk.create_policy('two_ab', 't');
SELECT privrisk.add_rule('two_ab', 'a2', 'hide', 'a1 <> 1'), privrisk.add_rule('two_ab', 'a3', 'hide', 'a1 <> 4');
SELECT privrisk.create_policy('two_ba', 't');
SELECT privrisk.add_rule('two_ba', 'a3', 'hide', 'a1 <> 4'), privrisk.add_rule('two_ba', 'a2', 'hide', 'a1 <> 1');
SELECT * FROM privrisk.release('two_ab') AS r(a1 int, a2 text, a3 text) ORDER BY a1;
SELECT count(*) AS differences FROM (
  (SELECT * FROM privrisk.release('two_ab') AS r(a1 int, a2 text, a3 text)
   EXCEPT SELECT * FROM privrisk.release('two_ba') AS r(a1 int, a2 text, a3 text))
  UNION ALL
  (SELECT * FROM privrisk.release('two_ba') AS r(a1 int, a2 text, a3 text)
   EXCEPT SELECT * FROM privrisk.release('two_ab') AS r(a1 int, a2 text, a3 text))) AS d;

-- A column definition list may name any released columns, in any order.
SELECT a3, a1 FROM privrisk.release('two_ab') AS r(a3 text, a1 int) ORDER BY a1;

-- Quals see the released value: a WHERE on a hidden value finds nothing.
SELECT count(*) AS found FROM privrisk.release('hide_a2') AS r(a1 int, a2 text) WHERE a2 = 'a1';
SELECT a1 FROM privrisk.release('hide_a2') AS r(a1 int, a2 text) WHERE a2 IS NULL ORDER BY a1;
SELECT a1 FROM privrisk.release('gen_a2') AS r(a1 int, a2 text) WHERE a2 LIKE 'A-%' ORDER BY a1;

-- An unknown (NULL) condition protects; only TRUE discloses.
CREATE TABLE n (id int, flag boolean, secret text);
INSERT INTO n VALUES (1, true, 's1'), (2, false, 's2'), (3, NULL, 's3'), (4, true, NULL);
SELECT privrisk.create_policy('nulls', 'n');
SELECT privrisk.add_rule('nulls', 'secret', 'hide', 'flag');
SELECT * FROM privrisk.release('nulls') AS r(id int, flag boolean, secret text) ORDER BY id;

-- Randomized Proposition 3: five policies with the same 6 random rules on 3 columns,
-- added in different orders, release the same rows, and each row equals the
-- reference (every failed rule raises the level; ⊥ = NULL wins) computed in SQL.
SELECT privrisk.interval_hierarchy('rel_v', 0, 1000, ARRAY[10, 100]);
SELECT setseed(0.125);
CREATE TABLE rnd AS
SELECT i AS id, (random() * 999)::int AS v, (random() * 999)::int AS w,
       CASE WHEN random() < 0.1 THEN NULL ELSE (random() * 10)::int END AS c1,
       CASE WHEN random() < 0.1 THEN NULL ELSE (random() * 10)::int END AS c2,
       md5(i::text) AS s
FROM generate_series(1, 3000) AS i;
CREATE TABLE rnd_rules AS
SELECT k, (ARRAY['v', 'w', 's'])[1 + (random() * 2)::int] AS col,
       (ARRAY['c1 > 3', 'c2 < 6', 'c1 <> c2', 'v > 500', 'w % 3 = 0', 'c1 + c2 > 9'])[1 + (random() * 5)::int] AS cond,
       random() < 0.3 AS hide, 1 + (random() < 0.5)::int AS level
FROM generate_series(1, 6) AS k;
UPDATE rnd_rules SET hide = true WHERE col = 's';
-- v and w have a gen rule each, so both are released as text.
UPDATE rnd_rules SET col = CASE k WHEN 1 THEN 'v' ELSE 'w' END, hide = false WHERE k <= 2;
SELECT setseed(0.5);
DO $$
DECLARE
    p int;
    r record;
BEGIN
    FOR p IN 1..5 LOOP
        PERFORM privrisk.create_policy('rnd_' || p, 'rnd');
        FOR r IN SELECT * FROM rnd_rules ORDER BY CASE WHEN p = 1 THEN k ELSE random() END LOOP
            PERFORM privrisk.add_rule('rnd_' || p, r.col, CASE WHEN r.hide THEN 'hide' ELSE 'gen' END, r.cond,
                                      CASE WHEN r.hide THEN NULL ELSE 'rel_v' END, CASE WHEN r.hide THEN NULL ELSE r.level END);
        END LOOP;
    END LOOP;
END $$;
-- The reference: per column, the highest level among failed rules (hide = height 3 = ⊥).
CREATE VIEW rnd_reference AS
WITH lv AS (
  SELECT d.id,
         max(CASE WHEN NOT ok AND col = 'v' THEN CASE WHEN hide THEN 3 ELSE level END END) AS v_level,
         max(CASE WHEN NOT ok AND col = 'w' THEN CASE WHEN hide THEN 3 ELSE level END END) AS w_level,
         bool_or(col = 's' AND NOT ok) AS s_hidden
  FROM (SELECT rnd.id, x.col, x.hide, x.level,
               coalesce(CASE x.cond WHEN 'c1 > 3' THEN c1 > 3 WHEN 'c2 < 6' THEN c2 < 6 WHEN 'c1 <> c2' THEN c1 <> c2
                                    WHEN 'v > 500' THEN v > 500 WHEN 'w % 3 = 0' THEN w % 3 = 0
                                    ELSE c1 + c2 > 9 END, false) AS ok
        FROM rnd CROSS JOIN rnd_rules x) AS d
  GROUP BY d.id)
SELECT rnd.id,
       CASE WHEN coalesce(v_level, 0) >= 3 THEN NULL ELSE privrisk.generalize('rel_v', v::text, coalesce(v_level, 0)) END AS v,
       CASE WHEN coalesce(w_level, 0) >= 3 THEN NULL ELSE privrisk.generalize('rel_v', w::text, coalesce(w_level, 0)) END AS w,
       CASE WHEN s_hidden THEN NULL ELSE s END AS s
FROM rnd JOIN lv USING (id);
SELECT (SELECT count(*) FROM rnd_rules) AS rules, (SELECT count(DISTINCT col) FROM rnd_rules) AS columns;
CREATE FUNCTION rnd_check(policy text, OUT rows bigint, OUT differences_from_reference bigint) LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT count(*), count(*) FILTER (WHERE (r.v, r.w, r.s) IS DISTINCT FROM (x.v, x.w, x.s))
                    FROM privrisk.release(%L) AS r(id int, v text, w text, s text) JOIN rnd_reference x USING (id)', policy)
    INTO rows, differences_from_reference;
END $$;
SELECT p AS policy, (rnd_check('rnd_' || p)).* FROM generate_series(1, 5) AS p;
-- Not a vacuous check: the rules hide or generalize a good share of the values.
SELECT count(*) FILTER (WHERE v IS NULL OR v !~ '^[0-9]+$') > 300 AS v_protected,
       count(*) FILTER (WHERE s IS NULL) > 300 AS s_hidden
FROM privrisk.release('rnd_1') AS r(id int, v text, s text);

-- Conditions of common shapes run natively, others through PostgreSQL's evaluator:
-- both must agree with SQL's own (condition) IS TRUE on rows full of NULLs.
SELECT setseed(0.75);
CREATE TABLE cnd AS
SELECT i AS id, 'payload-' || i AS payload,
       CASE WHEN random() < 0.15 THEN NULL ELSE (random() * 20 - 10)::int2 END AS i2,
       CASE WHEN random() < 0.15 THEN NULL ELSE (random() * 20 - 10)::int END AS i4,
       CASE WHEN random() < 0.15 THEN NULL ELSE (random() * 2e10)::bigint END AS i8,
       CASE WHEN random() < 0.15 THEN NULL ELSE (ARRAY['a', 'b', 'ab', ''])[1 + (random() * 3)::int] END AS t,
       CASE WHEN random() < 0.15 THEN NULL ELSE (ARRAY['x', 'y'])[1 + (random() * 1)::int]::varchar(3) END AS vc,
       CASE WHEN random() < 0.15 THEN NULL ELSE random() < 0.5 END AS b
FROM generate_series(1, 2000) AS i;
CREATE FUNCTION cnd_check(condition text, source regclass DEFAULT 'cnd',
                          OUT native boolean, OUT disclosed bigint, OUT mismatches bigint)
LANGUAGE plpgsql AS $$
DECLARE plan text;
BEGIN
    PERFORM privrisk.create_policy('cnd', source);
    PERFORM privrisk.add_rule('cnd', 'payload', 'hide', condition);
    EXECUTE 'EXPLAIN (FORMAT JSON) SELECT payload FROM privrisk.release(''cnd'') AS r(payload text)' INTO plan;
    native := (plan::jsonb -> 0 -> 'Plan' ->> 'Conditions Native')::int = 1;
    EXECUTE format('SELECT count(r.payload), count(*) FILTER (WHERE r.payload IS DISTINCT FROM
                        CASE WHEN (%s) IS TRUE THEN c.payload END)
                    FROM privrisk.release(''cnd'') AS r(id int, payload text) JOIN %s c USING (id)', condition, source)
    INTO disclosed, mismatches;
    PERFORM privrisk.drop_policy('cnd');
END $$;
SELECT c AS condition, (cnd_check(c)).*
FROM unnest(ARRAY['i4 > 3', '3 > i4', 'i4 <= -2', 'i4 >= 0', 'i4 = 5', 'i4 <> 5', 'i2 < 0', 'i2 = i4',
                  'i8 > 10000000000', 'i4 < 5000000000', '7 <= i2', 't = ''ab''', 't <> ''a''', '''b'' = t',
                  't = ''''', 'vc = ''x''', 't > ''a''', 'b', 'NOT b', 'b = false', 'b IS NULL', 'i4 IS NOT NULL',
                  'i4 > 0 AND t = ''a''', 'i4 > 0 OR b', 'i4 > 0 AND (t = ''a'' OR b)', 'NOT (i4 > 0)',
                  'i4 + 1 > 3', 'true', 'false', 'NULL::boolean']) AS c;
-- Text equality reads a short value (1-byte header) as its first 16 bytes, header
-- included, and the rest byte for byte; values with a 4-byte header, compressed
-- ones, and constants past 15 and 126 bytes take the other paths. All agree with SQL.
CREATE TABLE cnd_long AS
SELECT i AS id, 'payload-' || i AS payload,
       (ARRAY['fifteen-bytes-x', 'fifteen-bytes-xy', 'fifteen-bytes-xz', 'fifteen-bytes-', '', repeat('long', 40),
              repeat('long', 40) || '!', repeat('z', 3000), NULL])[1 + i % 9] AS t
FROM generate_series(1, 900) AS i;
SELECT c AS condition, (cnd_check(c, 'cnd_long')).*
FROM unnest(ARRAY['t = ''fifteen-bytes-x''', 't = ''fifteen-bytes-xy''', 't <> ''fifteen-bytes-xz''',
                  't = ''fifteen-bytes-''', 't = ''''', 't = repeat(''long'', 40)', 't = repeat(''long'', 40) || ''!''',
                  't = repeat(''z'', 3000)', 't <> repeat(''z'', 2999)']) AS c;

-- Parallel: a parallel-aware scan of the source gives the serial rows.
CREATE TABLE big AS SELECT i AS id, (i * 7919) % 1000 AS v, md5(i::text) AS s FROM generate_series(1, 50000) AS i;
ANALYZE big;
SELECT privrisk.create_policy('big', 'big');
SELECT privrisk.add_rule('big', 'v', 'gen', 'id % 3 = 0', 'rel_v', 1);
SELECT privrisk.add_rule('big', 's', 'hide', 'v < 500');
CREATE TEMP TABLE serial AS
SELECT count(*) AS n, md5(string_agg(id || ':' || coalesce(v, '⊥') || ':' || coalesce(s, '⊥'), ',' ORDER BY id)) AS digest
FROM privrisk.release('big') AS r(id int, v text, s text);
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM privrisk.release('big') AS r(id int, v text, s text) WHERE v LIKE '1%';
EXPLAIN (COSTS OFF) SELECT id, v, s FROM privrisk.release('big') AS r(id int, v text, s text);
SELECT (SELECT n FROM serial) AS serial_rows,
       count(*) AS parallel_rows,
       md5(string_agg(id || ':' || coalesce(v, '⊥') || ':' || coalesce(s, '⊥'), ',' ORDER BY id)) = (SELECT digest FROM serial) AS same_rows
FROM privrisk.release('big') AS r(id int, v text, s text);
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather; RESET parallel_leader_participation;
-- A column list in the source's order builds each released row in the source row's
-- own arrays; any other order copies the columns no rule touches: the same rows.
SELECT md5(string_agg(id || ':' || coalesce(v, '⊥') || ':' || coalesce(s, '⊥'), ',' ORDER BY id)) = (SELECT digest FROM serial) AS reordered_same_rows
FROM privrisk.release('big') AS r(s text, id int, v text);

-- Cursors scroll (the plan materializes what the scan cannot re-read backwards), rescans restart.
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT * FROM privrisk.release('hide_a2') AS r(a1 int, a2 text) ORDER BY a1;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
COMMIT;
SELECT x, (SELECT count(*) FROM privrisk.release('hide_a2') AS r(a1 int, a2 text) WHERE a2 IS NOT NULL AND a1 <= x) AS disclosed
FROM generate_series(1, 4) AS x;

-- A partitioned source is read partition after partition (serially); a partition whose
-- columns are in another order, with a dropped one between, is mapped to the parent's.
SELECT privrisk.prefix_hierarchy('rel_pz', 5);
CREATE TABLE m (id int, region text, zip text, secret text) PARTITION BY LIST (region);
CREATE TABLE m_east PARTITION OF m FOR VALUES IN ('east');
CREATE TABLE m_west (secret text, junk int, zip text, id int, region text);
ALTER TABLE m_west DROP COLUMN junk;
ALTER TABLE m ATTACH PARTITION m_west FOR VALUES IN ('west');
CREATE TABLE m_other PARTITION OF m DEFAULT;
INSERT INTO m SELECT i, (ARRAY['east', 'west', 'north'])[1 + i % 3], lpad((10000 + i)::text, 5, '0'), 's' || i
FROM generate_series(1, 3000) AS i;
SELECT privrisk.create_policy('pm', 'm');
SELECT privrisk.add_rule('pm', 'secret', 'hide', 'id % 2 = 0'), privrisk.add_rule('pm', 'zip', 'gen', $$region = 'east'$$, 'rel_pz', 2);
SELECT privrisk.create_release_view('pm', 'm_release');
EXPLAIN (COSTS OFF) SELECT count(*) FROM m_release WHERE secret IS NULL;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE r.secret IS DISTINCT FROM CASE WHEN m.id % 2 = 0 THEN m.secret END) AS secret_wrong,
       count(*) FILTER (WHERE r.zip IS DISTINCT FROM CASE WHEN m.region = 'east' THEN m.zip
                                                          ELSE privrisk.generalize('rel_pz', m.zip, 2) END) AS zip_wrong,
       count(*) FILTER (WHERE r.region IS DISTINCT FROM m.region) AS region_wrong
FROM m_release r JOIN m USING (id);
SELECT x, (SELECT count(secret) FROM m_release WHERE id <= x) AS disclosed FROM generate_series(1000, 3000, 1000) AS x;

-- Bad input: each a clear error, and the catalog is unchanged.
SELECT privrisk.create_policy('hide_a2', 't');                -- duplicate
SELECT privrisk.create_policy('', 't');
SELECT privrisk.create_policy(E'bad\tname', 't');
SELECT privrisk.create_policy('v', 'pg_class');               -- not the caller's
CREATE VIEW tv AS SELECT * FROM t;
SELECT privrisk.create_policy('v', 'tv');                     -- not a table
SELECT privrisk.create_policy('x', NULL);
SELECT privrisk.add_rule('nope', 'a2', 'hide');
SELECT privrisk.add_rule('hide_a2', 'nope', 'hide');
SELECT privrisk.add_rule('hide_a2', 'ctid', 'hide');
SELECT privrisk.add_rule('hide_a2', 'a2', 'show');
SELECT privrisk.add_rule('hide_a2', 'a2', 'hide', NULL);
SELECT privrisk.add_rule('hide_a2', 'a2', 'hide', 'true', 'rel_a2', 1);
SELECT privrisk.add_rule('hide_a2', 'a2', 'gen', 'true');
SELECT privrisk.add_rule('hide_a2', 'a2', 'gen', 'true', 'nope', 1);
SELECT privrisk.add_rule('hide_a2', 'a2', 'gen', 'true', 'rel_a2', 0);
SELECT privrisk.add_rule('hide_a2', 'a2', 'gen', 'true', 'rel_a2', 3);
SELECT privrisk.add_rule('gen_a2', 'a2', 'gen', 'true', 'rel_v', 1);   -- a second hierarchy on one column
-- Conditions: parsed on their own, never spliced; only the source's columns,
-- constants, operators and immutable built-in functions.
CREATE FUNCTION my_true(int) RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT true';
-- Each attempt in its own subtransaction; the error it raised, or 'accepted'.
CREATE FUNCTION refusal(condition text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM privrisk.add_rule('hide_a2', 'a2', 'hide', condition);
    RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT c AS condition, refusal(c) FROM unnest(ARRAY[
    'true) OR (1=1',
    '1=1) OR (true',
    'true; DROP TABLE t',
    '''; DROP TABLE t; --',
    'a1 IN (SELECT a1 FROM t)',
    'EXISTS (SELECT 1 FROM pg_authid)',
    'pg_sleep(10) IS NOT NULL',
    'random() < 0.5',
    'now() > ''2000-01-01''',
    'current_user = ''x''',
    'my_true(a1)',
    'count(*) > 0',
    'a1 > 1 FROM t',
    'a1 > 1 AS x',
    'a1, a2',
    '*',
    'a1',
    'nope > 1',
    'other.a1 > 1',
    'ctid IS NULL',
    '$1 > 0',
    '']) AS c;
SELECT count(*) AS rules_of_hide_a2 FROM privrisk.policy_rule WHERE policy = 'public.hide_a2';
-- What is allowed: built-in immutable operators and functions over the source's columns.
SELECT privrisk.add_rule('hide_a2', 'a3', 'hide', $$a1 BETWEEN 2 AND 3 AND length(a2) = 2 AND a3 LIKE 'b%' AND coalesce(a2, '') <> 'x'$$);
SELECT * FROM privrisk.release('hide_a2') AS r(a1 int, a2 text, a3 text) ORDER BY a1;

-- release() is a table: anywhere else it refuses, and its columns must match the policy.
SELECT privrisk.release('hide_a2');
SELECT * FROM privrisk.release('hide_a2') AS r(a1 int, nope text);
SELECT * FROM privrisk.release('hide_a2') AS r(a1 text);
SELECT * FROM privrisk.release('gen_a2') AS r(a2 int);
SELECT * FROM privrisk.release('nope') AS r(a1 int);
SELECT * FROM privrisk.release(NULL) AS r(a1 int);
SELECT * FROM privrisk.release('hide_a2') WITH ORDINALITY AS r(a1 int, a2 text, a3 text, n bigint);
SELECT * FROM ROWS FROM (privrisk.release('hide_a2') AS (a1 int), generate_series(1, 2)) AS r;
SELECT * FROM t, LATERAL privrisk.release(t.a2) AS r(a1 int);

-- Release views: hidden columns keep their type, generalized ones are text.
SELECT privrisk.create_release_view('gen_a2', 'gen_a2_view');
SELECT privrisk.create_release_view('gen_a2', 'gen_a2_view');   -- exists
SELECT privrisk.create_release_view('nulls', 'public."odd ""name"""');
-- Hostile names are data, never SQL: a policy named like an injection, a view name that is not a name.
SELECT privrisk.create_policy($$x'); DROP TABLE t; --$$, 't');
SELECT privrisk.create_release_view($$x'); DROP TABLE t; --$$, 'hostile_view');
SELECT count(*) AS rows_of_t_through_hostile_view FROM hostile_view;
SELECT privrisk.create_release_view('gen_a2', 'v; DROP TABLE t');
SELECT privrisk.create_release_view('gen_a2', 'a.b.c.d');
SELECT count(*) AS t_still_there FROM t;
\d gen_a2_view
SELECT * FROM gen_a2_view ORDER BY a1;
SELECT * FROM "odd ""name""" ORDER BY id;
-- A rule that changes a column's type makes the view out of date: it refuses, never guesses.
SELECT privrisk.add_rule('nulls', 'id', 'gen', 'true', 'rel_v', 1);
SELECT * FROM "odd ""name""";

-- A policy with release views is not dropped alone (nothing may ever read a
-- policy name another policy could take): cascade drops the views with it.
SELECT privrisk.drop_policy('gen_a2');
SELECT * FROM gen_a2_view ORDER BY a1 LIMIT 1;
CREATE VIEW gen_a2_view_copy AS SELECT a1 FROM gen_a2_view;
SELECT privrisk.drop_policy('gen_a2', cascade => true);
SELECT to_regclass('gen_a2_view') AS view_left;
SELECT privrisk.drop_policy('gen_a2');
SELECT count(*) AS rules_left FROM privrisk.policy_rule WHERE policy = 'public.gen_a2';

-- A query reads its policy once while it is planned (the row estimate and the
-- paths share the read) and once when it starts: each read scans the policy's
-- rules once, which the transaction's statistics count. With the catalog cache
-- (docs/release.md), the start finds what planning read: one scan; without it, two.
CREATE TABLE reads AS SELECT i AS id, (i % 5)::text AS zip FROM generate_series(1, 100) AS i;
SELECT privrisk.create_policy('reads', 'reads');
SELECT privrisk.add_rule('reads', 'zip', 'hide', 'id > 50');
BEGIN;
CREATE TEMP TABLE scans_before AS SELECT idx_scan + seq_scan AS n FROM pg_stat_xact_user_tables
 WHERE schemaname = 'privrisk' AND relname = 'policy_rule';
SELECT count(zip) AS shown FROM privrisk.release('reads') AS r(id int, zip text);
SELECT (SELECT idx_scan + seq_scan FROM pg_stat_xact_user_tables WHERE schemaname = 'privrisk' AND relname = 'policy_rule')
       - (SELECT n FROM scans_before) AS rule_reads;
SET LOCAL privrisk.release_cache = off;
UPDATE scans_before SET n = (SELECT idx_scan + seq_scan FROM pg_stat_xact_user_tables
 WHERE schemaname = 'privrisk' AND relname = 'policy_rule');
SELECT count(zip) AS shown FROM privrisk.release('reads') AS r(id int, zip text);
SELECT (SELECT idx_scan + seq_scan FROM pg_stat_xact_user_tables WHERE schemaname = 'privrisk' AND relname = 'policy_rule')
       - (SELECT n FROM scans_before) AS rule_reads_uncached;
ROLLBACK;
SELECT privrisk.drop_policy('reads');
DROP TABLE reads;

DROP VIEW "odd ""name""", hostile_view, tv, rnd_reference, m_release;
DROP FUNCTION my_true(int), refusal(text), rnd_check(text), cnd_check(text, regclass);
SELECT privrisk.drop_policy(name, cascade => true) FROM privrisk.policy ORDER BY name;
DROP TABLE t, n, rnd, rnd_rules, big, cnd, cnd_long, m;
SELECT privrisk.drop_hierarchy('rel_a2'), privrisk.drop_hierarchy('rel_v'), privrisk.drop_hierarchy('rel_pz');
