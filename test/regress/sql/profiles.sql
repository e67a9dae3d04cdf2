-- Risk profiles and verdicts (docs/profiles.md).

-- The shipped examples.
SELECT name, thresholds, shipped FROM privrisk.risk_profile ORDER BY name;

-- A profile is checked whole before it is stored.
SELECT privrisk.create_profile('bad', '{"k": 0}');
SELECT privrisk.create_profile('bad', '{"k": 5, "l_kind": "entropy"}');
SELECT privrisk.create_profile('bad', '{"c": 0.5}');
SELECT privrisk.create_profile('bad', '{"k": 5, "kk": 3}');
SELECT privrisk.create_profile('bad', '{}');
SELECT privrisk.create_profile('bad', '[5]');
SELECT privrisk.create_profile('bad', '{"t": 0.2, "t_kind": "hierarchical"}');
SELECT privrisk.create_profile('bad', '{"epsilon": 0}');
SELECT privrisk.create_profile('', '{"k": 5}');
SELECT count(*) AS stored FROM privrisk.risk_profile WHERE name = 'bad';
SELECT privrisk.create_profile('strict', '{"k": 10, "records_at_risk": 0.05, "risk_threshold": 0.1, "epsilon": 1}',
                               'k 10, at most 5% of rows at risk above 0.1');
SELECT privrisk.create_profile('strict', '{"k": 11}');
SELECT privrisk.create_profile('strict', '{"k": 10, "records_at_risk": 0.05, "risk_threshold": 0.1, "epsilon": 1}',
                               'k 10, at most 5% of rows at risk above 0.1', replace => true);
-- Naming a profile is a right a steward is granted; only the owner's members change one.
CREATE ROLE prof_other;
CREATE ROLE prof_nobody;
GRANT EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) TO prof_other;
SET ROLE prof_nobody;
SELECT privrisk.create_profile('hipaa', '{"k": 1}');
RESET ROLE;
SET ROLE prof_other;
SELECT privrisk.drop_profile('strict');
SELECT privrisk.create_profile('strict', '{"k": 2}', replace => true);
SELECT privrisk.drop_profile('public_use_file');
-- Names that could pass for another: spaces, invisible and non-ASCII characters.
SELECT privrisk.create_profile('public_use_file ', '{"k": 1}');
SELECT privrisk.create_profile('public_use_file' || chr(8203), '{"k": 1}');
SELECT privrisk.create_profile('mine', '{"k": 1}', repeat('x', 2001));
SELECT privrisk.create_profile('mine', '{"k": 1}');
SELECT name, owner FROM privrisk.risk_profile WHERE name = 'mine';
SELECT privrisk.drop_profile('mine');
RESET ROLE;

-- Adult (UCI, 45,222 rows): quasi-identifiers age, marital status, race, sex; sensitive occupation.
\i scripts/adult-uci.sql
\set age `cat ../shared/data/adult/adult_hierarchy_age.csv`
\set marital `cat ../shared/data/adult/adult_hierarchy_marital-status.csv`
\set race `cat ../shared/data/adult/adult_hierarchy_race.csv`
\set sex `cat ../shared/data/adult/adult_hierarchy_sex.csv`
SELECT privrisk.load_hierarchy('prof_age', :'age') AS age, privrisk.load_hierarchy('prof_marital', :'marital') AS marital,
       privrisk.load_hierarchy('prof_race', :'race') AS race, privrisk.load_hierarchy('prof_sex', :'sex') AS sex;
SECURITY LABEL FOR privrisk ON COLUMN adult.age IS 'quasi_identifier(prof_age)';
SECURITY LABEL FOR privrisk ON COLUMN adult.marital_status IS 'quasi_identifier(prof_marital)';
SECURITY LABEL FOR privrisk ON COLUMN adult.race IS 'quasi_identifier(prof_race)';
SECURITY LABEL FOR privrisk ON COLUMN adult.sex IS 'quasi_identifier(prof_sex)';
SECURITY LABEL FOR privrisk ON COLUMN adult.occupation IS 'sensitive';

-- Level 0 fails k = 5 / l = 2; check() gives audit()'s values, threshold by threshold.
SELECT * FROM privrisk.check('adult', 'public_use_file');
SELECT r->'verdict'->>'summary' AS summary, r->'verdict'->'publishable' AS publishable
FROM privrisk.audit('adult', profile => 'public_use_file') AS r;
SELECT bool_and(c.value = (a->>c.measure)::float8) AS values_are_audits, count(*) AS thresholds
FROM privrisk.audit('adult') AS a, privrisk.check('adult', 'public_use_file') AS c;

-- The search takes the profile as its constraints; the node it returns passes.
CREATE TABLE prof_found AS SELECT privrisk.search('adult', profile => 'public_use_file') AS r;
SELECT r->'found' AS found, r->'result'->'levels' AS levels, r->'result'->'verdict'->>'summary' AS summary
FROM prof_found;
CREATE TABLE prof_node AS
SELECT array_agg(l::int ORDER BY i) AS levels
FROM prof_found, jsonb_array_elements_text(r->'result'->'node') WITH ORDINALITY AS n(l, i);
SELECT c.* FROM prof_node, privrisk.check('adult', 'public_use_file', levels => prof_node.levels) AS c;
SELECT bool_and(c.value = (a->>c.measure)::float8) AS values_are_audits,
       bool_and(c.value = (f.r->'result'->'measures'->>c.measure)::float8) AS values_are_searchs
FROM prof_node, prof_found AS f, privrisk.audit('adult', levels => prof_node.levels) AS a,
     privrisk.check('adult', 'public_use_file', levels => prof_node.levels) AS c;
-- A node one step less general on age fails (the search's node is minimal there).
SELECT c.measure, c.passed FROM prof_node,
       privrisk.check('adult', 'public_use_file', levels => prof_node.levels[1:0] || (prof_node.levels[1] - 1) || prof_node.levels[2:]) AS c
WHERE prof_node.levels[1] > 0;
-- (c,k)-safety: the curve's value at ck_k, strict.
SELECT measure, round(value::numeric, 4) AS value, comparison, threshold, passed
FROM privrisk.check('adult', 'ck_safe_k10', levels => ARRAY[3, 1, 1, 1]);
SELECT round(((privrisk.audit('adult', levels => ARRAY[3, 1, 1, 1], options => '{"kmax": 3}')->'ck_disclosure_curve')->>3)::numeric, 4)
       AS curve_at_3;

-- A profile the search cannot take as constraints, and contradictions.
SELECT privrisk.search('adult', profile => 'strict');
SELECT privrisk.search('adult', constraints => '{"k": 3}', profile => 'public_use_file');
SELECT privrisk.audit('adult', options => '{"risk_threshold": 0.5}', profile => 'strict');
-- A qualifier the profile leaves at its default is fixed too: a caller cannot weaken recursive l.
SELECT privrisk.create_profile('rec', '{"l": 3, "l_kind": "recursive"}');
SELECT privrisk.check('adult', 'rec', options => '{"l_c": 1000}');
SELECT privrisk.search('adult', constraints => '{"l_c": 1000}', profile => 'rec');
SELECT privrisk.drop_profile('rec');
-- t_ordered orders numbers: the search refuses text sensitive values, as audit() does not report it.
SELECT privrisk.create_profile('ordered', '{"t": 0.5, "t_kind": "ordered"}');
SELECT privrisk.search('adult', profile => 'ordered');
SELECT measure, passed, note FROM privrisk.check('adult', 'ordered');
SELECT privrisk.drop_profile('ordered');
SELECT * FROM privrisk.check('adult', NULL);
-- Measures a release does not have fail, saying why.
SELECT measure, value, passed, note FROM privrisk.check('adult', 'strict', levels => ARRAY[4, 2, 1, 1]);
CREATE TABLE prof_plain AS SELECT age, sex FROM adult WHERE id <= 100;
SELECT measure, value, passed, note FROM privrisk.check('prof_plain', 'public_use_file', ARRAY['age', 'sex']);
SELECT privrisk.check('adult', 'no_such_profile');
BEGIN;  -- the audit log keeps what it records: rolled back, not to show in other suites' logs
CALL privrisk.record_audit('adult', levels => ARRAY[4, 2, 1, 1], profile => 'public_use_file');
SELECT settings->'profile' AS profile, result->'verdict'->'publishable' AS publishable
FROM privrisk.audit_log WHERE source = 'public.adult' ORDER BY id DESC LIMIT 1;
ROLLBACK;

SELECT privrisk.drop_profile('strict');
DROP TABLE prof_found, prof_node, prof_plain;
REVOKE EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) FROM prof_other;
DROP ROLE prof_other, prof_nobody;
SELECT privrisk.drop_hierarchy(h) FROM unnest(ARRAY['prof_age', 'prof_marital', 'prof_race', 'prof_sex']) AS h;
