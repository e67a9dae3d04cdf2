-- audit() with hierarchies (docs/measures.md): the class reader's level-0 classes,
-- each distinct value generalized once in C++, rolled up to the audited levels,
-- with no call of gen() per row. Past privrisk.audit_memory_limit it groups in SQL
-- instead (a NOTICE says so), each row's value joined to its generalization, found
-- once per distinct value in C++: no call of gen() either. Both reads must give the
-- same audit, whatever the levels, NULLs, sensitive column and number of workers,
-- and the k that PostgreSQL's own GROUP BY gen() gives.
SELECT setseed(0.35);
CREATE TABLE al AS
SELECT CASE WHEN random() < 0.02 THEN NULL ELSE (random() * 89)::int END AS age,
       CASE WHEN random() < 0.02 THEN NULL ELSE (10000 + (random() * 400)::int)::text END AS zip,
       (ARRAY['F', 'M'])[1 + (random() < 0.5)::int] AS sex,
       CASE WHEN random() < 0.05 THEN NULL ELSE (ARRAY['flu', 'cold', 'asthma', 'none'])[1 + (random() * 3)::int] END AS diagnosis
FROM generate_series(1, 150000);
SELECT privrisk.interval_hierarchy('al_age', 0, 100, ARRAY[5, 20]) AS age_height;
SELECT privrisk.load_hierarchy('al_zip', string_agg(zip || ';' || left(zip, 4) || '*;' || left(zip, 3) || '**;*', E'\n'))
       AS zip_height
FROM (SELECT DISTINCT zip FROM al WHERE zip IS NOT NULL) AS z;
-- The parallel read needs a table the planner would give workers.
ALTER TABLE al SET (parallel_workers = 2);
SET track_functions = 'all';

-- audit_both(levels, sensitive, workers): the audit read by the class reader (and the calls
-- of gen() it made: none), then the same audit grouped in SQL past a 1 MB limit (none
-- either), and whether its k is the smallest class of GROUP BY gen() in SQL.
CREATE FUNCTION audit_both(levels int[], sensitive text, workers int,
                           OUT same boolean, OUT reader_gen_calls bigint, OUT spill_gen_calls bigint, OUT k int,
                           OUT k_as_sql boolean)
LANGUAGE plpgsql AS $$
DECLARE
    read jsonb;
    spilled jsonb;
    before bigint;
BEGIN
    PERFORM set_config('max_parallel_workers_per_gather', workers::text, true);
    SELECT coalesce(sum(calls), 0) INTO before FROM pg_stat_xact_user_functions WHERE funcname = 'gen';
    read := privrisk.audit('al', ARRAY['age', 'zip', 'sex'], sensitive, ARRAY['al_age', 'al_zip', NULL], levels);
    SELECT coalesce(sum(calls), 0) - before INTO reader_gen_calls FROM pg_stat_xact_user_functions WHERE funcname = 'gen';
    PERFORM set_config('privrisk.audit_memory_limit', '1MB', true);
    SELECT coalesce(sum(calls), 0) INTO before FROM pg_stat_xact_user_functions WHERE funcname = 'gen';
    spilled := privrisk.audit('al', ARRAY['age', 'zip', 'sex'], sensitive, ARRAY['al_age', 'al_zip', NULL], levels);
    SELECT coalesce(sum(calls), 0) - before INTO spill_gen_calls FROM pg_stat_xact_user_functions WHERE funcname = 'gen';
    PERFORM set_config('privrisk.audit_memory_limit', '512MB', true);
    same := read = spilled;
    k := (read->>'k_anonymity')::int;
    k_as_sql := k = (SELECT min(n) FROM (SELECT count(*) AS n FROM al
                                         GROUP BY privrisk.gen(age, 'al_age', levels[1]),
                                                  privrisk.gen(zip, 'al_zip', levels[2]), sex) AS c);
    IF NOT same THEN
        RAISE WARNING 'levels %, sensitive %: % vs %', levels, sensitive, read, spilled;
    END IF;
END $$;

SELECT l.levels, s.sensitive, w.workers, a.same, a.reader_gen_calls, a.spill_gen_calls, a.k, a.k_as_sql
FROM (VALUES (ARRAY[1, 1, 0]), (ARRAY[0, 2, 0]), (ARRAY[2, 0, 0]), (ARRAY[3, 3, 0]), (ARRAY[1, 3, 0])) AS l(levels),
     (VALUES ('diagnosis'), (NULL)) AS s(sensitive),
     (VALUES (0), (2)) AS w(workers),
     LATERAL audit_both(l.levels, s.sensitive, w.workers) AS a
ORDER BY 1, 2, 3;

-- In parallel mode (audit() above a Gather) no subtransaction may start, which the class
-- reader's fallbacks need: the reader reads serially there, and past the limit its error
-- in C++ still falls back to the spilling GROUP BY. Same results; no call of gen().
CREATE TABLE alp AS SELECT * FROM al LIMIT 5000;
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF)
SELECT privrisk.audit('alp', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0])
FROM alp LIMIT 1;
BEGIN;
SELECT privrisk.audit('alp', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0])
       AS in_parallel_mode
FROM alp LIMIT 1 \gset
SET LOCAL privrisk.audit_memory_limit = '1MB';
SELECT privrisk.audit('al', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0])
       AS spilled_in_parallel_mode
FROM alp LIMIT 1 \gset
SELECT coalesce(sum(calls), 0) AS gen_calls_in_parallel_mode FROM pg_stat_xact_user_functions WHERE funcname = 'gen';
COMMIT;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SELECT :'in_parallel_mode'::jsonb
       = privrisk.audit('alp', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0])
       AS same_in_parallel_mode, (:'in_parallel_mode'::jsonb)->'k_anonymity' AS k,
       :'spilled_in_parallel_mode'::jsonb
       = privrisk.audit('al', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0])
       AS same_spilled_in_parallel_mode;
DROP TABLE alp;

-- A sensitive column of any type is counted by its canonical text (privrisk.canonical_text):
-- text as it is, t and f for booleans, dates in ISO form whatever DateStyle says. The class
-- reader (serial or with workers) and the spilling GROUP BY agree, and neither depends on
-- DateStyle; before, audit() counted value::text ('true', '04/01/2026' under DMY) where the
-- search, gen() and the release counted the canonical text.
SET DateStyle = 'SQL, DMY';
SELECT privrisk.canonical_text(true) AS yes, privrisk.canonical_text(date '2026-03-04') AS day,
       privrisk.canonical_text('ab '::char(4)) AS padded, privrisk.canonical_text('-infinity'::date) AS never,
       privrisk.canonical_text(1.50) AS number, privrisk.canonical_text(NULL::date) AS nothing,
       privrisk.canonical_text(date '0044-03-15 BC') AS ides, privrisk.canonical_text(date '5874897-12-31') AS last;
SELECT privrisk.hist(x) FROM (VALUES (date '2026-01-04'), (date '2026-01-04'), ('infinity'), (NULL)) AS v(x);
ALTER TABLE al ADD COLUMN ill boolean, ADD COLUMN seen date, ADD COLUMN severity numeric;
UPDATE al SET ill = diagnosis <> 'none', seen = date '2026-01-01' + length(diagnosis),
              severity = CASE WHEN diagnosis = 'flu' THEN 1.0 WHEN diagnosis = 'cold' THEN 1 ELSE length(diagnosis) END;
VACUUM ANALYZE al;
SELECT s.sensitive, w.workers, a.same, a.reader_gen_calls, a.spill_gen_calls, a.k, a.k_as_sql
FROM (VALUES ('ill'), ('seen'), ('severity')) AS s(sensitive), (VALUES (0), (2)) AS w(workers),
     LATERAL audit_both(ARRAY[1, 1, 0], s.sensitive, w.workers) AS a
ORDER BY 1, 2;
-- Hierarchies over the sensitive values hold their canonical texts; hierarchy_coverage finds
-- them by the same text (a value it lacks is shown as gen() would look it up).
SELECT privrisk.load_hierarchy('al_ill', E't;*\nf;*') AS ill_height,
       privrisk.load_hierarchy('al_seen', E'2026-01-04;short;*\n2026-01-05;long;*\n2026-01-07;long;*') AS seen_height,
       privrisk.load_hierarchy('al_seen_part', E'2026-01-04;*\n2026-01-05;*') AS part_height;
SELECT * FROM privrisk.hierarchy_coverage('al', 'seen', 'al_seen');
SELECT * FROM privrisk.hierarchy_coverage('al', 'seen', 'al_seen_part');
CREATE FUNCTION t_both(sensitive text, hierarchy text, OUT t_read float8, OUT t_spilled float8)
LANGUAGE plpgsql AS $$
BEGIN
    t_read := privrisk.audit('al', ARRAY['age', 'zip', 'sex'], sensitive, ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0],
                             jsonb_build_object('t_hierarchy', hierarchy))->'t_hierarchical';
    PERFORM set_config('privrisk.audit_memory_limit', '1MB', true);
    t_spilled := privrisk.audit('al', ARRAY['age', 'zip', 'sex'], sensitive, ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0],
                                jsonb_build_object('t_hierarchy', hierarchy))->'t_hierarchical';
    PERFORM set_config('privrisk.audit_memory_limit', '512MB', true);
END $$;
CREATE TEMP TABLE t_dmy AS
SELECT h.sensitive, t.t_read, t.t_spilled
FROM (VALUES ('ill', 'al_ill'), ('seen', 'al_seen')) AS h(sensitive, hierarchy), LATERAL t_both(h.sensitive, h.hierarchy) AS t;
SET DateStyle = 'ISO, MDY';
SELECT h.sensitive, t.t_read, t.t_read = t.t_spilled AND d.t_read = d.t_spilled AS same, t.t_read = d.t_read AS same_as_dmy
FROM (VALUES ('ill', 'al_ill'), ('seen', 'al_seen')) AS h(sensitive, hierarchy),
     LATERAL t_both(h.sensitive, h.hierarchy) AS t, t_dmy AS d
WHERE d.sensitive = h.sensitive
ORDER BY 1;
RESET DateStyle;
DROP TABLE t_dmy;
DROP FUNCTION t_both;
-- Quasi-identifiers with hierarchies over a date (whose canonical text only C++ writes)
-- and a boolean: the spilling GROUP BY joins each by its canonical text too.
CREATE FUNCTION read_and_spilled(levels int[], OUT same boolean, OUT k int, OUT spilled_classes boolean)
LANGUAGE plpgsql AS $$
DECLARE
    read jsonb;
    spilled jsonb;
BEGIN
    read := privrisk.audit('al', ARRAY['seen', 'ill', 'zip', 'age'], 'diagnosis',
                           ARRAY['al_seen', 'al_ill', NULL, NULL], levels);
    PERFORM set_config('privrisk.audit_memory_limit', '1MB', true);
    spilled := privrisk.audit('al', ARRAY['seen', 'ill', 'zip', 'age'], 'diagnosis',
                              ARRAY['al_seen', 'al_ill', NULL, NULL], levels);
    PERFORM set_config('privrisk.audit_memory_limit', '512MB', true);
    same := read = spilled;
    k := (read->>'k_anonymity')::int;
    spilled_classes := (spilled->>'classes')::int > 10000;
END $$;
SELECT l.levels, r.* FROM (VALUES (ARRAY[0, 0, 0, 0]), (ARRAY[1, 1, 0, 0]), (ARRAY[2, 1, 0, 0])) AS l(levels),
     LATERAL read_and_spilled(l.levels) AS r ORDER BY 1;
-- An infinite date has no generalization: both reads fail alike (canonical_text() writes it).
-- It is the table's last row, so that the class reader passes the 1 MB limit before it.
CREATE TABLE al_infinite AS
SELECT seen, zip, age, diagnosis FROM al UNION ALL SELECT 'infinity', '10001', 30, 'flu';
SET max_parallel_workers_per_gather = 0;
SELECT privrisk.audit('al_infinite', ARRAY['seen', 'zip', 'age'], 'diagnosis', ARRAY['al_seen', NULL, NULL], ARRAY[1, 0, 0]);
SET privrisk.audit_memory_limit = '1MB';
SELECT privrisk.audit('al_infinite', ARRAY['seen', 'zip', 'age'], 'diagnosis', ARRAY['al_seen', NULL, NULL], ARRAY[1, 0, 0]);
RESET privrisk.audit_memory_limit;
-- Even a hierarchy that lists 'infinity' does not generalize it, in either read (the same message).
SELECT privrisk.load_hierarchy('al_seen_inf', E'2026-01-04;short;*\n2026-01-05;long;*\n2026-01-07;long;*\ninfinity;long;*')
       AS inf_height;
SELECT privrisk.audit('al_infinite', ARRAY['seen', 'zip', 'age'], 'diagnosis', ARRAY['al_seen_inf', NULL, NULL], ARRAY[1, 0, 0]);
SET privrisk.audit_memory_limit = '1MB';
SELECT privrisk.audit('al_infinite', ARRAY['seen', 'zip', 'age'], 'diagnosis', ARRAY['al_seen_inf', NULL, NULL], ARRAY[1, 0, 0]);
RESET privrisk.audit_memory_limit;
-- Through a view the class reader reads through SQL: the error is raised in the read's row callback,
-- inside the SPI connection its subtransaction rolls back, and is reported from a copy that outlives it.
CREATE VIEW al_infinite_view AS SELECT * FROM al_infinite;
SELECT privrisk.audit('al_infinite_view', ARRAY['seen', 'zip', 'age'], 'diagnosis', ARRAY['al_seen_inf', NULL, NULL],
                      ARRAY[1, 0, 0]);
DROP VIEW al_infinite_view;
RESET max_parallel_workers_per_gather;
DROP TABLE al_infinite;
SELECT privrisk.drop_hierarchy('al_seen_inf');
DROP FUNCTION read_and_spilled;
ALTER TABLE al DROP COLUMN ill, DROP COLUMN seen, DROP COLUMN severity;
SELECT privrisk.drop_hierarchy('al_ill'), privrisk.drop_hierarchy('al_seen'), privrisk.drop_hierarchy('al_seen_part');

-- Under a case-insensitive collation 'a' = 'A', but gen() looks each up by its bytes: here 'a'
-- generalizes to x and 'A' to y. The spilling GROUP BY finds and joins values byte for byte too.
CREATE COLLATION al_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE al_cased AS
SELECT (ARRAY['a', 'A'])[1 + g % 2] COLLATE al_ci AS nm, g % 25001 AS id, (g % 3)::text AS s
FROM generate_series(1, 60000) AS g;
SELECT privrisk.load_hierarchy('al_nm', E'a;x;*\nA;y;*') AS nm_height;
SELECT privrisk.audit('al_cased', ARRAY['nm', 'id'], 's', ARRAY['al_nm', NULL], ARRAY[1, 0]) AS cased_read \gset
SET privrisk.audit_memory_limit = '1MB';
SELECT privrisk.audit('al_cased', ARRAY['nm', 'id'], 's', ARRAY['al_nm', NULL], ARRAY[1, 0]) AS cased_spilled \gset
RESET privrisk.audit_memory_limit;
SELECT :'cased_read'::jsonb = :'cased_spilled'::jsonb AS same, (:'cased_read'::jsonb)->'classes' AS classes,
       (SELECT count(*) FROM (SELECT DISTINCT privrisk.gen(nm, 'al_nm', 1), id FROM al_cased) AS c) AS classes_by_gen;
-- The same column without a hierarchy: the class reader keys it by its bytes, and so does the GROUP BY.
SELECT privrisk.audit('al_cased', ARRAY['nm', 'id'], 's') AS cased_read \gset
SET privrisk.audit_memory_limit = '1MB';
SELECT privrisk.audit('al_cased', ARRAY['nm', 'id'], 's') AS cased_spilled \gset
RESET privrisk.audit_memory_limit;
SELECT :'cased_read'::jsonb = :'cased_spilled'::jsonb AS same, (:'cased_read'::jsonb)->'classes' AS classes;
DROP TABLE al_cased;
DROP COLLATION al_ci;
SELECT privrisk.drop_hierarchy('al_nm');

-- A view whose rows change from read to read (a volatile function): the spilling GROUP BY,
-- which reads it twice, says so rather than guess.
SELECT privrisk.prefix_hierarchy('al_rnd', 32) AS rnd_height;
CREATE VIEW al_random AS SELECT md5(random()::text) AS r, sex, diagnosis FROM al;
SET privrisk.audit_memory_limit = '1MB';
SELECT privrisk.audit('al_random', ARRAY['r', 'sex'], 'diagnosis', ARRAY['al_rnd', NULL], ARRAY[1, 0]);
RESET privrisk.audit_memory_limit;
DROP VIEW al_random;
SELECT privrisk.drop_hierarchy('al_rnd');

-- A value the hierarchy lacks fails the read with the one error that counts them all,
-- in the class reader and in the spilling GROUP BY alike.
INSERT INTO al VALUES (30, '99999', 'F', 'flu'), (31, '99998', 'M', 'flu');
SELECT privrisk.audit('al', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0]);
SET privrisk.audit_memory_limit = '1MB';
SELECT privrisk.audit('al', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0]);
RESET privrisk.audit_memory_limit;

DROP FUNCTION audit_both;
DROP TABLE al;
SELECT privrisk.drop_hierarchy('al_age'), privrisk.drop_hierarchy('al_zip');
