-- Information-theoretic measures and utility (docs/information.md; [ASB12] and [BS08] §2.6):
-- the papers' numbers, cross-checks between measures, and bad input.
SET extra_float_digits = 0;
CREATE FUNCTION r6(float8) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$ SELECT round($1::numeric, 6) $$;

-- Appendix A of Askari et al.: the 4x4 channel. Uniform prior: 147/272; H(T|T') 1.680905,
-- I 0.319095, the Santhi-Vardy bound 0.688113 (bits).
CREATE TABLE appendix_a AS SELECT ARRAY[[5/17.0, 2/17.0, 0, 10/17.0], [0, 20/35.0, 5/35.0, 10/35.0],
                                        [15/28.0, 5/28.0, 3/28.0, 5/28.0], [5/20.0, 8/20.0, 0, 7/20.0]]::float8[] AS m;
SELECT abs(privrisk.channel_bayes_error(m) - 147.0 / 272) < 1e-12 AS error_is_147_272,
       r6(privrisk.channel_bayes_error(m)) AS bayes_error,
       r6(privrisk.channel_conditional_entropy(m)) AS conditional_entropy,
       r6(privrisk.channel_mutual_information(m)) AS mutual_information,
       r6(privrisk.channel_error_bound(m)) AS error_bound
FROM appendix_a;
-- A prior concentrated on T1 gives 0; the prior (1/2, 1/4, 1/8, 1/8) gives 181/476.
SELECT privrisk.channel_bayes_error(m, ARRAY[1, 0, 0, 0]) AS point_mass,
       abs(privrisk.channel_bayes_error(m, ARRAY[0.5, 0.25, 0.125, 0.125]) - 181.0 / 476) < 1e-12 AS skewed_is_181_476
FROM appendix_a;
-- The uninformative channel: 0.75, and the bound is tight.
SELECT privrisk.channel_bayes_error(array_fill(0.25::float8, ARRAY[4, 4])) AS uninformative,
       privrisk.channel_error_bound(array_fill(0.25::float8, ARRAY[4, 4])) AS bound;
-- The four adversaries of §4.1.1 and the MAP guesses (T'1 -> T3, T'2 -> T2, T'3 -> T2, T'4 -> T1).
SELECT r->'map_guess' AS map_guess, r6((r->'adversaries'->>'knows_neither')::float8) AS neither,
       r6((r->'adversaries'->>'knows_prior')::float8) AS prior_only,
       r6((r->'adversaries'->>'knows_mechanism')::float8) AS mechanism_only,
       r6((r->'adversaries'->>'knows_both')::float8) AS both
FROM (SELECT privrisk.channel_report(m, ARRAY[0.5, 0.25, 0.125, 0.125]) AS r FROM appendix_a) AS s;
-- The worst-case prior (decision A11): 997/1657 ≈ 0.6017 at (357, 420, 280, 600)/1657.
SELECT abs((w->>'bayes_error')::float8 - 997.0 / 1657) < 1e-12 AS error_is_997_1657,
       r6((w->>'bayes_error')::float8) AS worst_error,
       ARRAY(SELECT round(p::numeric * 1657, 6) FROM jsonb_array_elements_text(w->'prior') AS p) AS prior_times_1657
FROM (SELECT privrisk.channel_worst_case_prior(m) AS w FROM appendix_a) AS s;

-- The toy k-anonymity universe of [ASB12]: age a1..a4 -> {A12, A34} -> *, gender -> *,
-- disease (3 values) never generalized; 5 rows, k = 2, corrected (QI) counts.
SELECT privrisk.load_hierarchy('toy_age', E'a1;A12;*\na2;A12;*\na3;A34;*\na4;A34;*'),
       privrisk.load_hierarchy('toy_gender', E'M;*\nF;*'),
       privrisk.load_hierarchy('toy_disease', E'Cold;*\nHeartattack;*\nDiabetes;*');
SELECT mechanism, u->'inputs' AS inputs, u->'outputs' AS outputs, r6((u->>'bayes_error')::float8) AS bayes_error,
       r6((u->>'conditional_entropy')::float8) AS conditional_entropy,
       r6((u->>'utility_degradation')::float8) AS expected_utility_loss, u->'feasible_nodes' AS feasible_nodes
FROM unnest(ARRAY['uniform', 'minimal']) AS mechanism,
     LATERAL (SELECT privrisk.k_anonymity_channel(ARRAY['toy_age', 'toy_gender'], ARRAY[3], 5, 2, mechanism) AS u) AS s;
SELECT abs((privrisk.k_anonymity_channel(ARRAY['toy_age', 'toy_gender'], ARRAY[3], 5, 2)->>'bayes_error')::float8
           - 2426.0 / 2457) < 1e-12 AS uniform_is_2426_2457,
       abs((privrisk.k_anonymity_channel(ARRAY['toy_age', 'toy_gender'], ARRAY[3], 5, 2, 'minimal')->>'bayes_error')::float8
           - 491.0 / 520) < 1e-12 AS minimal_is_491_520;

-- The Askari utility example ([ASB12]): 1.261654 bits; published at age 1, gender 1
-- (domain sizes 2, 1, 3): 0.861654, a degradation of exactly 0.4.
CREATE TABLE toy (age text, gender text, disease text);
INSERT INTO toy VALUES ('a1', 'M', 'Cold'), ('a2', 'F', 'Cold'), ('a3', 'M', 'Diabetes'), ('a3', 'F', 'Diabetes'),
                       ('a4', 'M', 'Diabetes');
SELECT r6((u->>'utility')::float8) AS utility,
       ARRAY(SELECT r6((a->>'u_max')::float8) FROM jsonb_array_elements(u->'attributes') AS a) AS u_max,
       ARRAY(SELECT (a->>'domain_size')::int FROM jsonb_array_elements(u->'attributes') AS a) AS domain_sizes
FROM (SELECT privrisk.askari_utility('toy', ARRAY['age', 'gender', 'disease'],
                                     ARRAY['toy_age', 'toy_gender', 'toy_disease']) AS u) AS s;
SELECT r6((privrisk.askari_utility('toy', ARRAY['age', 'gender', 'disease'], ARRAY['toy_age', 'toy_gender', 'toy_disease'],
                                   ARRAY[1, 1, 0])->>'utility')::float8) AS published_utility,
       abs(privrisk.askari_degradation('toy', ARRAY['age', 'gender', 'disease'],
                                       ARRAY['toy_age', 'toy_gender', 'toy_disease'], ARRAY[1, 1, 0]) - 0.4) < 1e-12
           AS degradation_is_0_4;

-- Entropy aggregates on UCI Adult, cross-checked with the risk measures: I(Q;S) of the
-- quasi-identifier row and occupation equals information_gain(hist) over the classes (nats),
-- H(S) − H(S|Q) is the same number, and bits are nats / ln 2.
\i scripts/adult-uci.sql
SELECT r6(privrisk.entropy(occupation)) AS h_nats, r6(privrisk.entropy_bits(occupation)) AS h_bits,
       abs(privrisk.entropy_bits(occupation) * ln(2) - privrisk.entropy(occupation)) < 1e-12 AS bits_are_nats_over_ln2
FROM adult;
CREATE TABLE gain AS
SELECT (SELECT privrisk.information_gain(h) FROM (SELECT privrisk.hist(occupation) AS h FROM adult
                                                   GROUP BY age, sex, race) AS c) AS from_hist,
       privrisk.mutual_information(ROW(age, sex, race), occupation) AS mi,
       privrisk.entropy(occupation) - privrisk.conditional_entropy(occupation, ROW(age, sex, race)) AS h_minus_conditional,
       privrisk.mutual_information(occupation, ROW(age, sex, race)) AS mi_symmetric
FROM adult;
SELECT r6(from_hist) AS information_gain, abs(mi - from_hist) < 1e-12 AS mi_equals_gain,
       abs(h_minus_conditional - from_hist) < 1e-12 AS entropy_difference_equals_gain,
       abs(mi_symmetric - mi) < 1e-12 AS symmetric
FROM gain;
-- The same in a parallel plan, bit for bit.
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT privrisk.mutual_information(ROW(age, sex, race), occupation) FROM adult;
SELECT privrisk.mutual_information(ROW(age, sex, race), occupation) = (SELECT mi FROM gain) AS parallel_equals_serial,
       privrisk.entropy(occupation) = (SELECT privrisk.entropy(occupation) FROM (SELECT occupation FROM adult ORDER BY id DESC) AS r)
           AS order_does_not_matter
FROM adult;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- NULL is ⊥, a value of its own; no rows, no entropy.
SELECT r6(privrisk.entropy(x)) AS h, r6(privrisk.mutual_information(x, y)) AS mi
FROM (VALUES ('a', 1), (NULL, 1), ('a', NULL), (NULL, NULL)) AS v(x, y);
SELECT privrisk.entropy(x) IS NULL AS empty_is_null FROM (VALUES ('a')) AS v(x) WHERE false;

-- Workload utility: naive Bayes on ARX's Adult extract, salary-class from the 8 other
-- attributes, 10 folds fixed by a hash of each row. The independent reference is
-- scikit-learn 1.2.1's CategoricalNB (alpha 1, each feature's full domain) with the same
-- folds: test/reference/naive_bayes_adult.py prints 24598 correct of 30162, 0.815529.
CREATE TABLE arx (sex text, age int, race text, marital_status text, education text, native_country text,
                  workclass text, occupation text, salary_class text);
\copy arx FROM '../shared/data/adult/adult.csv' WITH (FORMAT csv, DELIMITER ';', HEADER true)
CREATE TABLE accuracy AS
SELECT privrisk.classification_accuracy('arx', ARRAY['sex', 'age', 'race', 'marital_status', 'education',
                                                     'native_country', 'workclass', 'occupation'], 'salary_class') AS a;
SELECT a->'rows' AS rows, a->'correct' AS correct, r6((a->>'accuracy')::float8) AS accuracy,
       abs((a->>'accuracy')::float8 - 0.815529) < 0.01 AS within_1_point_of_sklearn
FROM accuracy;
-- Deterministic: again, and on the rows in another physical order.
CREATE TABLE arx_shuffled AS SELECT * FROM arx ORDER BY md5(concat_ws('|', sex, age, race, occupation, education));
SELECT privrisk.classification_accuracy('arx', ARRAY['sex', 'age', 'race', 'marital_status', 'education',
                                                     'native_country', 'workclass', 'occupation'], 'salary_class')
           = (SELECT a FROM accuracy) AS same_again,
       privrisk.classification_accuracy('arx_shuffled', ARRAY['sex', 'age', 'race', 'marital_status', 'education',
                                                              'native_country', 'workclass', 'occupation'], 'salary_class')
           = (SELECT a FROM accuracy) AS same_in_any_order;
-- The majority-per-class classifier, and U_san − U_base for a release with age in decades and race
-- suppressed (quasi-identifiers age, sex, race; occupation sensitive; salary-class the target).
SELECT privrisk.interval_hierarchy('decade', 0, 100, ARRAY[10]);
\set race `cat ../shared/data/adult/adult_hierarchy_race.csv`
SELECT privrisk.load_hierarchy('race', :'race');
SELECT r6((privrisk.classification_accuracy('arx', ARRAY['sex', 'age', 'race', 'marital_status', 'education',
          'native_country', 'workclass', 'occupation'], 'salary_class', 'majority')->>'accuracy')::float8) AS majority;
SELECT r6((w->>'u_san')::float8) AS u_san, r6((w->>'u_max')::float8) AS u_max,
       r6((w->>'u_without_quasi_identifiers')::float8) AS u_without_qi,
       r6((w->>'u_without_sensitive')::float8) AS u_without_sensitive, r6((w->>'gain')::float8) AS gain,
       (w->>'u_base')::float8 = greatest((w->>'u_without_quasi_identifiers')::float8, (w->>'u_without_sensitive')::float8)
           AS base_is_the_better_trivial
FROM (SELECT privrisk.workload_utility('arx', ARRAY['age', 'sex', 'race'], 'occupation', 'salary_class',
                                       ARRAY['decade', NULL, 'race'], ARRAY[1, 0, 1]) AS w) AS s;
-- audit() reports the same block when given a target.
SELECT a->'utility'->'u_san' = w->'u_san' AS audit_utility_matches, a->'utility' ? 'askari_utility' AS has_askari,
       a->'k_anonymity' AS k
FROM (SELECT privrisk.audit('arx', ARRAY['age', 'sex', 'race'], 'occupation', ARRAY['decade', NULL, 'race'],
                            ARRAY[1, 0, 1], '{"target": "salary_class"}') AS a,
             privrisk.workload_utility('arx', ARRAY['age', 'sex', 'race'], 'occupation', 'salary_class',
                                       ARRAY['decade', NULL, 'race'], ARRAY[1, 0, 1]) AS w) AS s;

-- Bad input: clear errors.
SELECT privrisk.channel_bayes_error(ARRAY[[0.5, 0.6], [0.5, 0.5]]);
SELECT privrisk.channel_bayes_error(ARRAY[[1.5, -0.5], [0.5, 0.5]]);
SELECT privrisk.channel_bayes_error('{{0.5, 0.5}, {1}}'::float8[]);
SELECT privrisk.channel_bayes_error(ARRAY[0.5, 0.5]);
SELECT privrisk.channel_bayes_error(ARRAY[[0.5, NULL], [0.5, 0.5]]);
SELECT privrisk.channel_bayes_error(ARRAY[['NaN', 1], [0.5, 0.5]]::float8[]);
SELECT privrisk.channel_bayes_error(m, ARRAY[0.5, 0.5, 0.5, 0]) FROM appendix_a;
SELECT privrisk.channel_bayes_error(m, ARRAY[0.5, 0.5]) FROM appendix_a;
-- within the documented tolerance (1e-9) a prior is accepted, past it refused
SELECT r6(privrisk.channel_bayes_error(m, ARRAY[0.25, 0.25, 0.25, 0.2500000005])) AS within_tolerance FROM appendix_a;
SELECT privrisk.channel_bayes_error(m, ARRAY[0.25, 0.25, 0.25, 0.250000005]) FROM appendix_a;
SELECT privrisk.k_anonymity_channel(ARRAY['toy_age', 'toy_gender'], ARRAY[3], 10, 2);
SELECT privrisk.k_anonymity_channel(ARRAY['toy_age', 'toy_gender'], ARRAY[3], 2, 3);
SELECT privrisk.k_anonymity_channel(ARRAY['decade'], NULL, 3, 2);
SELECT privrisk.k_anonymity_channel(ARRAY['toy_age'], ARRAY[0], 3, 2);
SELECT privrisk.k_anonymity_channel(ARRAY['toy_age'], NULL, 3, 2, 'random');
SELECT privrisk.channel_worst_case_prior(array_fill(1 / 12.0::float8, ARRAY[12, 12]));
SELECT privrisk.classification_accuracy('arx', ARRAY['sex'], 'salary_class', 'svm');
SELECT privrisk.classification_accuracy('arx', ARRAY['sex'], 'salary_class', folds => 1);
SELECT privrisk.classification_accuracy('arx', ARRAY['sex', 'salary_class'], 'salary_class');
SELECT privrisk.classification_accuracy('arx', ARRAY['sex'], 'nope');
SELECT privrisk.askari_utility('toy', ARRAY['age'], weights => ARRAY[0.5]);
SELECT privrisk.askari_utility('toy', ARRAY['age'], levels => ARRAY[1]);
SELECT privrisk.audit('arx', ARRAY['sex'], 'occupation', options => '{"target": 5}');

DROP TABLE appendix_a, toy, adult, gain, arx, arx_shuffled, accuracy;
DROP FUNCTION r6(float8);
SELECT count(*) AS hierarchies_dropped FROM (SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy) AS d;
