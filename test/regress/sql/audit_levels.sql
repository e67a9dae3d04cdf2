-- audit() with hierarchies (docs/measures.md): the class reader's level-0 classes,
-- each distinct value generalized once in C++, rolled up to the audited levels,
-- with no call of gen() per row. Past privrisk.audit_memory_limit it groups by
-- gen() in SQL instead (a NOTICE says so): both reads must give the same audit,
-- whatever the levels, NULLs, sensitive column and number of workers.
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
-- of gen() it made: none), then the same audit grouped by gen() in SQL past a 1 MB limit.
CREATE FUNCTION audit_both(levels int[], sensitive text, workers int,
                           OUT same boolean, OUT reader_gen_calls bigint, OUT spill_gen_calls bigint, OUT k int)
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
    IF NOT same THEN
        RAISE WARNING 'levels %, sensitive %: % vs %', levels, sensitive, read, spilled;
    END IF;
END $$;

SELECT l.levels, s.sensitive, w.workers, a.same, a.reader_gen_calls, a.spill_gen_calls > 0 AS spill_called_gen, a.k
FROM (VALUES (ARRAY[1, 1, 0]), (ARRAY[0, 2, 0]), (ARRAY[2, 0, 0]), (ARRAY[3, 3, 0]), (ARRAY[1, 3, 0])) AS l(levels),
     (VALUES ('diagnosis'), (NULL)) AS s(sensitive),
     (VALUES (0), (2)) AS w(workers),
     LATERAL audit_both(l.levels, s.sensitive, w.workers) AS a
ORDER BY 1, 2, 3;

-- In parallel mode (audit() above a Gather) no subtransaction may start, which the class
-- reader's fallbacks need: audit() reads through SQL there, with the same result.
CREATE TABLE alp AS SELECT * FROM al LIMIT 5000;
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF)
SELECT privrisk.audit('alp', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0])
FROM alp LIMIT 1;
SELECT privrisk.audit('alp', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0])
       AS in_parallel_mode
FROM alp LIMIT 1 \gset
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SELECT :'in_parallel_mode'::jsonb
       = privrisk.audit('alp', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0])
       AS same_in_parallel_mode, (:'in_parallel_mode'::jsonb)->'k_anonymity' AS k;
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
SELECT s.sensitive, w.workers, a.same, a.reader_gen_calls, a.spill_gen_calls > 0 AS spill_called_gen, a.k
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
ALTER TABLE al DROP COLUMN ill, DROP COLUMN seen, DROP COLUMN severity;
SELECT privrisk.drop_hierarchy('al_ill'), privrisk.drop_hierarchy('al_seen'), privrisk.drop_hierarchy('al_seen_part');

-- A value the hierarchy lacks fails the read with the one error that counts them all.
INSERT INTO al VALUES (30, '99999', 'F', 'flu'), (31, '99998', 'M', 'flu');
SELECT privrisk.audit('al', ARRAY['age', 'zip', 'sex'], 'diagnosis', ARRAY['al_age', 'al_zip', NULL], ARRAY[1, 1, 0]);

DROP FUNCTION audit_both;
DROP TABLE al;
SELECT privrisk.drop_hierarchy('al_age'), privrisk.drop_hierarchy('al_zip');
