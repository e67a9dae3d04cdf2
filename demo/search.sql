-- The demo's search: the most useful full-domain generalization of the census
-- table that is 10-anonymous and (0.35, 1)-safe for occupation, published
-- through a policy and a release view, and audited there. Hierarchies are named
-- after their columns.
\pset footer off
\echo
\echo '== Search: k = 10 and (c, k) = (0.35, 1) for occupation, least generalization loss'
\set qi 'ARRAY[''age'', ''sex'', ''race'', ' :'place_name' ', ''marital_status'']'
SELECT privrisk.search('census', :qi, :qi, 'occupation', '{"k": 10, "c": 0.35, "ck_k": 1}') AS result \gset
SELECT :'result'::jsonb->'result'->'levels' AS node,
       round((:'result'::jsonb->'result'->>'utility')::numeric, 4) AS loss,
       :'result'::jsonb->'result'->'measures' AS measures;
SELECT :'result'::jsonb->'search' AS search_statistics;
\echo '   the same lattice with k alone, for comparison: a lower loss, but MD_1 is not checked'
SELECT r->'result'->'levels' AS node, round((r->'result'->>'utility')::numeric, 4) AS loss
FROM (SELECT privrisk.search('census', :qi, :qi, 'occupation', '{"k": 10}') AS r) AS s;
\echo '   the risk-utility frontier: qualifying nodes, and the best loss at each height'
SELECT height, count(*) FILTER (WHERE qualifies) AS qualifying, count(*) AS nodes,
       round(min(utility) FILTER (WHERE qualifies)::numeric, 4) AS best_loss
FROM privrisk.lattice('census', :qi, :qi, 'occupation', '{"k": 10, "c": 0.35, "ck_k": 1}')
GROUP BY height ORDER BY height;

\echo
\echo '== Published: a policy with one gen rule per generalized column, and its release view'
SELECT privrisk.apply_generalization('census_safe', :'result') AS rules;
SELECT privrisk.create_release_view('census_safe', 'census_safe') AS view;
SELECT age, sex, race, :place AS place, marital_status, count(*) AS rows
FROM census_safe GROUP BY 1, 2, 3, 4, 5 ORDER BY rows LIMIT 5;
\echo '   audited on the view itself: the same k and MD_1 as the search reported'
SELECT a->'classes' AS classes, a->'k_anonymity' AS k_anonymity,
       round((a->'ck_disclosure_curve'->>1)::numeric, 4) AS md_1
FROM (SELECT privrisk.audit('census_safe', :qi, 'occupation', options => '{"kmax": 1}') AS a) AS r;
\echo '   what the release is still good for: salary class predicted by naive Bayes (10 folds) from the'
\echo '   published columns, against the trivial releases (no quasi-identifiers; no occupation)'
SELECT round((w->>'u_san')::numeric, 4) AS u_san, round((w->>'u_max')::numeric, 4) AS u_intact,
       round((w->>'u_base')::numeric, 4) AS u_base, round((w->>'gain')::numeric, 4) AS gain
FROM (SELECT privrisk.workload_utility('census', :qi, 'occupation', 'salary_class', :qi,
          ARRAY(SELECT jsonb_array_elements_text(:'result'::jsonb->'result'->'node')::int)) AS w) AS s;
\echo '   and what it still tells about occupation: I(quasi-identifiers; occupation), source vs release'
SELECT round(privrisk.mutual_information_bits(ROW(age, sex, race, :place, marital_status), occupation)::numeric, 4)
           AS source_mi_bits,
       (SELECT round(privrisk.mutual_information_bits(ROW(age, sex, race, :place, marital_status), occupation)::numeric, 4)
        FROM census_safe) AS release_mi_bits
FROM census;
