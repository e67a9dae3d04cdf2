-- Decision-theoretic risk (docs/dtrisk.md; [LSFB09]): sensitivity, loss, identification
-- against a dictionary (match_counts), the risk aggregates.

-- The paper's case study (§8; worked example): City leaf weight 0.3, Race 0.4,
-- Birthdate 0.5, Income 0.75, harmonic up the hierarchies, multiplicative Φ.
SELECT privrisk.load_hierarchy('dt_city', E'West Lafayette;Tippecanoe;Indiana;Midwest;*\nLafayette;Tippecanoe;Indiana;Midwest;*');
SELECT privrisk.load_hierarchy('dt_race', E'White;Caucasian;*\nChinese;Asian;*');
SELECT privrisk.date_hierarchy('dt_birthdate');
SELECT privrisk.interval_hierarchy('dt_income', 20, 99, ARRAY[5, 20, 80]);
SELECT record, round(phi::numeric, 6) AS phi, round(privrisk.loss(phi, matches)::numeric, 6) AS loss,
       round(phi::numeric, 2) AS phi_as_printed, round(privrisk.loss(round(phi::numeric, 2)::float8, matches)::numeric, 3) AS loss_as_printed
FROM (VALUES (1, ARRAY['West Lafayette', 'White', '1975-05-10', '52'], 7),
             (2, ARRAY['West Lafayette', NULL, '1975-05', '[20, 100)'], 198)) AS v(record, y, matches),
     LATERAL privrisk.sensitivity(y, ARRAY['dt_city', 'dt_race', 'dt_birthdate', 'dt_income'], ARRAY[0.3, 0.4, 0.5, 0.75]) AS phi
ORDER BY record;
SELECT round(privrisk.harmonic_weight('dt_birthdate', '1975-05', 0.5)::numeric, 9) AS may_1975,
       round(privrisk.harmonic_weight('dt_income', '[20, 100)', 0.75)::numeric, 9) AS income_20_99,
       privrisk.harmonic_weight('dt_city', NULL, 0.3) AS bottom,
       privrisk.harmonic_weight('dt_city', 'Tippecanoe', 0.3) AS county_of_2_cities;

-- Every node's harmonic weight (§8's constructed instance: county X of 3 cities,
-- Y of 2, leaf weight 0.3: X 0.1, Y 0.15, the state 1/(1/0.1 + 1/0.15) = 0.06, root 0).
SELECT privrisk.load_hierarchy('dt_county', E'a;X;State;*\nb;X;State;*\nc;X;State;*\nd;Y;State;*\ne;Y;State;*');
SELECT node, level, leaves, round(weight::numeric, 9) AS weight,
       weight = coalesce(privrisk.harmonic_weight('dt_county', NULLIF(node, '*'), 0.3), -1) AS same_as_per_node
FROM privrisk.harmonic_weights('dt_county', 0.3) WHERE level > 0;
SELECT * FROM privrisk.harmonic_weights('dt_income', 0.75);
SELECT * FROM privrisk.harmonic_weights('dt_county', -1);
SELECT privrisk.drop_hierarchy('dt_county');

-- Constructed vectors (worked example): a dictionary with a ⊥ and a generalized entry.
SELECT privrisk.load_hierarchy('dt_zip', E'47906;4790*;*\n47907;4790*;*\n47901;4790*;*\n10001;1000*;*');
SELECT privrisk.interval_hierarchy('dt_age', 0, 150, ARRAY[10]);
CREATE TABLE dt_dictionary(zip text, age text);
INSERT INTO dt_dictionary VALUES ('47906', '34'), ('47906', '36'), ('47907', '34'), ('47901', '25'), ('10001', '34'),
                                 (NULL, '34'), ('4790*', '[30, 40)');
CREATE TABLE dt_released(zip text, age text);
INSERT INTO dt_released VALUES ('47906', '34'), ('4790*', '34'), ('4790*', '[30, 40)'), (NULL, NULL), ('47906', '[20, 30)');
\set mapping '''[{"released": "zip", "hierarchy": "dt_zip"}, {"released": "age", "hierarchy": "dt_age"}]'''
SELECT released_values, rows, matches,
       round(privrisk.sensitivity(released_values, ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4])::numeric, 6) AS phi4,
       round(privrisk.loss(privrisk.sensitivity(released_values, ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4]), matches)::numeric, 6) AS loss4,
       round(privrisk.sensitivity(released_values, ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4], 'linear')::numeric, 6) AS phi1
FROM privrisk.match_counts('dt_released', 'dt_dictionary', :mapping) ORDER BY matches;
-- The risk divides by every released row, those matching nothing included: 0.2742820 and 0.0676.
SELECT round(privrisk.dt_risk(privrisk.sensitivity(released_values, ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4]), matches, rows)::numeric, 7) AS risk_phi4,
       round(privrisk.dt_risk(privrisk.sensitivity(released_values, ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4], 'linear'), matches, rows)::numeric, 7) AS risk_phi1,
       round(privrisk.dt_risk_max(privrisk.sensitivity(released_values, ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4]), matches)::numeric, 6) AS worst
FROM privrisk.match_counts('dt_released', 'dt_dictionary', :mapping);
-- Row by row (joining the release to the counts) gives the same risk.
SELECT round(privrisk.dt_risk(privrisk.sensitivity(ARRAY[r.zip, r.age], ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4]), m.matches)::numeric, 7) AS risk_phi4
FROM dt_released r JOIN privrisk.match_counts('dt_released', 'dt_dictionary', :mapping) m
  ON m.released_values IS NOT DISTINCT FROM ARRAY[r.zip, r.age];

-- Proposition 1 (worked example): against the true dictionary, whose entries are the
-- estimated ones' or more general, the risk is lower (Φ ≡ 1, n = 3).
CREATE TABLE dt_true(zip text, age text);
INSERT INTO dt_true VALUES ('47906', '[30, 40)'), ('4790*', '36'), ('47901', '25'), ('47906', '31'), ('47907', NULL);
CREATE TABLE dt_estimated(zip text, age text);
INSERT INTO dt_estimated VALUES ('47906', '34'), ('47907', '36'), ('47901', '25');
CREATE TABLE dt_release_identity AS SELECT zip, age FROM dt_estimated;
CREATE TABLE dt_release_decade AS SELECT zip, privrisk.generalize('dt_age', age, 1) AS age FROM dt_estimated;
CREATE TABLE dt_release_zip AS SELECT privrisk.generalize('dt_zip', zip, 1) AS zip, age FROM dt_estimated;
SELECT release,
       (SELECT round(privrisk.dt_risk(1, matches, rows)::numeric, 6) FROM privrisk.match_counts(release, 'dt_estimated', :mapping)) AS estimated,
       (SELECT round(privrisk.dt_risk(1, matches, rows)::numeric, 6) FROM privrisk.match_counts(release, 'dt_true', :mapping)) AS true_risk
FROM unnest(ARRAY['dt_release_identity', 'dt_release_decade', 'dt_release_zip']::regclass[]) AS release;

-- Jaro matching (§7.2): per attribute at the threshold; ⊥ matches anything.
CREATE TABLE dt_names(name text);
INSERT INTO dt_names VALUES ('MARTHA'), ('DWAYNE'), ('CRATE'), (NULL);
CREATE TABLE dt_names_released(name text);
INSERT INTO dt_names_released VALUES ('MARHTA'), ('DUANE'), ('TRACE'), ('TRACE');
SELECT released_values, rows, matches FROM privrisk.match_counts('dt_names_released', 'dt_names', '[{"released": "name"}]', 'jaro')
ORDER BY 1;
SELECT released_values, matches FROM privrisk.match_counts('dt_names_released', 'dt_names', '[{"released": "name"}]', 'jaro', 0.7)
ORDER BY 1;

-- The aggregates do not depend on row order or on workers: a parallel plan
-- gives the serial result bit for bit.
CREATE TABLE dt_losses AS
SELECT (g % 97) / 7.0 AS phi, (g * 31) % 50 AS matches FROM generate_series(1, 300000) g;
ALTER TABLE dt_losses SET (parallel_workers = 2);
ANALYZE dt_losses;
SET max_parallel_workers_per_gather = 0;
SELECT privrisk.dt_risk(phi, matches)::text AS serial, privrisk.dt_risk_max(phi, matches) AS serial_max FROM dt_losses \gset
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT privrisk.dt_risk(phi, matches) FROM dt_losses;
SELECT privrisk.dt_risk(phi, matches)::text = :'serial' AS parallel_equals_serial,
       privrisk.dt_risk_max(phi, matches) = :serial_max AS max_equal,
       abs(privrisk.dt_risk(phi, matches) - avg(privrisk.loss(phi, matches))) < 1e-12 AS equals_avg_of_losses
FROM dt_losses;
SELECT privrisk.dt_risk(phi, matches)::text = :'serial' AS reordered_equals
FROM (SELECT * FROM dt_losses ORDER BY md5(phi::text || matches)) AS shuffled;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- match_counts reads both tables through the tuple_tally aggregate. Under a
-- forced parallel plan (the workers' tallies merged in the leader) the counts
-- are the serial ones and those of the plain SQL join; values of four kinds
-- (int, numeric through its output function, text, date in ISO form).
SELECT setseed(0.25);
CREATE TABLE dt_big AS
SELECT (random() * 20)::int AS age, (random() * 3)::int::numeric / 4 AS score, 'z' || (random() * 50)::int AS zip,
       date '2000-01-01' + (random() * 12)::int AS day
FROM generate_series(1, 200000) g;
CREATE TABLE dt_big_released AS
SELECT * FROM dt_big WHERE age < 15 UNION ALL SELECT 200, 1, 'nowhere', date '1999-12-31' FROM generate_series(1, 3);
ALTER TABLE dt_big SET (parallel_workers = 2);
ANALYZE dt_big;
\set big_mapping '''[{"released": "age"}, {"released": "score"}, {"released": "zip"}, {"released": "day"}]'''
SET max_parallel_workers_per_gather = 0;
SELECT md5(string_agg(format('%s %s %s', released_values, rows, matches), ',' ORDER BY released_values::text)) AS serial,
       count(*) AS tuples, sum(rows) AS released_rows, sum(matches) AS total_matches, count(*) FILTER (WHERE matches = 0) AS unmatched
FROM privrisk.match_counts('dt_big_released', 'dt_big', :big_mapping) \gset
SELECT :tuples AS tuples, :released_rows AS released_rows, :total_matches AS total_matches, :unmatched AS unmatched;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT privrisk.tuple_tally(age, score, zip, day) FROM dt_big;
SELECT md5(string_agg(format('%s %s %s', released_values, rows, matches), ',' ORDER BY released_values::text)) = :'serial'
       AS parallel_equals_serial
FROM privrisk.match_counts('dt_big_released', 'dt_big', :big_mapping);
SELECT md5(string_agg(format('%s %s %s', ARRAY[r.age::text, r.score::text, r.zip, to_char(r.day, 'YYYY-MM-DD')], r.rows, coalesce(d.n, 0)),
                      ',' ORDER BY ARRAY[r.age::text, r.score::text, r.zip, to_char(r.day, 'YYYY-MM-DD')]::text)) = :'serial'
       AS sql_join_equals
FROM (SELECT age, score, zip, day, count(*) AS rows FROM dt_big_released GROUP BY 1, 2, 3, 4) r
LEFT JOIN (SELECT age, score, zip, day, count(*) AS n FROM dt_big GROUP BY 1, 2, 3, 4) d USING (age, score, zip, day);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- The dictionary is read with the caller's rights: row-level security applies,
-- and without SELECT on it nothing is counted.
CREATE ROLE regress_dt_reader;
GRANT USAGE ON SCHEMA privrisk TO regress_dt_reader;
GRANT SELECT ON dt_big_released, dt_big TO regress_dt_reader;
ALTER TABLE dt_big ENABLE ROW LEVEL SECURITY;
CREATE POLICY dt_big_young ON dt_big TO regress_dt_reader USING (age < 10);
SELECT sum(r.rows * d.n) AS visible_expected  -- Σ over released rows of the visible entries equal to them
FROM (SELECT age, score, zip, day, count(*) AS rows FROM dt_big_released GROUP BY 1, 2, 3, 4) r
JOIN (SELECT age, score, zip, day, count(*) AS n FROM dt_big WHERE age < 10 GROUP BY 1, 2, 3, 4) d USING (age, score, zip, day);
SET ROLE regress_dt_reader;
SELECT sum(rows * matches) AS visible_matches FROM privrisk.match_counts('dt_big_released', 'dt_big', :big_mapping);
RESET ROLE;
REVOKE SELECT ON dt_big FROM regress_dt_reader;
SET ROLE regress_dt_reader;
SELECT count(*) FROM privrisk.match_counts('dt_big_released', 'dt_big', :big_mapping);
RESET ROLE;
DROP POLICY dt_big_young ON dt_big;
REVOKE ALL ON dt_big_released FROM regress_dt_reader;
REVOKE USAGE ON SCHEMA privrisk FROM regress_dt_reader;
DROP ROLE regress_dt_reader;

-- Bayes risk over candidate dictionaries: Σ q·R / Σ q.
SELECT privrisk.bayes_risk(r, q) AS bayes FROM (VALUES (1.0::float8, 1.0::float8), (0.833333, 2), (0.5, 1)) AS v(r, q);

-- Edges and bad input.
SELECT privrisk.loss('Infinity', 0) AS infinite_phi_no_match, privrisk.loss('Infinity', 2) AS infinite_phi_matched,
       privrisk.loss(2, 0, 5) AS psi_when_unmatched, privrisk.loss(2, 4) AS prop2_bound, privrisk.loss(2, 3) AS prop2_violation;
SELECT privrisk.dt_risk(phi, m) AS infinite_risk FROM (VALUES (1.0::float8, 1::int8), ('Infinity', 2)) AS v(phi, m);
SELECT privrisk.dt_risk(phi, m) AS no_rows FROM (SELECT 1.0::float8, 1::int8 WHERE false) AS v(phi, m);
SELECT privrisk.sensitivity_linear(ARRAY[0.5, 0.25, 'Infinity'], ARRAY[true, true, false]) AS linear,
       round(privrisk.sensitivity_multiplicative(ARRAY[0.5, 0.25], ARRAY[true, true])::numeric, 6) AS multiplicative,
       privrisk.sensitivity_multiplicative(ARRAY[0.5, 0.25], ARRAY[false, false]) AS suppressed,
       privrisk.sensitivity_pairwise(ARRAY[1, 2, 3], ARRAY[[0, 10, 20], [0, 0, 30], [0, 0, 0]], ARRAY[true, true, false]) AS pairwise;
SELECT privrisk.loss(-1, 2);
SELECT privrisk.loss('NaN', 2);
SELECT privrisk.loss(1, -2);
SELECT privrisk.sensitivity_linear(ARRAY[0.5, -0.25], ARRAY[true, true]);
SELECT privrisk.sensitivity_linear(ARRAY[0.5, 'NaN'], ARRAY[true, true]);
SELECT privrisk.sensitivity_linear(ARRAY[0.5], ARRAY[true, true]);
SELECT privrisk.sensitivity_pairwise(ARRAY[1, 2], ARRAY[1, 2, 3, 4], ARRAY[true, true]);
SELECT privrisk.harmonic_weight('dt_zip', '99999', 0.2);
SELECT privrisk.harmonic_weight('dt_zip', '47906', -0.2);
SELECT privrisk.sensitivity(ARRAY['47906'], ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4]);
SELECT privrisk.bayes_risk(r, q) FROM (VALUES (1.0::float8, -1.0::float8)) AS v(r, q);
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', '[{"released": "zipcode"}]');
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', '[{"released": "zip", "dictionary": "nope"}]');
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', '[{"released": "zip", "hierarchy": "nope"}]');
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', '{"zip": "dt_zip"}');
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', '[{"released": "zip", "weight": 2}]');
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', '[]');
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', '[{"released": "zip"}]', 'fuzzy');
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', '[{"released": "zip"}]', 'jaro', 1.5);
INSERT INTO dt_dictionary VALUES ('99999', '34');
SELECT * FROM privrisk.match_counts('dt_released', 'dt_dictionary', :mapping);
DELETE FROM dt_dictionary WHERE zip = '99999';
-- An empty dictionary: every row matches nothing, the risk is 0 (a NOTICE says why).
CREATE TABLE dt_empty(zip text, age text);
SELECT round(privrisk.dt_risk(privrisk.sensitivity(released_values, ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4]), matches, rows)::numeric, 6) AS risk
FROM privrisk.match_counts('dt_released', 'dt_empty', :mapping);

-- Optimal disclosure of a record against the dictionary (utility = steps left to
-- ⊥, at least 2 of 4): every method finds (4790*, [30, 40)), risk 0.222513, the
-- row of the §4.4 table; BTDA visits fewer nodes than the 9 of exhaustive search.
SELECT m, d->'levels' AS levels, d->'released' AS released, round((d->>'risk')::numeric, 6) AS risk,
       d->'utility' AS utility, d->'matches' AS matches, (d->>'visited')::int <= 9 AS visited_at_most_all
FROM unnest(ARRAY['exhaustive', 'btda', 'aruba', 'genetic']) AS m,
     LATERAL privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 2, m) AS d;
SELECT (privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 2, 'btda')->>'visited')::int
       < 9 AS btda_prunes;
-- The other forms: the most useful disclosure with risk at most 0.3; risk − 0.1·utility.
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 0.3, 'exhaustive',
                                   'max_utility')->'released' AS max_utility,
       privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], NULL, 'exhaustive',
                                   'lagrangian', 0.1)->'released' AS lagrangian;
-- Every distinct source tuple at once: levels the release can publish.
SELECT source_values, rows, levels, released_values, round(risk::numeric, 6) AS risk, utility
FROM privrisk.optimal_disclosures('dt_estimated', 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 3, 'aruba') ORDER BY 1;
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 5) AS infeasible;
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 2, 'simplex');
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4]);
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2], 2);
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 'NaN'], 2);
SELECT privrisk.optimal_disclosure(ARRAY['47906'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 2);
SELECT privrisk.optimal_disclosure(ARRAY['99999', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 2);
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 0.3, 'btda', 'max_utility');

-- Proposition 1's conditions (worked example): they hold for (T, θ̂ = T, θ^true), and
-- the risks above obey the bound; without entity 3 in θ^true they do not.
ALTER TABLE dt_estimated ADD COLUMN id int;
UPDATE dt_estimated SET id = CASE zip WHEN '47906' THEN 1 WHEN '47907' THEN 2 ELSE 3 END;
ALTER TABLE dt_true ADD COLUMN id int;
UPDATE dt_true SET id = CASE WHEN zip = '47906' AND age = '[30, 40)' THEN 1 WHEN zip = '4790*' THEN 2
                             WHEN zip = '47901' THEN 3 WHEN zip = '47906' THEN 4 ELSE 5 END;
SELECT privrisk.risk_bound_holds('dt_estimated', 'dt_estimated', 'dt_true', 'id', :mapping);
DELETE FROM dt_true WHERE id = 3;
SELECT privrisk.risk_bound_holds('dt_estimated', 'dt_estimated', 'dt_true', 'id', :mapping);
INSERT INTO dt_estimated VALUES ('10001', '34', 1);
SELECT privrisk.risk_bound_holds('dt_estimated', 'dt_estimated', 'dt_true', 'id', :mapping)->'unique_ids' AS unique_ids;
SELECT privrisk.risk_bound_holds('dt_estimated', 'dt_estimated', 'dt_true', 'nope', :mapping);

-- Weight schemas: harmonic weights pass; growing toward the root, a root weight,
-- a negative weight or an unknown node is named.
SELECT privrisk.check_sensitivity_weights('dt_zip', jsonb_build_object('47906', 0.2, '47907', 0.2, '47901', 0.2,
           '4790*', privrisk.harmonic_weight('dt_zip', '4790*', 0.2), '*', 0)) AS harmonic_ok;
SELECT privrisk.check_sensitivity_weights('dt_zip', '{"47906": 0.1, "4790*": 0.15}');
SELECT privrisk.check_sensitivity_weights('dt_zip', '{"47906": 0.1, "*": 0.05}');
SELECT privrisk.check_sensitivity_weights('dt_zip', '{"47906": -0.1}');
SELECT privrisk.check_sensitivity_weights('dt_zip', '{"47906": "high"}');
SELECT privrisk.check_sensitivity_weights('dt_zip', '{"99999": 0.1}');
SELECT privrisk.check_sensitivity_weights('dt_age', '{"34": 0.1}');
SELECT privrisk.check_sensitivity_weights('nope', '{}');
SELECT privrisk.check_weight_budget(ARRAY[0.3, 0.4, 0.3], 1, 'exactly') AS exactly_one,
       privrisk.check_weight_budget(ARRAY[0.3, 0.4, 0.4], 1) AS over_budget,
       privrisk.check_weight_budget(ARRAY[0.3, 0.4], 1) AS within_budget;
SELECT privrisk.check_weight_budget(ARRAY[0.3, -0.4], 1);
SELECT privrisk.check_weight_budget(ARRAY[0.3], 1, 'roughly');

-- audit() and search() take a dictionary and report dt_risk: the audit of the
-- release at (zip level 1, age as is) equals dictionary_risk and the mean of the
-- per-row losses from match_counts; search() reports the found node's risk.
CREATE TABLE dt_people(zip text, age int);
INSERT INTO dt_people VALUES ('47906', 34), ('47907', 36), ('47901', 25), ('47906', 34), ('10001', 34);
SELECT a->'dt_risk'->'rows' AS rows, round((a->'dt_risk'->>'risk')::numeric, 6) AS risk,
       round((a->'dt_risk'->>'max_loss')::numeric, 6) AS max_loss, a->'dt_risk'->'unidentified_rows' AS unidentified,
       round((a->'dt_risk'->>'risk')::numeric, 12) = round((
           SELECT sum(m.rows * privrisk.loss(privrisk.sensitivity(m.released_values, ARRAY['dt_zip', 'dt_age'], ARRAY[0.2, 0.4]), m.matches)) / sum(m.rows)
           FROM privrisk.match_counts('dt_people', 'dt_dictionary', :mapping, levels => ARRAY[1, 0]) m)::numeric, 12) AS equals_mean_loss
FROM (SELECT privrisk.audit('dt_people', ARRAY['zip', 'age'], hierarchies => ARRAY['dt_zip', 'dt_age'], levels => ARRAY[1, 0],
                            options => '{"dictionary": "dt_dictionary", "leaf_weights": [0.2, 0.4]}') AS a) AS r;
SELECT released_values, rows, matches FROM privrisk.match_counts('dt_people', 'dt_dictionary', :mapping, levels => ARRAY[1, 0])
ORDER BY 1;
SELECT r->'result'->'node' AS node, r->'result'->'dt_risk' AS dt_risk,
       r->'result'->'dt_risk' = privrisk.dictionary_risk('dt_people', 'dt_dictionary', :mapping, ARRAY[0.2, 0.4],
                                   ARRAY(SELECT jsonb_array_elements_text(r->'result'->'node')::int)) AS equals_dictionary_risk
FROM (SELECT privrisk.search('dt_people', ARRAY['zip', 'age'], ARRAY['dt_zip', 'dt_age'], NULL,
                             '{"k": 2, "dictionary": "dt_dictionary", "leaf_weights": [0.2, 0.4]}') AS r) AS s;
SELECT * FROM privrisk.lattice('dt_people', ARRAY['zip', 'age'], ARRAY['dt_zip', 'dt_age'], NULL, '{"dictionary": "dt_dictionary"}');
SELECT privrisk.search('dt_people', ARRAY['zip', 'age'], ARRAY['dt_zip', 'dt_age'], NULL, '{"dictionary": "no_such_table"}');
SELECT privrisk.search('dt_people', ARRAY['zip', 'age'], ARRAY['dt_zip', 'dt_age'], NULL, '{"dt_risk": 0.1}');
SELECT privrisk.audit('dt_people', ARRAY['zip', 'age'], options => '{"dictionary": 7}');
SELECT privrisk.audit('dt_people', ARRAY['zip', 'age'], hierarchies => ARRAY['dt_zip', 'dt_age'], levels => ARRAY[1, 0],
                      options => jsonb_build_object('dictionary', 'dt_dictionary', 'mapping', :mapping::jsonb));
SELECT privrisk.match_counts('dt_people', 'dt_dictionary', :mapping, levels => ARRAY[3, 0]);
-- The table-level, full-domain form: one node for every row; btda and aruba
-- agree with exhaustive search, and apply_generalization publishes the node.
SELECT m, g->'result'->'node' AS node, round((g->'result'->>'risk')::numeric, 6) AS mean_risk,
       round((g->'result'->>'utility')::numeric, 6) AS mean_utility, g->'search'->'method' AS ran
FROM unnest(ARRAY['exhaustive', 'btda', 'aruba']) AS m,
     LATERAL privrisk.optimal_generalization('dt_people', 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 2.5, m) AS g;
SELECT round((privrisk.dictionary_risk('dt_people', 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], ARRAY[1, 1])->>'risk')::numeric, 6)
       AS risk_at_1_1;
SELECT privrisk.apply_generalization('dt_people_release',
           privrisk.optimal_generalization('dt_people', 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 2.5)) AS rules;
SELECT zip, age, count(*) FROM privrisk.release('dt_people_release') AS r(zip text, age text) GROUP BY 1, 2 ORDER BY 1, 2;
SELECT privrisk.drop_policy('dt_people_release');
-- A record that matches no entry has no monotone risk: the search falls back to exhaustive.
SELECT d->'method' AS method, d->'note' AS note
FROM privrisk.optimal_disclosure(ARRAY['10001', '99'], 'dt_dictionary', :mapping, ARRAY[0.2, 0.4], 1, 'btda') AS d;
DROP TABLE dt_people;

-- One record at a time: the same counts as match_counts.
SELECT y, privrisk.match_count(y, 'dt_dictionary', :mapping) AS matches
FROM (VALUES (ARRAY['47906', '34']), (ARRAY['4790*', '[30, 40)']), (ARRAY[NULL, NULL]::text[]), (ARRAY['47906', '[20, 30)'])) AS v(y);
SELECT privrisk.match_count(ARRAY['47906'], 'dt_dictionary', :mapping);
-- Independence top-k (worked example): disclose 3, then 1, then 2; losses 0.001, 0.0014998, 0.0049456, 0.1093157.
SELECT k, t->'disclosed' AS disclosed, round((t->>'loss')::numeric, 7) AS loss
FROM generate_series(0, 3) AS k, LATERAL privrisk.independent_top_k(ARRAY[0.5, 0.1, 0.3], ARRAY[0.5, 0.05, 0.9], 1000, k) AS t;
SELECT privrisk.independent_top_k(ARRAY[0.5, 0.1, 0.3], ARRAY[0.5, 0.05, 0.9], 1000, 3)->'factors' AS factors;
SELECT privrisk.independent_top_k(ARRAY[0.5, 0.1], ARRAY[0.5, 1.2], 1000, 1);
SELECT privrisk.independent_top_k(ARRAY[0.5, 0.1], ARRAY[0.5, 0.2], 1000, 3);

DROP TABLE dt_dictionary, dt_released, dt_true, dt_estimated, dt_release_identity, dt_release_decade, dt_release_zip,
           dt_names, dt_names_released, dt_losses, dt_empty;
SELECT privrisk.drop_hierarchy(h) FROM unnest(ARRAY['dt_city', 'dt_race', 'dt_birthdate', 'dt_income', 'dt_zip', 'dt_age']) AS h;
