-- The first audit: for a few quasi-identifier sets at a few generalization
-- levels, how many equivalence classes the release has and how small the
-- smallest is (k-anonymity). Hierarchies are named after their columns.
\pset footer off
CREATE FUNCTION pg_temp.class_stats(qi text[], levels int[],
    OUT rows bigint, OUT classes bigint, OUT smallest_class bigint, OUT rows_in_classes_under_5 bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    keys text := '';
BEGIN
    -- Column and hierarchy names are quoted (%I, %L), never spliced.
    FOR i IN 1 .. array_length(qi, 1) LOOP
        keys := keys || CASE WHEN i > 1 THEN ', ' ELSE '' END
                     || format('privrisk.gen(%I, %L, %s)', qi[i], qi[i], levels[i]);
    END LOOP;
    EXECUTE format('SELECT sum(c)::bigint, count(*), min(c), coalesce(sum(c) FILTER (WHERE c < 5), 0)::bigint '
                   'FROM (SELECT count(*) AS c FROM census GROUP BY %s) AS classes', keys)
        INTO rows, classes, smallest_class, rows_in_classes_under_5;
END $$;

\echo
\echo '== Census table'
SELECT count(*) AS rows, count(DISTINCT zip_or_country) AS places, round(avg(age), 1) AS mean_age,
       round(100.0 * count(*) FILTER (WHERE salary_class = '>50K') / count(*), 1) AS pct_over_50k
FROM (SELECT age, salary_class, :place AS zip_or_country FROM census) AS c;

\echo
\echo '== Hierarchies'
SELECT name, kind, height, leaves FROM privrisk.hierarchies ORDER BY name;

\echo
\echo '== Equivalence classes by quasi-identifiers and generalization levels'
\echo '   (level 0 = original value; smallest_class is the k of k-anonymity)'
SELECT array_to_string(q.qi, ', ') AS quasi_identifiers, array_to_string(q.levels, ',') AS levels, s.*
FROM (VALUES
        (1, ARRAY['age', 'sex', :'place_name'], ARRAY[0, 0, 0]),
        (2, ARRAY['age', 'sex', :'place_name'], ARRAY[1, 0, 1]),
        (3, ARRAY['age', 'sex', :'place_name'], ARRAY[2, 0, 2]),
        (4, ARRAY['age', 'sex', :'place_name'], ARRAY[3, 1, 2]),
        (5, ARRAY['age', 'sex', 'race', 'marital_status'], ARRAY[0, 0, 0, 0]),
        (6, ARRAY['age', 'sex', 'race', 'marital_status'], ARRAY[1, 0, 1, 1]),
        (7, ARRAY['age', 'sex', 'race', 'marital_status'], ARRAY[2, 0, 1, 1]),
        (8, ARRAY['age', 'sex', 'race', 'education', 'occupation'], ARRAY[0, 0, 0, 0, 0]),
        (9, ARRAY['age', 'sex', 'race', 'education', 'occupation'], ARRAY[2, 0, 1, 2, 1])
     ) AS q(n, qi, levels),
     LATERAL pg_temp.class_stats(q.qi, q.levels) AS s
ORDER BY q.n;

\echo
\echo '== hide/gen: the disclosure operators on a few rows'
\echo '   occupation is hidden below age 30; education is generalized unless salary is <=50K;'
\echo '   NULL is the suppressed value (⊥)'
SELECT id, age, privrisk.gen(age, 'age', 1) AS age_l1, privrisk.gen(age, 'age', 2) AS age_l2,
       :place AS place, privrisk.gen(:place, :'place_name', :place_level) AS place_generalized,
       privrisk.hide(occupation, age >= 30) AS occupation,
       education, privrisk.gen(education, 'education', 1, salary_class = '<=50K') AS education_released
FROM census ORDER BY id LIMIT 8;
