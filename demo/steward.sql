-- The steward's layer: label the census table once, audit it against a risk
-- profile and say the verdict in words, then search for a publishable release.
-- psql variable :place_name is the place column (zip or native_country).
\pset footer off
\echo
\echo '== Labels: each column says once what it is (SECURITY LABEL FOR privrisk)'
SECURITY LABEL FOR privrisk ON COLUMN census.id IS 'identifier';
SECURITY LABEL FOR privrisk ON COLUMN census.age IS 'quasi_identifier(age)';
SECURITY LABEL FOR privrisk ON COLUMN census.sex IS 'quasi_identifier(sex)';
SECURITY LABEL FOR privrisk ON COLUMN census.race IS 'quasi_identifier(race)';
SECURITY LABEL FOR privrisk ON COLUMN census.marital_status IS 'quasi_identifier(marital_status)';
SELECT format('SECURITY LABEL FOR privrisk ON COLUMN census.%I IS %L', :'place_name',
              'quasi_identifier(' || :'place_name' || ')') \gexec
SECURITY LABEL FOR privrisk ON COLUMN census.occupation IS 'sensitive';
SELECT column_name, role, hierarchy FROM privrisk.column_labels('census');

\echo
\echo '== Verdict: the table as it is, against the shipped example profile public_use_file (k >= 5, l >= 2)'
SELECT description FROM privrisk.risk_profile WHERE name = 'public_use_file';
SELECT measure, value, comparison, threshold, CASE WHEN passed THEN 'pass' ELSE 'FAIL' END AS outcome, margin
FROM privrisk.check('census', 'public_use_file');
SELECT r->'verdict'->>'summary' AS verdict FROM privrisk.audit('census', profile => 'public_use_file') AS r;

\echo
\echo '== Search: the most useful release that is publishable under the profile'
SELECT privrisk.search('census', profile => 'public_use_file') AS found \gset
SELECT :'found'::jsonb->'result'->'levels' AS levels, round((:'found'::jsonb->'result'->>'utility')::numeric, 4) AS loss,
       :'found'::jsonb->'result'->'verdict'->>'summary' AS verdict;
\echo '   every level is a step up its column''s hierarchy; a level at the hierarchy''s height suppresses'
\echo '   the column (⊥): the search says so rather than leave it to be read off the levels'
SELECT key AS column, value::int AS level, privrisk.hierarchy_height(
           (SELECT hierarchy FROM privrisk.column_labels('census') WHERE column_name = key)) AS height,
       CASE WHEN value::int = privrisk.hierarchy_height(
                (SELECT hierarchy FROM privrisk.column_labels('census') WHERE column_name = key))
            THEN 'suppressed' WHEN value::int = 0 THEN 'as it is' ELSE 'generalized' END AS released
FROM jsonb_each_text(:'found'::jsonb->'result'->'levels') ORDER BY key;
