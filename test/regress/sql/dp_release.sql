-- Differentially private releases (docs/dp.md): SafePub's sampling, generalization
-- and suppression, the privacy budget and its ledger.
CREATE ROLE regress_dp_owner;
CREATE ROLE regress_dp_analyst;
GRANT CREATE ON SCHEMA public TO regress_dp_owner;
SET ROLE regress_dp_owner;
-- 1,000,000 census-like rows; zip has a long tail, so some classes are small.
CREATE TABLE dp_census AS
SELECT g AS id, 17 + (g::int8 * 7919) % 74 AS age, CASE WHEN g % 3 = 0 THEN 'F' ELSE 'M' END AS sex,
       CASE WHEN g % 10 < 9 THEN lpad(((g * 31) % 40)::text, 5, '4') ELSE lpad(((g * 17) % 3000)::text, 5, '7') END AS zip
FROM generate_series(1, 1000000) g;
ALTER TABLE dp_census SET (parallel_workers = 2);
ANALYZE dp_census;
RESET ROLE;
SELECT privrisk.interval_hierarchy('dp_age', 0, 100, ARRAY[5, 10, 20, 100]);
SELECT privrisk.prefix_hierarchy('dp_zip', 5);
GRANT SELECT ON dp_census TO regress_dp_analyst;

-- Budgets: only the owner sets one; bad values are refused.
SET ROLE regress_dp_analyst;
SELECT privrisk.set_budget('dp_census', 10, 1e-3);
SET ROLE regress_dp_owner;
SELECT privrisk.set_budget('dp_census', 0, 1e-3);
SELECT privrisk.set_budget('dp_census', 'Infinity', 1e-3);
SELECT privrisk.set_budget('dp_census', 1, 1);
SELECT privrisk.set_budget('dp_census', 1, -0.1);
SELECT privrisk.set_budget('no_such_table', 1, 1e-3);
SELECT privrisk.set_budget('dp_census', 8, 1e-2);
SELECT relation, epsilon, delta, spent_epsilon, spent_delta, set_by FROM privrisk.budget;
-- Nobody writes the budget or the ledger directly.
UPDATE privrisk.budget SET spent_epsilon = 0;
SET ROLE regress_dp_analyst;
INSERT INTO privrisk.budget_ledger(relation, spent_by, epsilon, delta, mechanism, parameters, private)
VALUES ('dp_census', 'x', 0, 0, 'safepub', '{}', true);

-- The sampling rate: with every column generalized to ⊥ there is one class, the
-- whole sample; it lies within 4 standard deviations of beta·n, for each seed.
-- (A seed repeats a sample of the same classes, wherever their rows are; the
-- counts still depend on libsodium's SipHash, so none is printed.)
SELECT epsilon, seed,
       abs(n - p.beta * 1e6) <= 4 * sqrt(1e6 * p.beta * (1 - p.beta)) AS within_4_sd
FROM (VALUES (0.5::float8, 1::int8), (1, 2), (2, 3)) AS v(epsilon, seed),
     LATERAL privrisk.dp_parameters(epsilon, 1e-4) AS p,
     LATERAL privrisk.dp_release('dp_census', ARRAY['age', 'zip'], ARRAY['dp_age', 'dp_zip'], epsilon, 1e-4,
                                 levels => ARRAY[5, 5], seed => seed, output => 'classes') AS r(age text, zip text, n bigint)
ORDER BY epsilon;

-- The released classes are exactly the classes of the seeded sample with at least
-- k rows, recomputed in plain SQL (dp_sampled_rows counts a class's sampled rows
-- as the release does); some classes of the sample are suppressed, none
-- released has fewer than k rows.
CREATE TEMP TABLE released AS
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age', 'sex', 'zip'], ARRAY['dp_age', NULL, 'dp_zip'], 1, 1e-5,
                                  levels => ARRAY[1, 0, 2], seed => 42, output => 'classes')
    AS r(age text, sex text, zip text, n bigint);
CREATE TEMP TABLE sample_classes AS
SELECT age, sex, zip, n FROM (
    SELECT age, sex, zip,
           privrisk.dp_sampled_rows(42, (SELECT beta FROM privrisk.dp_parameters(1, 1e-5)), ARRAY[age, sex, zip], n) AS n
    FROM (SELECT privrisk.gen(age, 'dp_age', 1) AS age, sex, privrisk.gen(zip, 'dp_zip', 2) AS zip, count(*) AS n
          FROM dp_census GROUP BY 1, 2, 3) AS c) AS s
WHERE n > 0;
SELECT (SELECT k FROM privrisk.dp_parameters(1, 1e-5)) AS k,
       (SELECT min(n) FROM released) >= (SELECT k FROM privrisk.dp_parameters(1, 1e-5)) AS none_below_k,
       (SELECT count(*) FROM sample_classes WHERE n < (SELECT k FROM privrisk.dp_parameters(1, 1e-5))) > 100
           AS over_100_suppressed,
       (SELECT count(*) FROM released) > 400 AS over_400_released;
SELECT count(*) AS differences FROM (
    (SELECT * FROM released EXCEPT SELECT * FROM sample_classes WHERE n >= (SELECT k FROM privrisk.dp_parameters(1, 1e-5)))
    UNION ALL
    (SELECT * FROM sample_classes WHERE n >= (SELECT k FROM privrisk.dp_parameters(1, 1e-5)) EXCEPT SELECT * FROM released)
) AS d;

-- One row more in a class adds at most one sampled row; a class of no rows
-- has none; NULL is a value of its own (⊥), not the text 'NULL'.
SELECT bool_and(d IN (0, 1)) AS grows_by_0_or_1,
       privrisk.dp_sampled_rows(42, 0.5, ARRAY['a'], 0) AS of_no_rows,
       privrisk.dp_sampled_rows(42, 0.5, ARRAY[NULL], 1000) <> privrisk.dp_sampled_rows(42, 0.5, ARRAY['NULL'], 1000)
           AS null_is_not_a_text
FROM (SELECT privrisk.dp_sampled_rows(42, 0.5, ARRAY['x', NULL], n) - privrisk.dp_sampled_rows(42, 0.5, ARRAY['x', NULL], n - 1) AS d
      FROM generate_series(1, 300) n) AS g;
SELECT privrisk.dp_sampled_rows(42, 0.5, ARRAY['a'], -1);
SELECT privrisk.dp_sampled_rows(42, 1, ARRAY['a'], 1);

-- One row per released row: as many as the classes count, class by class in a
-- random order (two seeds give two orders; no source order survives).
SELECT count(*) = (SELECT sum(n) FROM released) AS rows_match_classes
FROM privrisk.dp_release('dp_census', ARRAY['age', 'sex', 'zip'], ARRAY['dp_age', NULL, 'dp_zip'], 1, 1e-5,
                         levels => ARRAY[1, 0, 2], seed => 42) AS r(age text, sex text, zip text);
SELECT a.order_of_classes <> b.order_of_classes AS orders_differ
FROM (SELECT string_agg(concat(age, '|', sex, '|', zip), ',') AS order_of_classes
      FROM privrisk.dp_release('dp_census', ARRAY['age', 'sex', 'zip'], ARRAY['dp_age', NULL, 'dp_zip'], 0.1, 1e-3,
                               levels => ARRAY[3, 0, 5], seed => 1, output => 'classes') AS r(age text, sex text, zip text, n bigint)) a,
     (SELECT string_agg(concat(age, '|', sex, '|', zip), ',') AS order_of_classes
      FROM privrisk.dp_release('dp_census', ARRAY['age', 'sex', 'zip'], ARRAY['dp_age', NULL, 'dp_zip'], 0.1, 1e-3,
                               levels => ARRAY[3, 0, 5], seed => 2, output => 'classes') AS r(age text, sex text, zip text, n bigint)) b;
-- Unseeded runs draw from the OS: two of them sample differently (the ledger
-- records them as private).
SELECT a.counts <> b.counts AS unseeded_runs_differ
FROM (SELECT string_agg(age || ':' || n, ',' ORDER BY age) AS counts
      FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 0.1, 1e-3, levels => ARRAY[1],
                               output => 'classes') AS r(age text, n bigint)) a,
     (SELECT string_agg(age || ':' || n, ',' ORDER BY age) AS counts
      FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 0.1, 1e-3, levels => ARRAY[1],
                               output => 'classes') AS r(age text, n bigint)) b;

-- The ledger: every spend, who, what; the budget's spent sums equal the ledger's.
SELECT spent_by, epsilon, delta, mechanism, private, parameters->'levels' AS levels, parameters->'seed' AS seed,
       parameters->'k' AS k
FROM privrisk.budget_ledger ORDER BY id;
SELECT round(b.spent_epsilon::numeric, 9) = round(l.epsilon::numeric, 9) AS epsilon_adds_up,
       round(b.spent_delta::numeric, 12) = round(l.delta::numeric, 12) AS delta_adds_up,
       round(b.spent_epsilon::numeric, 6) AS spent_epsilon
FROM privrisk.budget b, (SELECT sum(epsilon) AS epsilon, sum(delta) AS delta FROM privrisk.budget_ledger) l;

-- A rolled-back release is spent all the same, also inside a savepoint: its
-- rows reached the client (sql/security_budget.sql has more).
BEGIN;
SELECT count(*) > 0 AS released FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 0.1, 1e-5,
                                                          levels => ARRAY[2], seed => 5) AS r(age text);
ROLLBACK;
BEGIN;
SAVEPOINT s;
SELECT count(*) > 0 AS released FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 0.1, 1e-5,
                                                          levels => ARRAY[2], seed => 5) AS r(age text);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT round(spent_epsilon::numeric, 6) AS spent_epsilon, (SELECT count(*) FROM privrisk.budget_ledger) AS spends
FROM privrisk.budget;
-- A release that would overspend is refused; nothing is released or spent.
SELECT count(*) FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 4, 1e-5, levels => ARRAY[2])
    AS r(age text);
SELECT round(spent_epsilon::numeric, 6) AS spent_epsilon, (SELECT count(*) FROM privrisk.budget_ledger) AS spends
FROM privrisk.budget;
-- Nor can the budget go below what was spent.
RESET ROLE;
SET ROLE regress_dp_owner;
SELECT privrisk.set_budget('dp_census', 1, 1e-3);

-- Bad input: each a clear error, nothing spent.
SET ROLE regress_dp_analyst;
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 0, 1e-5, levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], -1, 1e-5, levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 0, levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 1, levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, NULL, levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5, levels => ARRAY[9]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5, mechanism => 'laplace',
                                  levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['nope'], ARRAY['dp_age'], 1, 1e-5, levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age', 'age'], ARRAY['dp_age', 'dp_age'], 1, 1e-5,
                                  levels => ARRAY[2, 2]) AS r(a text, b text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['no_such_hierarchy'], 1, 1e-5, levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age', 'sex'], ARRAY['dp_age', NULL], 1, 1e-5, levels => ARRAY[2, 0])
    AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5, levels => ARRAY[2]) AS r(age int);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5, levels => ARRAY[2],
                                  output => 'classes') AS r(age text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5, levels => ARRAY[2]);
-- A hierarchy that does not cover a value (ages go to 90; this one stops at 50).
RESET ROLE;
SELECT privrisk.interval_hierarchy('dp_age_short', 0, 50, ARRAY[10, 50]);
SET ROLE regress_dp_analyst;
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age_short'], 1, 1e-5, levels => ARRAY[1]) AS r(age text);
-- A table without a budget; a view (a budget belongs to the table the rows are in).
RESET ROLE;
SET ROLE regress_dp_owner;
CREATE TABLE dp_tiny AS SELECT g AS id, 20 + g AS age FROM generate_series(1, 50) g;
CREATE VIEW dp_view AS SELECT * FROM dp_census;
GRANT SELECT ON dp_tiny, dp_view TO regress_dp_analyst;
SET ROLE regress_dp_analyst;
SELECT * FROM privrisk.dp_release('dp_tiny', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5, levels => ARRAY[2]) AS r(age text);
SELECT * FROM privrisk.dp_release('dp_view', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5, levels => ARRAY[2]) AS r(age text);
-- delta so small that k exceeds the table's rows.
RESET ROLE;
SET ROLE regress_dp_owner;
SELECT privrisk.set_budget('dp_tiny', 5, 0.5);
SET ROLE regress_dp_analyst;
SELECT * FROM privrisk.dp_release('dp_tiny', ARRAY['age'], ARRAY['dp_age'], 1, 1e-5, levels => ARRAY[2]) AS r(age text);
SELECT relation, round(spent_epsilon::numeric, 6) AS spent_epsilon FROM privrisk.budget ORDER BY relation::text;
-- Without the right to read the source, nothing is read (and nothing spent).
RESET ROLE;
REVOKE SELECT ON dp_census FROM regress_dp_analyst;
SET ROLE regress_dp_analyst;
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 0.1, 1e-3, levels => ARRAY[2]) AS r(age text);
RESET ROLE;
SELECT count(*) AS spends FROM privrisk.budget_ledger;
-- δ(k) has no computable value for a huge epsilon.
SELECT * FROM privrisk.dp_parameters(6, 1e-5);


-- Fouad's mechanism on the paper's toy data set ([Fou12] §5.3), each of its ten
-- rows repeated 100 times. Every released row generalizes at least theta0 x rows
-- source rows (it is t-frequent for the smallest possible t), the released rows
-- are about (1 - drop) x rows, and a seed repeats the release.
RESET ROLE;
SELECT privrisk.load_hierarchy('dp_city', E'Dayton;Tippecanoe;Indiana;*\nLafayette;Tippecanoe;Indiana;*\nIndianapolis;Marion;Indiana;*\nSpeedway;Marion;Indiana;*\nColumbus;Franklin;Ohio;*');
SELECT privrisk.load_hierarchy('dp_race', E'Chinese;Asian;*\nJapanese;Asian;*\nGerman;White;*\nIrish;White;*');
CREATE TABLE dp_toy AS
SELECT city, race FROM (VALUES ('Dayton', 'Chinese'), ('Dayton', 'Chinese'), ('Dayton', 'Japanese'), ('Lafayette', 'Chinese'),
                               ('Lafayette', 'German'), ('Indianapolis', 'Japanese'), ('Indianapolis', 'Irish'),
                               ('Speedway', 'Chinese'), ('Columbus', 'German'), ('Columbus', 'Irish')) AS v(city, race),
     generate_series(1, 100) AS copy;
SELECT privrisk.set_budget('dp_toy', 20, 0.5);
CREATE TEMP TABLE fouad_a AS
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city', 'race'], ARRAY['dp_city', 'dp_race'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5, theta0 => 0.3, seed => 11, output => 'classes')
    AS r(city text, race text, n bigint);
SELECT abs(sum(n) - 500) <= 4 * sqrt(1000 * 0.25) AS kept_within_4_sd,
       bool_and((SELECT count(*) FROM dp_toy t
                 WHERE (f.city IS NULL OR privrisk.generalizes('dp_city', f.city, t.city))
                   AND (f.race IS NULL OR privrisk.generalizes('dp_race', f.race, t.race))) >= 300) AS every_row_t_frequent
FROM fouad_a f;
SELECT count(*) AS differences FROM (
    (SELECT * FROM fouad_a EXCEPT
     SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city', 'race'], ARRAY['dp_city', 'dp_race'], 1, 1e-3, mechanism => 'fouad',
                                       drop_probability => 0.5, theta0 => 0.3, seed => 11, output => 'classes')
         AS r(city text, race text, n bigint))) AS d;
-- The risk version and harmonic weights (the paper's leaf weights 0.3, 0.4);
-- under the aggregate score with harmonic weights, Φ(⊥, ⊥) = 0 is never chosen
-- unless nothing else is t-frequent.
SELECT sum(n) > 0 AS released
FROM privrisk.dp_release('dp_toy', ARRAY['city', 'race'], ARRAY['dp_city', 'dp_race'], 1, 1e-3, mechanism => 'fouad',
                         drop_probability => 0.5, theta0 => 0.3, score => 'risk', seed => 12, output => 'classes')
    AS r(city text, race text, n bigint);
SELECT sum(n) > 0 AS released
FROM privrisk.dp_release('dp_toy', ARRAY['city', 'race'], ARRAY['dp_city', 'dp_race'], 1, 1e-3, mechanism => 'fouad',
                         drop_probability => 0.5, theta0 => 0.3, sensitivity => 'harmonic', leaf_weights => ARRAY[0.3, 0.4],
                         seed => 13, output => 'classes') AS r(city text, race text, n bigint);
SELECT mechanism, private, parameters->'drop_probability' AS drop_probability, parameters->>'score' AS score,
       parameters->>'sensitivity' AS sensitivity
FROM privrisk.budget_ledger WHERE relation = 'dp_toy'::regclass ORDER BY id;
-- Bad input for fouad.
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.3) AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.36787944117144233) AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 1) AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad') AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5, levels => ARRAY[1]) AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, drop_probability => 0.5,
                                  levels => ARRAY[1]) AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5, theta0 => 1) AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5, score => 'utility') AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5, sensitivity => 'harmonic', leaf_weights => ARRAY[0.3, 0.4])
    AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5, sensitivity => 'harmonic', leaf_weights => ARRAY[-1]) AS r(city text);
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city'], ARRAY['dp_city'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5, leaf_weights => ARRAY[1]) AS r(city text);
-- The thesis' delta bound needs enough rows for the threshold: 1,000 rows and
-- theta0 = 0.01 leave t = 10, too few.
SELECT * FROM privrisk.dp_release('dp_toy', ARRAY['city', 'race'], ARRAY['dp_city', 'dp_race'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5) AS r(city text, race text);
SELECT * FROM privrisk.dp_release('dp_census', ARRAY['age'], ARRAY['dp_age'], 1, 1e-3, mechanism => 'fouad',
                                  drop_probability => 0.5, sensitivity => 'harmonic') AS r(age text);
SELECT count(*) AS toy_spends FROM privrisk.budget_ledger WHERE relation = 'dp_toy'::regclass;
DROP TABLE dp_toy, fouad_a;
SELECT privrisk.drop_hierarchy('dp_city');
SELECT privrisk.drop_hierarchy('dp_race');

-- A release that suppresses every class has spent its budget all the same: a
-- NOTICE says so, and why (here every id is a class of one row, k = 61). A
-- release that keeps classes says nothing.
CREATE TABLE dp_sparse AS SELECT i AS id, CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END AS parity
FROM generate_series(1, 1000) AS i;
SELECT privrisk.set_budget('dp_sparse', 3, 1e-3);
SELECT count(*) AS released FROM privrisk.dp_release('dp_sparse', ARRAY['id'], ARRAY[NULL], 1, 1e-5, levels => ARRAY[0], seed => 7) AS r(id text);
SELECT count(*) > 0 AS released FROM privrisk.dp_release('dp_sparse', ARRAY['parity'], ARRAY[NULL], 1, 1e-5, levels => ARRAY[0], seed => 7) AS r(parity text);
SELECT count(*) AS spends, sum(epsilon) AS spent_epsilon FROM privrisk.budget_ledger WHERE relation = 'dp_sparse'::regclass;
DROP TABLE dp_sparse;

-- A seeded release depends on the rows' values only, not on where they are
-- stored or how they are read: the same rows in another order, in another
-- table, and hash-partitioned three ways (read through SQL, where a parallel
-- plan is allowed) give the same classes, counts and output order, for
-- safepub and for fouad.
CREATE TABLE dp_shuffled AS SELECT * FROM dp_census ORDER BY md5(id::text);
CREATE TABLE dp_parts (id int, age int, sex text, zip text) PARTITION BY HASH (zip);
CREATE TABLE dp_parts_0 PARTITION OF dp_parts FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE dp_parts_1 PARTITION OF dp_parts FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE dp_parts_2 PARTITION OF dp_parts FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO dp_parts SELECT * FROM dp_census ORDER BY md5(id::text) DESC;
ANALYZE dp_shuffled, dp_parts;
SELECT privrisk.set_budget(t, 50, 0.5) FROM unnest(ARRAY['dp_census', 'dp_shuffled', 'dp_parts']::regclass[]) AS t;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT count(DISTINCT release) AS releases, count(*) AS tables, min(classes) AS classes,
       bool_and(release = (SELECT md5(string_agg(concat_ws('|', age, sex, zip, n), ',' ORDER BY age, sex, zip))
                           FROM released)) AS as_released_before
FROM (SELECT t, md5(string_agg(concat_ws('|', age, sex, zip, n), ',' ORDER BY age, sex, zip)) AS release, count(*) AS classes
      FROM unnest(ARRAY['dp_census', 'dp_shuffled', 'dp_parts']::regclass[]) AS t,
           privrisk.dp_release(t, ARRAY['age', 'sex', 'zip'], ARRAY['dp_age', NULL, 'dp_zip'], 1, 1e-5,
                               levels => ARRAY[1, 0, 2], seed => 42, output => 'classes') AS r(age text, sex text, zip text, n bigint)
      GROUP BY t) AS x;
SELECT count(DISTINCT release) AS releases, count(*) AS tables
FROM (SELECT t, md5(string_agg(concat_ws('|', age, sex, zip, n), ',' ORDER BY i)) AS release
      FROM unnest(ARRAY['dp_census', 'dp_shuffled', 'dp_parts']::regclass[]) AS t,
           ROWS FROM (privrisk.dp_release(t, ARRAY['age', 'sex', 'zip'], ARRAY['dp_age', NULL, 'dp_zip'], 2, 1e-4,
                                          levels => ARRAY[2, 0, 3], seed => 7, output => 'classes')
                      AS (age text, sex text, zip text, n bigint)) WITH ORDINALITY AS r(age, sex, zip, n, i)
      GROUP BY t) AS x;
SELECT count(DISTINCT release) AS releases, count(*) AS tables, min(kept) > 0 AS kept_some
FROM (SELECT t, md5(string_agg(concat_ws('|', age, sex, n), ',' ORDER BY i)) AS release, sum(n) AS kept
      FROM unnest(ARRAY['dp_census', 'dp_shuffled', 'dp_parts']::regclass[]) AS t,
           ROWS FROM (privrisk.dp_release(t, ARRAY['age', 'sex'], ARRAY['dp_age', NULL], 1, 1e-3, mechanism => 'fouad',
                                          drop_probability => 0.5, seed => 3, output => 'classes')
                      AS (age text, sex text, n bigint)) WITH ORDINALITY AS r(age, sex, n, i)
      GROUP BY t) AS x;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE dp_shuffled, dp_parts;

-- Values that differ in their bytes but print alike (two NaNs) are one value of
-- the release and one key of its sampling: fouad keeps dp_sampled_rows of the
-- 20,000 rows of the one distinct row, not twice that of 10,000.
CREATE TABLE dp_nan AS
SELECT CASE WHEN g % 2 = 0 THEN 'NaN'::float8 ELSE 'Infinity'::float8 - 'Infinity'::float8 END AS x
FROM generate_series(1, 20000) g;
SELECT count(DISTINCT float8send(x)) AS byte_forms, count(DISTINCT x::text) AS texts FROM dp_nan;
SELECT privrisk.set_budget('dp_nan', 50, 0.5);
SELECT seed, sum(n) = privrisk.dp_sampled_rows(seed, 0.5, ARRAY['NaN'], 20000) AS kept_as_one_row
FROM generate_series(1, 3) AS seed,
     privrisk.dp_release('dp_nan', ARRAY['x'], ARRAY[NULL], 1, 1e-3, mechanism => 'fouad', drop_probability => 0.5,
                         seed => seed, output => 'classes') AS r(x text, n bigint)
GROUP BY seed ORDER BY seed;
DROP TABLE dp_nan;

DROP TABLE released, sample_classes;
DROP TABLE dp_census, dp_tiny CASCADE;
DELETE FROM privrisk.budget_ledger;
DELETE FROM privrisk.budget;
SELECT privrisk.drop_hierarchy('dp_age');
SELECT privrisk.drop_hierarchy('dp_age_short');
SELECT privrisk.drop_hierarchy('dp_zip');
REVOKE CREATE ON SCHEMA public FROM regress_dp_owner;
DROP ROLE regress_dp_owner;
DROP ROLE regress_dp_analyst;
