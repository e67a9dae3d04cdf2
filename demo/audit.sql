-- The demo's report: the table, its hierarchies, privrisk.audit() of a few
-- candidate releases, the measures as aggregates, and hide/gen on a few rows.
-- Hierarchies are named after their columns.
\pset footer off
\echo
\echo '== Census table'
SELECT count(*) AS rows, count(DISTINCT zip_or_country) AS places, round(avg(age), 1) AS mean_age,
       round(100.0 * count(*) FILTER (WHERE salary_class = '>50K') / count(*), 1) AS pct_over_50k
FROM (SELECT age, salary_class, :place AS zip_or_country FROM census) AS c;

\echo
\echo '== Hierarchies'
SELECT name, kind, height, leaves FROM privrisk.hierarchies ORDER BY name;

\echo
\echo '== privrisk.audit(): risk of releasing occupation with a few quasi-identifier sets and levels'
\echo '   (level 0 = original value; k = smallest class; at_risk = share of rows in classes under 5;'
\echo '    l = distinct occupations in the poorest class; t = largest variational distance; delta and gains in nats;'
\echo '    ck_md1, ck_md3 = the most an attacker knowing 1 or 3 implications can learn: (c,k)-safety)'
SELECT array_to_string(q.qi, ', ') AS quasi_identifiers, array_to_string(q.levels, ',') AS levels,
       r->'classes' AS classes, r->'k_anonymity' AS k, round((r->>'records_at_risk')::numeric, 3) AS at_risk,
       r->'l_distinct' AS l, round((r->>'t_equal')::numeric, 3) AS t,
       CASE WHEN r->>'delta_disclosure' = 'Infinity' THEN 'inf' ELSE round((r->>'delta_disclosure')::numeric, 3)::text END AS delta,
       round((r->>'a_know')::numeric, 4) AS a_know, round((r->>'a_acc')::numeric, 4) AS a_acc,
       round((r->'ck_disclosure_curve'->>1)::numeric, 3) AS ck_md1, round((r->'ck_disclosure_curve'->>3)::numeric, 3) AS ck_md3
FROM (VALUES
        (1, ARRAY['age', 'sex', :'place_name'], ARRAY[0, 0, 0]),
        (2, ARRAY['age', 'sex', :'place_name'], ARRAY[1, 0, 1]),
        (3, ARRAY['age', 'sex', :'place_name'], ARRAY[2, 0, 2]),
        (4, ARRAY['age', 'sex', :'place_name'], ARRAY[3, 1, 2]),
        (5, ARRAY['age', 'sex', 'race', 'marital_status'], ARRAY[0, 0, 0, 0]),
        (6, ARRAY['age', 'sex', 'race', 'marital_status'], ARRAY[1, 0, 1, 1]),
        (7, ARRAY['age', 'sex', 'race', 'marital_status'], ARRAY[2, 0, 1, 1]),
        (8, ARRAY['age', 'sex', 'race', 'education'], ARRAY[0, 0, 0, 0]),
        (9, ARRAY['age', 'sex', 'race', 'education'], ARRAY[2, 0, 1, 2])
     ) AS q(n, qi, levels),
     LATERAL (SELECT privrisk.audit('census', q.qi, 'occupation', q.qi, q.levels) AS r) AS a
ORDER BY q.n;

\echo
\echo '== The same measures as SQL aggregates: hist() per class, then a measure over classes'
SELECT privrisk.k_anonymity(h) AS k, round(privrisk.a_know(h)::numeric, 4) AS a_know,
       round(privrisk.information_gain(h)::numeric, 4) AS gain_nats, privrisk.l_diversity(h, 'recursive', 3) AS l_c3
FROM (SELECT privrisk.hist(occupation) AS h FROM census
      GROUP BY privrisk.gen(age, 'age', 2), sex, privrisk.gen(race, 'race', 1)) AS classes;

\echo
\echo '== Recorded for the auditors (privrisk.audit_log)'
CALL privrisk.record_audit('census', ARRAY['age', 'sex', 'race'], 'occupation', ARRAY['age', 'sex', 'race'], ARRAY[2, 0, 1]);
SELECT id, audited_by, source, settings->'levels' AS levels, result->'k_anonymity' AS k,
       round((result->>'a_know')::numeric, 4) AS a_know
FROM privrisk.audit_log ORDER BY id;

\echo
\echo '== hide/gen: the disclosure operators on a few rows'
\echo '   occupation is hidden below age 30; education is generalized unless salary is <=50K;'
\echo '   NULL is the suppressed value (⊥)'
SELECT id, age, privrisk.gen(age, 'age', 1) AS age_l1, privrisk.gen(age, 'age', 2) AS age_l2,
       :place AS place, privrisk.gen(:place, :'place_name', :place_level) AS place_generalized,
       privrisk.hide(occupation, age >= 30) AS occupation,
       education, privrisk.gen(education, 'education', 1, salary_class = '<=50K') AS education_released
FROM census ORDER BY id LIMIT 8;
