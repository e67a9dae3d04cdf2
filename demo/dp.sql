-- The demo's differentially private release: a privacy budget on the census
-- table, a SafePub sample generalized to a node fixed by the hierarchies alone
-- (choosing it from the data would not be private), its
-- audit, a Fouad release, the ledger, and a release the budget refuses.
\pset footer off
\set qi 'ARRAY[''age'', ''sex'', ''race'', ' :'place_name' ', ''marital_status'']'
\echo
\echo '== A privacy budget for census, set by its owner: epsilon 2.5, delta 1e-4'
SELECT privrisk.set_budget('census', 2.5, 1e-4);
\echo '   SafePub at epsilon 1, delta 1e-5: sampling probability beta and the suppression threshold k'
SELECT round(beta::numeric, 4) AS beta, k, delta_k FROM privrisk.dp_parameters(1, 1e-5);

\echo
\echo '== dp_release (safepub): sample, generalize to the node, suppress every class under k'
\echo '   the node: age halfway up its hierarchy, sex as is, race suppressed, the place one level below the top,'
\echo '   marital status one level up'
SELECT ARRAY[privrisk.hierarchy_height('age') / 2, 0, privrisk.hierarchy_height('race'),
             privrisk.hierarchy_height(:'place_name') - 1, 1] AS node \gset
SELECT :'node' AS node;
CREATE TABLE census_dp AS
SELECT * FROM privrisk.dp_release('census', :qi, :qi, 1, 1e-5, levels => :'node')
    AS r(age text, sex text, race text, place text, marital_status text);
ALTER TABLE census_dp RENAME COLUMN place TO :place_name;
SELECT (SELECT count(*) FROM census) AS source_rows, count(*) AS released_rows,
       round(count(*)::numeric / (SELECT count(*) FROM census), 4) AS released_share
FROM census_dp;
SELECT age, sex, race, :place AS place, marital_status, count(*) AS rows
FROM census_dp GROUP BY 1, 2, 3, 4, 5 ORDER BY rows DESC LIMIT 5;
\echo '   audited as released: every class has at least k = 61 rows'
SELECT a->'rows' AS rows, a->'classes' AS classes, a->'k_anonymity' AS k_anonymity,
       round((a->>'prosecutor_risk')::numeric, 4) AS prosecutor_risk
FROM (SELECT privrisk.audit('census_dp', :qi) AS a) AS r;

\echo
\echo '== dp_release (fouad): each kept record (1 - drop = 0.3) gets a generalization of age and sex chosen'
\echo '   by the exponential mechanism among those covering at least t = theta |D| records, theta drawn in'
\echo '   (theta0, 1): by design often only the most general ones (NULL is the suppressed value)'
\echo '   two runs (each spends epsilon 0.5): their thresholds differ'
SELECT run, age, sex, count(*) AS rows
FROM generate_series(1, 2) AS run,
     LATERAL privrisk.dp_release('census', ARRAY['age', 'sex'], ARRAY['age', 'sex'], 0.5 + 0 * run, 1e-5, mechanism => 'fouad',
                                 drop_probability => 0.7, theta0 => 0.05) AS r(age text, sex text)
GROUP BY 1, 2, 3 ORDER BY run, rows DESC;

\echo
\echo '== The budget and its ledger'
SELECT relation, epsilon, round(spent_epsilon::numeric, 6) AS spent_epsilon, delta,
       round(spent_delta::numeric, 10) AS spent_delta FROM privrisk.budget;
SELECT spent_by, epsilon, delta, mechanism, private FROM privrisk.budget_ledger ORDER BY id;
\echo '   one more release at epsilon 1 would overspend (2 + 1 > 2.5): refused, nothing released, nothing spent'
\set ON_ERROR_STOP off
SELECT count(*) FROM privrisk.dp_release('census', :qi, :qi, 1, 1e-5, levels => :'node')
    AS r(age text, sex text, race text, place text, marital_status text);
\set ON_ERROR_STOP on
SELECT count(*) AS spends FROM privrisk.budget_ledger;
