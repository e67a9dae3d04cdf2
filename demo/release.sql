-- The demo's release: a disclosure policy on the census table, published as a
-- view that an analyst role reads with nothing but SELECT on the view, and the
-- audit of what that view releases. Hierarchies are named after their columns.
\pset footer off
\echo
\echo '== A disclosure policy: each rule discloses a value only where its condition is TRUE'
\echo '   age generalized to its level-1 interval for everyone under 65; the place generalized for everyone;'
\echo '   occupation hidden below age 25; education generalized unless the salary is <=50K'
SELECT privrisk.create_policy('census_release', 'census');
SELECT privrisk.add_rule('census_release', 'age', 'gen', 'age >= 65', 'age', 1) AS rule_1,
       privrisk.add_rule('census_release', :'place_name', 'gen', 'false', :'place_name', :place_level) AS rule_2,
       privrisk.add_rule('census_release', 'occupation', 'hide', 'age >= 25') AS rule_3,
       privrisk.add_rule('census_release', 'education', 'gen', $$salary_class = '<=50K'$$, 'education', 1) AS rule_4;
SELECT privrisk.create_release_view('census_release', 'census_release') AS view;
SET client_min_messages = warning;
DROP ROLE IF EXISTS privrisk_demo_analyst;
RESET client_min_messages;
CREATE ROLE privrisk_demo_analyst;
GRANT SELECT ON census_release TO privrisk_demo_analyst;

\echo
\echo '== What the analyst sees (SET ROLE privrisk_demo_analyst: no right on census itself)'
SET ROLE privrisk_demo_analyst;
SELECT id, age, sex, :place AS place, education, occupation, salary_class FROM census_release ORDER BY id LIMIT 8;
\echo '   a WHERE on a hidden value finds only released values:'
SELECT count(*) AS rows, count(occupation) AS occupation_disclosed,
       count(*) FILTER (WHERE occupation = 'Sales') AS sales_disclosed
FROM census_release;
\echo '   the plan: the release is a custom scan of the source, parallel when it pays'
EXPLAIN (COSTS OFF) SELECT count(*) FROM census_release WHERE occupation = 'Sales';
\echo '   the source itself stays closed:'
\set ON_ERROR_STOP 0
SELECT count(*) FROM census;
\set ON_ERROR_STOP 1
RESET ROLE;
\echo '   checked by the steward against the source: no occupation of anyone under 25 was released'
SELECT count(*) FILTER (WHERE c.age < 25) AS under_25,
       count(*) FILTER (WHERE c.age < 25 AND r.occupation IS NOT NULL) AS under_25_released,
       count(*) FILTER (WHERE c.age >= 25 AND r.occupation IS DISTINCT FROM c.occupation) AS others_changed
FROM census c JOIN census_release r USING (id);

\echo
\echo '== The audit of the release itself (its generalized age and place are the quasi-identifiers)'
SELECT r->'classes' AS classes, r->'k_anonymity' AS k, round((r->>'records_at_risk')::numeric, 3) AS at_risk,
       r->'l_distinct' AS l, round((r->>'a_know')::numeric, 4) AS a_know,
       round((r->'ck_disclosure_curve'->>1)::numeric, 3) AS ck_md1
FROM (SELECT privrisk.audit('census_release', ARRAY['age', 'sex', :'place_name'], 'occupation') AS r) AS a;
