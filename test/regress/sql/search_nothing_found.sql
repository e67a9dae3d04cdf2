-- When no node qualifies, search() says why (docs/search.md, "When nothing qualifies"): the
-- constraints measured at the top node (every quasi-identifier at ⊥), and the nearest node.
SELECT privrisk.interval_hierarchy('nf_age', 0, 100, ARRAY[10, 50]) AS height;
CREATE TABLE nf AS
SELECT 20 + (i * 7) % 60 AS age, CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END AS sex,
       CASE WHEN i % 3 = 0 THEN 'yes' ELSE 'no' END AS hiv
FROM generate_series(1, 1000) AS i;
SECURITY LABEL FOR privrisk ON COLUMN nf.age IS 'quasi_identifier(nf_age)';
SECURITY LABEL FOR privrisk ON COLUMN nf.sex IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN nf.hiv IS 'sensitive';

-- ck_safe_k10 (k = 10, c = 0.5, ck_k = 3) on a two-valued sensitive column: an attacker who
-- may rule out 3 values knows everyone's, even when the whole table is one class (MD_3 = 1).
CREATE TABLE nf_result AS SELECT r FROM privrisk.search('nf', profile => 'ck_safe_k10') AS r;
SELECT r->'found' AS found, r->'result' AS result, r->'nothing_found'->>'summary' AS summary FROM nf_result;
SELECT a->>'constraint' AS constraint, a->'value' AS value, a->'threshold' AS threshold, a->'passed' AS passed
FROM nf_result, jsonb_array_elements(r->'nothing_found'->'at_top') AS a;
SELECT r->'nothing_found'->'nearest' AS nearest FROM nf_result;
-- The keys are those agreed for the report (summary, at_top, nearest), nothing else.
SELECT array_agg(k ORDER BY k) AS keys FROM nf_result, jsonb_object_keys(r->'nothing_found') AS k;

-- Several constraints, one of them failing at the top: the nearest node is the best that
-- meets the others (here l and k), and it still fails max_risk.
SELECT r->'nothing_found'->>'summary' AS summary, r->'nothing_found'->'nearest' AS nearest
FROM privrisk.search('nf', constraints => '{"k": 10, "l": 2, "max_risk": 0.001}') AS r;

-- With suppression: the share of rows in violating classes is measured against max_suppression.
SELECT a->>'constraint' AS constraint, a->'value' AS value, a->'threshold' AS threshold, a->'passed' AS passed
FROM privrisk.search('nf', constraints => '{"k": 600, "max_suppression": 0.1}') AS r,
     jsonb_array_elements(r->'nothing_found'->'at_top') AS a;

-- A search that finds a node has no such key.
SELECT r->'found' AS found, r ? 'nothing_found' AS explained FROM privrisk.search('nf', constraints => '{"k": 10}') AS r;

DROP TABLE nf_result, nf;
SELECT privrisk.drop_hierarchy('nf_age');
