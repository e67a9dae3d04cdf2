-- Record suppression in releases (docs/release.md, "Record suppression"): on UCI
-- Adult (45,222 complete rows, ARX's 8 quasi-identifiers, salary_class sensitive),
-- search with max_suppression 0.02 → apply_generalization → release view → read
-- as an analyst: the released rows' audit equals the search's result; rows
-- inserted later that make small classes are withheld at the next read, the
-- numbers checked against a GROUP BY over the source written here.
\i scripts/adult-uci.sql
\i test/regress/adult_hierarchies.psql
SELECT privrisk.load_hierarchy('sup_age', :'age') AS age, privrisk.load_hierarchy('sup_workclass', :'workclass') AS workclass,
       privrisk.load_hierarchy('sup_education', :'education') AS education,
       privrisk.load_hierarchy('sup_marital', :'marital') AS marital,
       privrisk.load_hierarchy('sup_occupation', :'occupation') AS occupation,
       privrisk.load_hierarchy('sup_race', :'race') AS race, privrisk.load_hierarchy('sup_sex', :'sex') AS sex,
       privrisk.load_hierarchy('sup_country', :'country') AS country;
SECURITY LABEL FOR privrisk ON COLUMN adult.age IS 'quasi_identifier(sup_age)';
SECURITY LABEL FOR privrisk ON COLUMN adult.workclass IS 'quasi_identifier(sup_workclass)';
SECURITY LABEL FOR privrisk ON COLUMN adult.education IS 'quasi_identifier(sup_education)';
SECURITY LABEL FOR privrisk ON COLUMN adult.marital_status IS 'quasi_identifier(sup_marital)';
SECURITY LABEL FOR privrisk ON COLUMN adult.occupation IS 'quasi_identifier(sup_occupation)';
SECURITY LABEL FOR privrisk ON COLUMN adult.race IS 'quasi_identifier(sup_race)';
SECURITY LABEL FOR privrisk ON COLUMN adult.sex IS 'quasi_identifier(sup_sex)';
SECURITY LABEL FOR privrisk ON COLUMN adult.native_country IS 'quasi_identifier(sup_country)';
SECURITY LABEL FOR privrisk ON COLUMN adult.salary_class IS 'sensitive';

-- The search: public_use_file (k = 5, ℓ = 2) with up to 2% of the rows suppressed.
CREATE TABLE sup_found AS
SELECT privrisk.search('adult', constraints => '{"max_suppression": 0.02}', profile => 'public_use_file') AS r;
SELECT r->'found' AS found, r->'result'->'levels' AS levels, r->'result'->'rows_suppressed' AS suppressed,
       r->'result'->'measures'->'k_anonymity' AS k, r->'result'->'measures'->'classes' AS classes,
       r->'sensitive' AS sensitive, r->'constraints' AS constraints
FROM sup_found;

-- The README's own create_policy first: apply_generalization adds to it (one rule per
-- quasi-identifier, level 0 included) and stores the suppression rule.
SELECT privrisk.create_policy('adult_release', 'adult');
SELECT privrisk.apply_generalization('adult_release', r) AS rules FROM sup_found;
SELECT column_name, operator, condition, hierarchy, level FROM privrisk.policy_rule
WHERE policy = 'public.adult_release' ORDER BY rule;
SELECT quasi_identifiers, sensitive, constraints FROM privrisk.policy_suppression;
SELECT privrisk.add_rule('adult_release', 'salary_class', 'hide', 'true');  -- the sensitive column, disclosed
SELECT privrisk.create_release_view('adult_release', 'adult_public');
CREATE ROLE regress_sup_analyst;
GRANT SELECT ON adult_public TO regress_sup_analyst;

-- The same classes computed here, from the source, with the node's levels: a class is the
-- tuple of released values; it violates when it has < 5 rows or one salary class only.
CREATE FUNCTION sup_expected() RETURNS TABLE (rows bigint, suppressed bigint, classes bigint, k bigint)
LANGUAGE sql AS $$
    WITH lv AS (SELECT (r->'result'->'levels'->>'age')::int AS l_age, (r->'result'->'levels'->>'workclass')::int AS wc,
                       (r->'result'->'levels'->>'education')::int AS ed, (r->'result'->'levels'->>'marital_status')::int AS ms,
                       (r->'result'->'levels'->>'occupation')::int AS oc, (r->'result'->'levels'->>'race')::int AS ra,
                       (r->'result'->'levels'->>'sex')::int AS sx, (r->'result'->'levels'->>'native_country')::int AS nc
                FROM sup_found),
    cls AS (SELECT count(*) AS n, count(DISTINCT salary_class) AS l
            FROM adult, lv
            GROUP BY privrisk.gen(age, 'sup_age', lv.l_age), privrisk.gen(workclass, 'sup_workclass', lv.wc),
                     privrisk.gen(education, 'sup_education', lv.ed), privrisk.gen(marital_status, 'sup_marital', lv.ms),
                     privrisk.gen(occupation, 'sup_occupation', lv.oc), privrisk.gen(race, 'sup_race', lv.ra),
                     privrisk.gen(sex, 'sup_sex', lv.sx), privrisk.gen(native_country, 'sup_country', lv.nc))
    SELECT sum(n), sum(n) FILTER (WHERE n < 5 OR l < 2), count(*) FILTER (WHERE n >= 5 AND l >= 2),
           min(n) FILTER (WHERE n >= 5 AND l >= 2)
    FROM cls
$$;
CREATE TABLE sup_before AS SELECT * FROM sup_expected();
SELECT * FROM sup_before;
GRANT SELECT ON sup_found, sup_before TO regress_sup_analyst;

-- As the analyst: the released rows' audit is the search's result, and the GROUP BY's.
SET ROLE regress_sup_analyst;
CREATE TEMP TABLE sup_audit AS
SELECT privrisk.audit('adult_public', ARRAY['age', 'workclass', 'education', 'marital_status', 'occupation', 'race',
                                            'sex', 'native_country'], 'salary_class', profile => 'public_use_file') AS a;
SELECT (a->>'rows')::int8 = (f.r->'result'->>'rows')::int8 - (f.r->'result'->>'rows_suppressed')::int8 AS rows_match,
       a->'rows_suppressed' = f.r->'result'->'rows_suppressed' AS suppressed_match,
       a->'classes' = f.r->'result'->'measures'->'classes' AS classes_match,
       a->'k_anonymity' = f.r->'result'->'measures'->'k_anonymity' AS k_match,
       (a->>'rows_suppressed')::int8 = e.suppressed AND (a->>'classes')::int8 = e.classes
           AND (a->>'k_anonymity')::int8 = e.k AS group_by_match,
       a->'rows_suppressed' AS rows_suppressed, a->'verdict'->>'summary' AS verdict
FROM sup_audit, sup_found AS f, sup_before AS e;
SELECT measure, value, threshold, passed FROM privrisk.check('adult_public', 'public_use_file',
    ARRAY['age', 'workclass', 'education', 'marital_status', 'occupation', 'race', 'sex', 'native_country'],
    'salary_class') ORDER BY measure;
SELECT count(*) AS released FROM adult_public;
RESET ROLE;

-- The analyst's audit of the view against counts the test computed from the source (sup_expected()).
CREATE FUNCTION sup_audit_against(expected regclass)
RETURNS TABLE (rows_match boolean, suppressed_match boolean, classes_match boolean, k_match boolean,
               rows_suppressed jsonb, verdict text)
LANGUAGE plpgsql AS $$
DECLARE e record;
BEGIN
    EXECUTE format('SELECT * FROM %s', expected) INTO e;
    RETURN QUERY
    SELECT (a->>'rows')::int8 = e.rows - e.suppressed, (a->>'rows_suppressed')::int8 = e.suppressed,
           (a->>'classes')::int8 = e.classes, (a->>'k_anonymity')::int8 = e.k, a->'rows_suppressed', a->'verdict'->>'summary'
    FROM privrisk.audit('adult_public', ARRAY['age', 'workclass', 'education', 'marital_status', 'occupation', 'race',
                                              'sex', 'native_country'], 'salary_class', profile => 'public_use_file') AS a;
END $$;

-- The table grows by 2,000 rows after the view was made: 1,960 more people like those in it
-- (copies of existing rows, negative ids, joining their classes) and 40 with rare combinations (small new
-- classes). The next read withholds the small classes; within the 2% budget it stays publishable,
-- and its audit is again the GROUP BY's.
CREATE TEMP TABLE sup_copies AS SELECT * FROM adult WHERE id % 23 = 0 ORDER BY id LIMIT 1960;
UPDATE sup_copies SET id = -id;
INSERT INTO adult SELECT * FROM sup_copies;
INSERT INTO adult SELECT -100000 - i, 80 + i % 10, 'Never-worked', 1, 'Preschool', 1, 'Married-AF-spouse', 'Armed-Forces', 'Unmarried',
       'Amer-Indian-Eskimo', 'Female', 0, 0, 40, 'Holand-Netherlands', '>50K'
FROM generate_series(1, 40) AS i;
SELECT count(*) AS rows FROM adult;
CREATE TABLE sup_grown AS SELECT * FROM sup_expected();
SELECT * FROM sup_grown;
GRANT SELECT ON sup_grown TO regress_sup_analyst;
SET ROLE regress_sup_analyst;
SELECT * FROM sup_audit_against('sup_grown');
SELECT count(*) FILTER (WHERE id < -100000) AS rare_released, count(*) FILTER (WHERE id BETWEEN -100000 AND -1) AS copies_released
FROM adult_public;
RESET ROLE;

-- 2,000 rows that make small classes (rare combinations), inserted after the view was made.
INSERT INTO adult (id, age, workclass, fnlwgt, education, education_num, marital_status, occupation, relationship, race,
                   sex, capital_gain, capital_loss, hours_per_week, native_country, salary_class)
SELECT 100000 + i, 17 + i % 73, (ARRAY['Without-pay', 'Federal-gov', 'Self-emp-inc'])[1 + i % 3], 1,
       (ARRAY['Preschool', '1st-4th', 'Doctorate', '5th-6th'])[1 + i % 4], 1,
       (ARRAY['Married-AF-spouse', 'Widowed', 'Separated'])[1 + i % 3],
       (ARRAY['Armed-Forces', 'Priv-house-serv', 'Protective-serv'])[1 + i % 3],
       'Unmarried', (ARRAY['Other', 'Amer-Indian-Eskimo'])[1 + i % 2], (ARRAY['Female', 'Male'])[1 + i % 2], 0, 0, 40,
       (ARRAY['Holand-Netherlands', 'Honduras', 'Laos', 'Scotland', 'Hungary'])[1 + i % 5],
       (ARRAY['<=50K', '>50K'])[1 + i % 2]
FROM generate_series(1, 2000) AS i;
CREATE TABLE sup_after AS SELECT * FROM sup_expected();
SELECT * FROM sup_after;
GRANT SELECT ON sup_after TO regress_sup_analyst;

-- The next read withholds them: its audit is the GROUP BY's; past max_suppression the
-- rows are withheld all the same and the verdict fails, saying why.
SET ROLE regress_sup_analyst;
SELECT * FROM sup_audit_against('sup_after');
SELECT measure, passed FROM privrisk.check('adult_public', 'public_use_file',
    ARRAY['age', 'workclass', 'education', 'marital_status', 'occupation', 'race', 'sex', 'native_country'],
    'salary_class') ORDER BY measure;
SELECT count(*) AS released, count(*) FILTER (WHERE id > 100000) AS inserted_released FROM adult_public;
-- A parallel read gives the rows of a serial one (each worker decides from the same snapshot).
CREATE TEMP TABLE sup_serial AS SELECT id, age, education, native_country FROM adult_public;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT id, age, education, native_country FROM adult_public;
CREATE TEMP TABLE sup_parallel AS SELECT id, age, education, native_country FROM adult_public;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather; RESET parallel_leader_participation;
SELECT (SELECT count(*) FROM sup_serial) AS serial, (SELECT count(*) FROM sup_parallel) AS parallel,
       (SELECT count(*) FROM (SELECT * FROM sup_serial EXCEPT SELECT * FROM sup_parallel) AS d) AS only_serial,
       (SELECT count(*) FROM (SELECT * FROM sup_parallel EXCEPT SELECT * FROM sup_serial) AS d) AS only_parallel;
-- EXPLAIN without ANALYZE counts nothing (and says the release suppresses).
EXPLAIN (COSTS OFF) SELECT count(*) FROM adult_public;
RESET ROLE;

-- A WHERE on the view does not change which rows are withheld: zip 'A' (4 rows, k = 3) stays
-- released when the filter keeps 2 of its rows; zip 'C' (1 row) stays withheld when the filter
-- selects only it; a filter on a column the class does not read changes nothing either.
CREATE TABLE sup_where (id int, zip text, note text);
INSERT INTO sup_where VALUES (1, 'A', 'x'), (2, 'A', 'y'), (3, 'A', 'x'), (4, 'A', 'y'), (5, 'B', 'x'), (6, 'B', 'y'),
                             (7, 'B', 'x'), (8, 'C', 'x');
SELECT privrisk.create_policy('sup_where', 'sup_where');
SELECT privrisk.add_rule('sup_where', 'zip', 'hide', 'true');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '{"k": 3, "max_suppression": 0.5}');
SELECT privrisk.create_release_view('sup_where', 'sup_where_view');
SELECT id, zip FROM sup_where_view WHERE id IN (1, 2) ORDER BY id;
SELECT id, zip FROM sup_where_view WHERE zip = 'C';
SELECT id, zip FROM sup_where_view WHERE id = 8;
SELECT zip, count(*) FROM sup_where_view WHERE note = 'x' GROUP BY zip ORDER BY zip;
SELECT count(*) AS released FROM sup_where_view;
-- A rescan (the inner side of a nested loop) keeps the decision.
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT count(*) AS pairs FROM sup_where_view AS a JOIN sup_where_view AS b ON a.zip = b.zip;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;
-- Classes of released values: 'A' and 'B' generalized to one value make one class of 7 with k = 5 …
SELECT privrisk.load_hierarchy('sup_zip', E'A;AB;*\nB;AB;*\nC;C;*');
SELECT privrisk.create_policy('sup_where_gen', 'sup_where');
SELECT privrisk.add_rule('sup_where_gen', 'zip', 'gen', 'false', 'sup_zip', 1);
SELECT privrisk.set_suppression('sup_where_gen', ARRAY['zip'], '{"k": 5, "max_suppression": 0.5}');
SELECT zip, count(*) FROM privrisk.release('sup_where_gen') AS r(zip text) GROUP BY zip ORDER BY zip;
-- … and a rule whose condition discloses rows 1 and 2 as they are splits them off: 'A' (2 rows)
-- and 'C' (1) are withheld, 'AB' (rows 3 to 7) is released.
SELECT privrisk.create_policy('sup_where_split', 'sup_where');
SELECT privrisk.add_rule('sup_where_split', 'zip', 'gen', 'id <= 2', 'sup_zip', 1);
SELECT privrisk.set_suppression('sup_where_split', ARRAY['zip'], '{"k": 5, "max_suppression": 0.5}');
SELECT id, zip FROM privrisk.release('sup_where_split') AS r(id int, zip text) ORDER BY id;

-- The counts are bounded by privrisk.memory_limit: 100,000 classes of one row need more than
-- 1MB, an ERROR naming the policy before any row; EXPLAIN without ANALYZE counts nothing.
CREATE TABLE sup_many AS SELECT i AS id FROM generate_series(1, 100000) AS i;
SELECT privrisk.create_policy('sup_many', 'sup_many');
SELECT privrisk.add_rule('sup_many', 'id', 'hide', 'true');
SELECT privrisk.set_suppression('sup_many', ARRAY['id'], '{"k": 2, "max_suppression": 1}');
SET privrisk.memory_limit = '1MB';
EXPLAIN (COSTS OFF) SELECT count(*) FROM privrisk.release('sup_many') AS r(id int);
SELECT count(*) FROM privrisk.release('sup_many') AS r(id int);
RESET privrisk.memory_limit;
SELECT count(*) FROM privrisk.release('sup_many') AS r(id int);
SELECT privrisk.drop_policy('sup_many');
DROP TABLE sup_many;
-- A serial read after the count takes each row's class from the count's record of
-- it (4 bytes a row, "Suppression Rows Replayed"), kept only within privrisk.memory_limit:
-- past it, the read finds each row's class by its values. The same rows either way:
-- class 99 (one row) withheld, the other 300,000 released.
CREATE TABLE sup_long AS SELECT i AS id, i % 7 AS g FROM generate_series(1, 300000) AS i;
INSERT INTO sup_long VALUES (0, 99);
SELECT privrisk.create_policy('sup_long', 'sup_long');
SELECT privrisk.set_suppression('sup_long', ARRAY['g'], '{"k": 2, "max_suppression": 0.1}');
SET max_parallel_workers_per_gather = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM privrisk.release('sup_long') AS r(id int, g int);
SELECT count(*), count(*) FILTER (WHERE g = 99) AS class_99, sum(id) FROM privrisk.release('sup_long') AS r(id int, g int);
SET privrisk.memory_limit = '1MB';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM privrisk.release('sup_long') AS r(id int, g int);
SELECT count(*), count(*) FILTER (WHERE g = 99) AS class_99, sum(id) FROM privrisk.release('sup_long') AS r(id int, g int);
RESET privrisk.memory_limit;
RESET max_parallel_workers_per_gather;
SELECT privrisk.drop_policy('sup_long');
DROP TABLE sup_long;
-- A replayed row's values come from its own conditions, not from the last counted row's:
-- note is disclosed where id <> 8, and the rows with id 8, updated last, are counted last;
-- every other row of class 0 shows its note. The last rows counted (singleton classes
-- after 16 rows of class 0) are decided too: all withheld (k = 2).
CREATE TABLE sup_replay (id int, g int, note text);
INSERT INTO sup_replay SELECT i, 0, 'n' || i FROM generate_series(1, 16) AS i;
INSERT INTO sup_replay SELECT 16 + i, i, 'n' || (16 + i) FROM generate_series(1, 15) AS i;
UPDATE sup_replay SET id = 8, note = 'n8-last' WHERE id = 31;
UPDATE sup_replay SET g = 0 WHERE id = 8;
SELECT privrisk.create_policy('sup_replay', 'sup_replay');
SELECT privrisk.add_rule('sup_replay', 'note', 'hide', 'id <> 8');
SELECT privrisk.set_suppression('sup_replay', ARRAY['g'], '{"k": 2, "max_suppression": 1}');
SET max_parallel_workers_per_gather = 0;
SELECT id, g, note FROM privrisk.release('sup_replay') AS r(id int, g int, note text) ORDER BY id, note NULLS LAST;
RESET max_parallel_workers_per_gather;
SELECT privrisk.drop_policy('sup_replay');
DROP TABLE sup_replay;
-- The rule counts the column its owner approved: renamed, with a new column given its name,
-- the release is refused (also after its view is made again), and so is set_suppression until
-- the columns are approved again; then the new column counts.
CREATE TABLE sup_rename (id int, zip text);
INSERT INTO sup_rename VALUES (1, 'A'), (2, 'A'), (3, 'A'), (4, 'B'), (5, 'B'), (6, 'B'), (7, 'C');
SELECT privrisk.create_policy('sup_rename', 'sup_rename');
SELECT privrisk.set_suppression('sup_rename', ARRAY['zip'], '{"k": 3, "max_suppression": 0.5}');
SELECT privrisk.create_release_view('sup_rename', 'sup_rename_view');
SELECT count(*) FROM sup_rename_view;
ALTER TABLE sup_rename RENAME COLUMN zip TO zip_old;
ALTER TABLE sup_rename ADD COLUMN zip text;
DROP VIEW sup_rename_view;
SELECT privrisk.create_release_view('sup_rename', 'sup_rename_view');
SELECT * FROM sup_rename_view;
SELECT privrisk.set_suppression('sup_rename', ARRAY['zip'], '{"k": 3, "max_suppression": 0.5}');
SELECT privrisk.refresh_policy('sup_rename');
SELECT privrisk.set_suppression('sup_rename', ARRAY['zip'], '{"k": 3, "max_suppression": 1}');
SELECT count(*) AS released FROM sup_rename_view;  -- one class of 7 NULLs
DROP VIEW sup_rename_view;
SELECT privrisk.drop_policy('sup_rename');
DROP TABLE sup_rename;
-- A hierarchy changed during a read (here by the query itself): a release without suppression
-- goes on with the new one; a suppressing release stops (its classes were counted with the old).
CREATE TABLE sup_hier (id int, zip text);
INSERT INTO sup_hier SELECT i, (ARRAY['A', 'B', 'C', 'D'])[1 + i % 4] FROM generate_series(1, 8) AS i;
SELECT privrisk.load_hierarchy('sup_hier_zip', E'A;AB;*\nB;AB;*\nC;CD;*\nD;CD;*');
SELECT privrisk.create_policy(p, 'sup_hier') FROM unnest(ARRAY['sup_hier_plain', 'sup_hier_sup']) AS p;
SELECT privrisk.add_rule(p, 'zip', 'gen', 'false', 'sup_hier_zip', 1) FROM unnest(ARRAY['sup_hier_plain', 'sup_hier_sup']) AS p;
SELECT privrisk.set_suppression('sup_hier_sup', ARRAY['zip'], '{"k": 2, "max_suppression": 1}');
SELECT count(*), count(h), string_agg(zip, ',' ORDER BY id) AS zips
FROM (SELECT id, CASE WHEN id = 1 THEN privrisk.load_hierarchy('sup_hier_other', E'x;y;*') END AS h, zip
      FROM privrisk.release('sup_hier_plain') AS r(id int, zip text)) AS q;
SELECT count(*), count(h), string_agg(zip, ',' ORDER BY id) AS zips
FROM (SELECT id, CASE WHEN id = 1 THEN privrisk.load_hierarchy('sup_hier_other2', E'x;y;*') END AS h, zip
      FROM privrisk.release('sup_hier_sup') AS r(id int, zip text)) AS q;
SELECT privrisk.drop_policy(p) FROM unnest(ARRAY['sup_hier_plain', 'sup_hier_sup']) AS p;
SELECT privrisk.drop_hierarchy(h) FROM unnest(ARRAY['sup_hier_zip', 'sup_hier_other', 'sup_hier_other2']) AS h
WHERE h IN (SELECT name FROM privrisk.hierarchy);
DROP TABLE sup_hier;
-- A partitioned source without partitions releases no row (with suppression too).
CREATE TABLE sup_parts (id int, g int) PARTITION BY RANGE (id);
SELECT privrisk.create_policy('sup_parts', 'sup_parts');
SELECT count(*) FROM privrisk.release('sup_parts') AS r(id int, g int);
SELECT privrisk.set_suppression('sup_parts', ARRAY['g'], '{"k": 2, "max_suppression": 1}');
SELECT count(*) FROM privrisk.release('sup_parts') AS r(id int, g int);
SELECT privrisk.drop_policy('sup_parts');
DROP TABLE sup_parts;

-- Bad input: an ERROR naming the problem, nothing changed.
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '{"k": 3, "c": 0.5}');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '{"max_suppression": 0.1}');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '{"l": 2}');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '{"k": 0}');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '{"k": 3, "max_suppression": 1.5}');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '[3]');
SELECT privrisk.set_suppression('sup_where', ARRAY['nope'], '{"k": 3}');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip', 'zip'], '{"k": 3}');
SELECT privrisk.set_suppression('sup_where', '{}', '{"k": 3}');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '{"l": 2}', 'zip');
SELECT privrisk.set_suppression('sup_where', ARRAY['zip'], '{"l": 2}', 'nope');
SELECT privrisk.set_suppression('no_such_policy', ARRAY['zip'], '{"k": 3}');
SELECT quasi_identifiers, sensitive, constraints FROM privrisk.policy_suppression
WHERE policy = 'public.sup_where';
-- Not the owner: the same error as a policy that does not exist.
SET ROLE regress_sup_analyst;
SELECT privrisk.set_suppression('public.sup_where', ARRAY['zip'], '{"k": 1}');
SELECT privrisk.set_suppression('public.sup_where', ARRAY['zip'], NULL);
RESET ROLE;
-- apply_generalization: a result that found nothing, a result for another source, a
-- policy of another source, a forged node.
SELECT privrisk.apply_generalization('adult_release2', '{"source": "adult", "quasi_identifiers": ["age"], "hierarchies": ["sup_age"], "found": false, "result": null}');
SELECT privrisk.apply_generalization('sup_where', r) FROM sup_found;
SELECT privrisk.apply_generalization('adult_release2', '{"source": "adult", "quasi_identifiers": ["age", "sex"], "hierarchies": ["sup_age", "sup_sex"], "result": {"node": [1], "rows_suppressed": 0}}');
SELECT privrisk.apply_generalization('adult_release2', '{"source": "adult", "quasi_identifiers": ["age"], "hierarchies": ["sup_age"], "result": {"node": [-1], "rows_suppressed": 0}}');
SELECT privrisk.apply_generalization('adult_release2', '{"source": "public.adult", "quasi_identifiers": ["age"], "hierarchies": ["sup_age"], "result": {"node": [1], "rows_suppressed": 5}}');
SELECT privrisk.apply_generalization('adult_release2', '"x"');
SELECT privrisk.apply_generalization('adult_release2', NULL);
SELECT count(*) AS policies FROM privrisk.policy WHERE name IN ('public.adult_release2');
SELECT count(*) AS sup_where_rules FROM privrisk.policy_rule WHERE policy = 'public.sup_where';
-- Removing the rule: every row is released again.
SELECT privrisk.set_suppression('sup_where', NULL, NULL);
SELECT count(*) AS released FROM sup_where_view;

DROP VIEW sup_where_view, adult_public;
SELECT privrisk.drop_policy('sup_where'), privrisk.drop_policy('sup_where_gen'), privrisk.drop_policy('sup_where_split'), privrisk.drop_policy('adult_release');
DROP TABLE sup_where, sup_found, sup_before, sup_after;
DROP FUNCTION sup_expected(), sup_audit_against(regclass);
DROP TABLE sup_grown, sup_copies;
REVOKE ALL ON adult FROM regress_sup_analyst;
DROP TABLE sup_audit, sup_serial, sup_parallel;
DROP ROLE regress_sup_analyst;
-- The hierarchies this test loaded (other suites count theirs).
SELECT count(*) AS hierarchies_dropped FROM (SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name LIKE 'sup\_%') AS d;
