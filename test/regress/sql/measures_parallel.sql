-- Measures in parallel plans: level 1 (hist per class) and level 2 (measures over
-- classes) on 1,000,000 rows give exactly the serial plan's results.
SELECT setseed(0.3);
CREATE TABLE people AS
SELECT i AS id, (17 + floor(random() * 60))::int AS age, (ARRAY['F', 'M'])[1 + floor(random() * 2)::int] AS sex,
       (1 + floor(random() * 5))::int AS race, lpad((floor(random() * 40))::int::text, 2, '0') AS zip,
       CASE WHEN random() < 0.02 THEN NULL ELSE 'job' || floor(random() * random() * 14)::int END AS occupation
FROM generate_series(1, 1000000) AS i;
ANALYZE people;

CREATE VIEW measures AS
SELECT count(*) AS classes, privrisk.k_anonymity(h) AS k, privrisk.prosecutor_risk(h) AS prosecutor,
       privrisk.average_risk(h) AS average, privrisk.records_at_risk(h, 0.01) AS at_risk,
       privrisk.l_diversity(h) AS l_distinct, privrisk.l_diversity(h, 'entropy') AS l_entropy,
       privrisk.l_diversity(h, 'recursive', 3) AS l_recursive, privrisk.t_closeness(h) AS t_equal,
       privrisk.delta_disclosure(h) AS delta, privrisk.a_know(h) AS a_know, privrisk.a_acc(h) AS a_acc,
       privrisk.information_gain(h) AS gain, privrisk.ck_disclosure_curve(h, 5) AS ck_curve,
       privrisk.neg_disclosure_curve(h, 5) AS neg_curve, privrisk.ck_worst_case(h, 2) AS ck_witness
FROM (SELECT privrisk.hist(occupation) AS h FROM people GROUP BY age, sex, race, zip) AS c;

SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial AS SELECT * FROM measures;
CREATE TEMP TABLE serial_audit AS
SELECT privrisk.audit('people', ARRAY['age', 'sex', 'race', 'zip'], 'occupation') AS result;
SELECT privrisk.interval_hierarchy('people_age', 0, 100, ARRAY[10]);
CREATE TEMP TABLE serial_audit_few AS
SELECT privrisk.audit('people', ARRAY['age', 'sex', 'race'], 'occupation', ARRAY['people_age', NULL, NULL], ARRAY[1, 0, 0])
       AS result;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;  -- every row goes through a worker's partial state
EXPLAIN (COSTS OFF) SELECT * FROM measures;
CREATE TEMP TABLE parallel AS SELECT * FROM measures;
CREATE TEMP TABLE parallel_audit AS
SELECT privrisk.audit('people', ARRAY['age', 'sex', 'race', 'zip'], 'occupation') AS result;
-- A table's own columns are read from its heap by audit()'s own parallel read
-- (test/integration/parallel_read_test.cpp); so are generalized ones, by the
-- class reader, each distinct value then generalized once (audit_levels.sql).
-- class_tally, whose partial tallies workers build and the leader merges, is
-- what shards run (docs/scale-out.md; test/shards/run_shards.py).
EXPLAIN (COSTS OFF) SELECT privrisk.class_tally(occupation, privrisk.gen(age, 'people_age', 1), sex, race) FROM people;
SELECT privrisk.audit('people', ARRAY['age', 'sex', 'race'], 'occupation', ARRAY['people_age', NULL, NULL], ARRAY[1, 0, 0])
       = (SELECT result FROM serial_audit_few) AS reader_identical;
-- Past privrisk.audit_memory_limit the read gives up and audit() groups with a
-- spilling GROUP BY instead: the same result.
SET privrisk.audit_memory_limit = '1MB';
SELECT privrisk.audit('people', ARRAY['age', 'sex', 'race'], 'occupation', ARRAY['people_age', NULL, NULL], ARRAY[1, 0, 0])
       = (SELECT result FROM serial_audit_few) AS fallback_identical;
RESET privrisk.audit_memory_limit;
-- audit() reads a table straight from its heap; through a view it runs a query: the same result.
CREATE VIEW people_view AS SELECT * FROM people;
SELECT privrisk.audit('people_view', ARRAY['age', 'sex', 'race', 'zip'], 'occupation') = (SELECT result FROM serial_audit)
       AS heap_read_equals_query;
DROP VIEW people_view;

-- Level 2 alone in parallel: the classes in a table, the measures' partial states combined.
CREATE TABLE classes AS SELECT privrisk.hist(occupation) AS h FROM people GROUP BY age, sex, race, zip;
ANALYZE classes;
EXPLAIN (COSTS OFF) SELECT privrisk.a_know(h), privrisk.k_anonymity(h), privrisk.average_risk(h),
                           privrisk.l_diversity(h) FROM classes;
EXPLAIN (COSTS OFF) SELECT privrisk.ck_disclosure_curve(h, 13) FROM classes;
CREATE TEMP TABLE parallel_level2 AS
SELECT privrisk.a_know(h), privrisk.information_gain(h), privrisk.k_anonymity(h), privrisk.average_risk(h),
       privrisk.l_diversity(h, 'entropy'), privrisk.t_closeness(h), privrisk.delta_disclosure(h),
       privrisk.ck_disclosure_curve(h, 13), privrisk.neg_disclosure_curve(h, 13), privrisk.ck_safe(h, 0.9, 3),
       privrisk.ck_worst_case(h, 3) FROM classes;
RESET ALL;
CREATE TEMP TABLE serial_level2 AS
SELECT privrisk.a_know(h), privrisk.information_gain(h), privrisk.k_anonymity(h), privrisk.average_risk(h),
       privrisk.l_diversity(h, 'entropy'), privrisk.t_closeness(h), privrisk.delta_disclosure(h),
       privrisk.ck_disclosure_curve(h, 13), privrisk.neg_disclosure_curve(h, 13), privrisk.ck_safe(h, 0.9, 3),
       privrisk.ck_worst_case(h, 3) FROM classes;

-- Identical, not merely close.
SELECT (SELECT count(*) FROM (SELECT * FROM serial EXCEPT SELECT * FROM parallel) AS d) AS level1_differences,
       (SELECT count(*) FROM (SELECT * FROM serial_level2 EXCEPT SELECT * FROM parallel_level2) AS d) AS level2_differences,
       (SELECT result FROM serial_audit) = (SELECT result FROM parallel_audit) AS audit_identical,
       abs((SELECT a_know FROM serial) - (SELECT (result->>'a_know')::float8 FROM serial_audit)) < 1e-12
           AS audit_matches_aggregates;
SELECT classes, k, l_distinct, l_recursive, round(a_know::numeric, 6) AS a_know, round(gain::numeric, 6) AS gain
FROM serial;
SELECT (SELECT ck_curve FROM serial) =
       (ARRAY(SELECT jsonb_array_elements_text((SELECT result->'ck_disclosure_curve' FROM serial_audit))::float8))[1:6]
           AS audit_curve_identical,
       array_length((SELECT ck_curve FROM serial), 1) AS curve_length;

DROP VIEW measures;
DROP TABLE people, classes;
SELECT privrisk.drop_hierarchy('people_age');
