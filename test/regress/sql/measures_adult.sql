-- Brickell & Shmatikov Table 3 on UCI Adult ([BS08], §6.5): the 45,222
-- complete rows, Q = (age, sex, race), S = occupation.
\i scripts/adult-uci.sql
SELECT count(*) AS rows FROM adult;
-- A_base: the occupation counts of [BS08]
SELECT occupation, count(*) FROM adult GROUP BY occupation ORDER BY count(*) DESC, occupation;

-- "Intact": A_acc 0.1034, A_know 0.2492 (full precision: 0.10344522577506524, 0.2491583675532344).
CREATE TABLE occupation_classes AS
SELECT privrisk.hist(occupation) AS h FROM adult GROUP BY age, sex, race;
SELECT count(*) AS classes, round(privrisk.a_acc(h)::numeric, 4) AS a_acc, round(privrisk.a_know(h)::numeric, 4) AS a_know,
       abs(privrisk.a_acc(h) - 0.10344522577506524) < 1e-12 AS a_acc_exact,
       abs(privrisk.a_know(h) - 0.2491583675532344) < 1e-12 AS a_know_exact,
       privrisk.information_gain(h) < privrisk.delta_disclosure(h) AS lemma1
FROM occupation_classes;
-- audit() computes the same in one scan.
SELECT result->'rows' AS rows, result->'classes' AS classes,
       abs((result->>'a_acc')::float8 - 0.10344522577506524) < 1e-12 AS a_acc_exact,
       abs((result->>'a_know')::float8 - 0.2491583675532344) < 1e-12 AS a_know_exact,
       abs((result->>'information_gain')::float8 - (SELECT privrisk.information_gain(h) FROM occupation_classes)) < 1e-12
           AS gain_matches_aggregate,
       (result->>'k_anonymity')::bigint = (SELECT privrisk.k_anonymity(h) FROM occupation_classes) AS k_matches_aggregate
FROM (SELECT privrisk.audit('adult', ARRAY['age', 'sex', 'race'], 'occupation') AS result) AS a;

-- Generalized view G4 of [BS08]: age in decades, race suppressed:
-- classes 18, k 12, t 0.5097, l(c=3) 4, A_know 0.2027, A_acc 0.0864.
SELECT privrisk.interval_hierarchy('decade', 0, 100, ARRAY[10]);
\set race `cat ../shared/data/adult/adult_hierarchy_race.csv`
\set sex `cat ../shared/data/adult/adult_hierarchy_sex.csv`
\set age `cat ../shared/data/adult/adult_hierarchy_age.csv`
SELECT privrisk.load_hierarchy('race', :'race'), privrisk.load_hierarchy('sex', :'sex'),
       privrisk.load_hierarchy('age', :'age');
SELECT result->'classes' AS classes, result->'k_anonymity' AS k, round((result->>'t_equal')::numeric, 4) AS t,
       result->'l_recursive' AS l_c3, round((result->>'a_know')::numeric, 4) AS a_know,
       round((result->>'a_acc')::numeric, 4) AS a_acc
FROM (SELECT privrisk.audit('adult', ARRAY['age', 'sex', 'race'], 'occupation', ARRAY['decade', NULL, 'race'],
                            ARRAY[1, 0, 1]) AS result) AS a;

-- "Suppressed" (T*): every quasi-identifier at its top level gives 0 and 0; k = 45,222; l(c=3) = 11.
SELECT result->'classes' AS classes, result->'k_anonymity' AS k, result->'a_acc' AS a_acc, result->'a_know' AS a_know,
       result->'information_gain' AS gain, result->'l_recursive' AS l_c3, result->'delta_disclosure' AS delta
FROM (SELECT privrisk.audit('adult', ARRAY['age', 'sex', 'race'], 'occupation', ARRAY['age', 'sex', 'race'],
                            ARRAY[4, 1, 1]) AS result) AS a;

-- Coarsening never increases A_know or A_acc along a chain of ARX age levels.
SELECT level, round((r->>'a_know')::numeric, 6) AS a_know, round((r->>'a_acc')::numeric, 6) AS a_acc,
       (r->>'k_anonymity')::int AS k
FROM generate_series(0, 4) AS level,
     LATERAL (SELECT privrisk.audit('adult', ARRAY['age', 'sex', 'race'], 'occupation',
                                    ARRAY['age', NULL, NULL], ARRAY[level, 0, 0]) AS r) AS a
ORDER BY level;

-- record_audit keeps who, what, which settings and the result.
CALL privrisk.record_audit('adult', ARRAY['age', 'sex', 'race'], 'occupation');
SELECT audited_by = current_user AS by_me, source, settings->'quasi_identifiers' AS qi,
       abs((result->>'a_know')::float8 - 0.2491583675532344) < 1e-12 AS a_know_exact
FROM privrisk.audit_log ORDER BY id DESC LIMIT 1;

DROP TABLE occupation_classes, adult;
SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy ORDER BY name;
DELETE FROM privrisk.audit_log;
