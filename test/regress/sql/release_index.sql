-- Index paths under a release scan (docs/release.md, "Index paths"): which quals
-- read the source through an index, and that the rows are those of the full read.
SET client_min_messages = warning;
CREATE TABLE ix_patients(id int PRIMARY KEY, age int, zip text, diagnosis text, ssn text);
INSERT INTO ix_patients
SELECT i, 17 + i % 70, lpad((10000 + i % 900)::text, 5, '0'), (ARRAY['flu', 'cold', 'asthma'])[1 + i % 3],
       'S' || i
FROM generate_series(1, 20000) AS i;
INSERT INTO ix_patients VALUES (20001, NULL, NULL, NULL, NULL);
UPDATE ix_patients SET age = 95 WHERE id % 1000 = 0;  -- 20 patients in their nineties
CREATE INDEX ix_patients_age ON ix_patients(age);
CREATE INDEX ix_patients_diagnosis ON ix_patients(diagnosis);
CREATE INDEX ix_patients_ssn ON ix_patients(ssn);
ANALYZE ix_patients;
SELECT privrisk.load_hierarchy('ix_age', (SELECT string_agg(a || ';' || (a / 10 * 10) || '-' || (a / 10 * 10 + 9) || ';*', E'\n')
                                          FROM generate_series(0, 120) AS a));
SELECT privrisk.prefix_hierarchy('ix_zip', 5);
SELECT privrisk.create_policy('ix_policy', 'ix_patients');
SELECT privrisk.add_rule('ix_policy', 'age', 'gen', 'false', 'ix_age', 1);
SELECT privrisk.add_rule('ix_policy', 'zip', 'gen', 'false', 'ix_zip', 2);
SELECT privrisk.add_rule('ix_policy', 'diagnosis', 'hide', 'id % 2 = 0');
SELECT privrisk.add_rule('ix_policy', 'ssn', 'hide');
SELECT privrisk.create_release_view('ix_policy', 'ix_release');

-- The primary key of a column released as it is: the index, its condition shown.
EXPLAIN (COSTS OFF) SELECT * FROM ix_release WHERE id = 4242;
SELECT * FROM ix_release WHERE id = 4242;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ix_release WHERE id BETWEEN 1000 AND 1099;
SELECT count(*), min(id), max(id) FROM ix_release WHERE id BETWEEN 1000 AND 1099;
EXPLAIN (COSTS OFF) SELECT id FROM ix_release WHERE id IN (3, 5, 7);
SELECT id, age FROM ix_release WHERE id IN (3, 5, 7) ORDER BY id;
-- A label of a column generalized in every row: the raw column's index, on the leaves under it.
EXPLAIN (COSTS OFF) SELECT id, age FROM ix_release WHERE age = '90-99';
SELECT count(*), min(id), max(id) FROM ix_release WHERE age = '90-99';
EXPLAIN (COSTS OFF) SELECT count(*) FROM ix_release WHERE age = '80-89' AND id < 300;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ix_release WHERE age IN ('80-89', '0-9');
SELECT count(*) FROM ix_release WHERE age IN ('80-89', '0-9');
-- Never on a hidden, conditionally hidden or prefix-generalized column: the rows would be
-- read by values the release does not show (each is a full read with the qual above).
EXPLAIN (COSTS OFF) SELECT * FROM ix_release WHERE ssn = 'S42';
SELECT count(*) FROM ix_release WHERE ssn = 'S42';
EXPLAIN (COSTS OFF) SELECT * FROM ix_release WHERE diagnosis = 'flu' AND id > 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ix_release WHERE zip = '100**';
-- A join of keys: a nested loop whose inner side reads the index once per key.
CREATE TABLE ix_keys AS SELECT i * 7 AS k FROM generate_series(1, 50) AS i;
ANALYZE ix_keys;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ix_keys JOIN ix_release r ON r.id = ix_keys.k;
SELECT count(*), sum(r.id) FROM ix_keys JOIN ix_release r ON r.id = ix_keys.k;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- The rows with and without the index are the same (the view is planned when each table is made).
CREATE TEMP VIEW ix_queries AS
SELECT 'point' AS q, * FROM ix_release WHERE id = 4242
UNION ALL SELECT 'range', * FROM ix_release WHERE id BETWEEN 1000 AND 1099
UNION ALL SELECT 'label', * FROM ix_release WHERE age = '80-89' AND id < 300
UNION ALL SELECT 'null', * FROM ix_release WHERE id = NULL
UNION ALL SELECT 'nineties', * FROM ix_release WHERE age = '90-99';
CREATE TEMP TABLE ix_with AS SELECT * FROM ix_queries;
SET privrisk.release_index_scans = off;
EXPLAIN (COSTS OFF) SELECT * FROM ix_release WHERE id = 4242;
CREATE TEMP TABLE ix_without AS SELECT * FROM ix_queries;
RESET privrisk.release_index_scans;
SELECT (SELECT count(*) FROM ix_with) AS rows_with, (SELECT count(*) FROM ix_without) AS rows_without,
       (SELECT count(*) FROM (SELECT * FROM ix_with EXCEPT ALL SELECT * FROM ix_without) d) AS only_with,
       (SELECT count(*) FROM (SELECT * FROM ix_without EXCEPT ALL SELECT * FROM ix_with) d) AS only_without;
-- A plan made before its column was hidden does not read by it: the scan checks the policy
-- at every start and reads the whole source instead.
PREPARE ix_point(int) AS SELECT id, age FROM ix_release WHERE id = $1;
SET plan_cache_mode = force_generic_plan;
EXECUTE ix_point(4242);
SELECT privrisk.add_rule('ix_policy', 'id', 'hide', 'false');
EXPLAIN (COSTS OFF) EXECUTE ix_point(4242);
EXECUTE ix_point(4242);
RESET plan_cache_mode;
DEALLOCATE ix_point;
SELECT privrisk.drop_policy('ix_policy', cascade => true);
DROP TABLE ix_patients, ix_keys;
SELECT privrisk.drop_hierarchy('ix_age');
SELECT privrisk.drop_hierarchy('ix_zip');

-- A raw value may be an inner label of the tree (rows inserted after add_rule checked the
-- column's coverage): it is released as its label at the rule's level, so a label's index
-- read lists it with the leaves (found by a hostile test: leaves only missed these rows).
-- With record suppression, the class counted through the index then has them too.
CREATE TABLE ix_region (id int PRIMARY KEY, region text, dx text);
CREATE INDEX ix_region_region ON ix_region (region);
SELECT privrisk.load_hierarchy('ix_region_h', E'fr;EU;*\nde;EU;*\nus;AM;*\nca;AM;*');
INSERT INTO ix_region VALUES (1, 'fr', 'a'), (4, 'us', 'b'), (5, 'us', 'b'), (6, 'ca', 'b');
SELECT privrisk.create_policy('ix_region', 'ix_region');
SELECT privrisk.add_rule('ix_region', 'region', 'gen', 'false', 'ix_region_h', 1);
INSERT INTO ix_region VALUES (2, 'EU', 'a'), (3, 'EU', 'a');
ANALYZE ix_region;
SELECT privrisk.create_release_view('ix_region', 'ix_region_view');
SET enable_seqscan = off;
SELECT * FROM ix_region_view WHERE region = 'EU' ORDER BY id;
SET privrisk.release_index_scans = off;
SELECT * FROM ix_region_view WHERE region = 'EU' ORDER BY id;
RESET privrisk.release_index_scans;
-- Class EU has 3 rows (fr, EU, EU): kept at k = 3 whether counted by class or in full.
SELECT privrisk.set_suppression('ix_region', ARRAY['region'], '{"k": 3, "max_suppression": 1}');
SELECT 'by class' AS counted, * FROM ix_region_view WHERE id = 1;
SET privrisk.release_suppression_by_class = off;
SELECT 'in full' AS counted, * FROM ix_region_view WHERE id = 1;
RESET privrisk.release_suppression_by_class;
-- With three more leaves of other diagnoses and six more 'EU' rows of 'a', class EU is a x9,
-- b, c, d: entropy l below 3, withheld by class and in full (its leaves alone, a, b, c, d,
-- would pass: the rows an index read of leaves only missed decide it).
INSERT INTO ix_region VALUES (7, 'fr', 'b'), (8, 'fr', 'c'), (9, 'de', 'd');
INSERT INTO ix_region SELECT 10 + i, 'EU', 'a' FROM generate_series(1, 6) AS i;
SELECT privrisk.set_suppression('ix_region', ARRAY['region'], '{"k": 2, "l": 3, "l_kind": "entropy", "max_suppression": 1}', 'dx');
SELECT 'by class' AS counted, * FROM ix_region_view WHERE id = 1;
SET privrisk.release_suppression_by_class = off;
SELECT 'in full' AS counted, * FROM ix_region_view WHERE id = 1;
RESET privrisk.release_suppression_by_class;
RESET enable_seqscan;
SELECT privrisk.drop_policy('ix_region', cascade => true);
DROP TABLE ix_region;
SELECT privrisk.drop_hierarchy('ix_region_h');
