-- Column labels (docs/labels.md): SECURITY LABEL FOR privrisk, read back,
-- refused when wrong, taken by every function whose arguments are omitted,
-- and privacy by default in policies.

-- A new session has not loaded the library, yet the provider is there: an
-- event trigger loads the library before every SECURITY LABEL (0.13 answered
-- 'security label provider "privrisk" is not loaded' until a privrisk function
-- had been called, so a restore of one schema or table lost every label).
CREATE TABLE lab (id int, age int, sex text, zip text, diagnosis text, region text);
SECURITY LABEL FOR privrisk ON COLUMN lab.id IS 'identifier';
SELECT objname, label FROM pg_seclabels WHERE provider = 'privrisk' ORDER BY objname;
-- The trigger's function is for the trigger alone.
SELECT privrisk.load_label_provider();
INSERT INTO lab SELECT i, 20 + (i * 7) % 60, CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END,
       '479' || lpad((i % 37)::text, 2, '0'), (ARRAY['flu', 'cold', 'asthma', 'diabetes', 'cancer'])[1 + (i * 13) % 5],
       CASE WHEN i % 4 = 0 THEN 'metro' ELSE 'rural' END
FROM generate_series(1, 1000) AS i;
SELECT privrisk.interval_hierarchy('lab_age', 0, 120, ARRAY[5, 10, 20]), privrisk.prefix_hierarchy('lab_zip', 5),
       privrisk.load_hierarchy('lab_sex', E'F;*\nM;*');
SECURITY LABEL FOR privrisk ON COLUMN lab.id IS 'identifier';
SECURITY LABEL FOR privrisk ON COLUMN lab.age IS 'quasi_identifier(lab_age)';
SECURITY LABEL FOR privrisk ON COLUMN lab.sex IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN lab.zip IS 'quasi_identifier(lab_zip)';
SECURITY LABEL FOR privrisk ON COLUMN lab.diagnosis IS 'sensitive';
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'insensitive';
SELECT * FROM privrisk.column_labels('lab');
SELECT objname, label FROM pg_seclabels WHERE provider = 'privrisk' ORDER BY objname;

-- Wrong labels are refused and change nothing.
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'Sensitive';
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'quasi_identifier()';
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'quasi_identifier(a(b))';
-- Strict syntax: no space around the hierarchy's name (it would be part of the name and
-- fail only when used); spaces inside a name are the name's own.
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'quasi_identifier( lab_age )';
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'quasi_identifier(lab_age )';
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS ' quasi_identifier(lab_age)';
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'quasi_identifier (lab_age)';
SECURITY LABEL FOR privrisk ON TABLE lab IS 'sensitive';
SELECT role FROM privrisk.column_labels('lab') WHERE column_name = 'region';
-- Only the table's owner labels its columns (PostgreSQL's check, before the provider's).
CREATE ROLE lab_stranger;
GRANT SELECT ON lab TO lab_stranger;
SET ROLE lab_stranger;
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'identifier';
SELECT count(*) AS labels_read FROM privrisk.column_labels('lab');
RESET ROLE;

-- Omitted arguments come from the labels: the same report as the explicit call.
SELECT privrisk.audit('lab') = privrisk.audit('lab', ARRAY['age', 'sex', 'zip'], 'diagnosis',
                                               ARRAY['lab_age', NULL, 'lab_zip']) AS audit_same;
SELECT privrisk.audit('lab', levels => ARRAY[2, 0, 1]) = privrisk.audit('lab', ARRAY['age', 'sex', 'zip'], 'diagnosis',
           ARRAY['lab_age', NULL, 'lab_zip'], ARRAY[2, 0, 1]) AS audit_levels_same,
       (privrisk.audit('lab', levels => ARRAY[2, 0, 1])->>'k_anonymity')::int AS k;
SELECT privrisk.search('lab', constraints => '{"k": 20}') - 'search' =  -- all but the timings
       privrisk.search('lab', ARRAY['age', 'sex', 'zip'], ARRAY['lab_age', NULL, 'lab_zip'], 'diagnosis', '{"k": 20}')
           - 'search' AS search_same,
       privrisk.search('lab', constraints => '{"k": 20}')->'result'->'levels' AS levels;
SELECT (SELECT count(*) FROM privrisk.lattice('lab', constraints => '{"k": 20}') WHERE qualifies) =
       (SELECT count(*) FROM privrisk.lattice('lab', ARRAY['age', 'sex', 'zip'], ARRAY['lab_age', NULL, 'lab_zip'],
                                              'diagnosis', '{"k": 20}') WHERE qualifies) AS lattice_same;
SELECT count(*) AS classes, sum(privrisk.hist_size(hist)) AS rows
FROM privrisk.classes('lab', levels => ARRAY[2, 0, 1]);
SELECT privrisk.workload_utility('lab', target => 'region') =
       privrisk.workload_utility('lab', ARRAY['age', 'sex', 'zip'], 'diagnosis', 'region', ARRAY['lab_age', NULL, 'lab_zip'])
       AS workload_same;
-- Explicit arguments win; the labels fill in the rest (here the sensitive column and zip's hierarchy).
SELECT privrisk.audit('lab', ARRAY['zip'], levels => ARRAY[1]) =
       privrisk.audit('lab', ARRAY['zip'], 'diagnosis', ARRAY['lab_zip'], ARRAY[1]) AS explicit_wins;
BEGIN;  -- rolled back: other suites list the audit log
CALL privrisk.record_audit('lab', levels => ARRAY[2, 0, 1]);
SELECT settings FROM privrisk.audit_log WHERE source = 'public.lab' ORDER BY id DESC LIMIT 1;
ROLLBACK;

-- Nothing to take, or more than one candidate: errors that say what to do.
CREATE TABLE lab_bare AS SELECT * FROM lab;
SELECT privrisk.audit('lab_bare');
SECURITY LABEL FOR privrisk ON COLUMN lab_bare.zip IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN lab_bare.diagnosis IS 'sensitive';
SECURITY LABEL FOR privrisk ON COLUMN lab_bare.region IS 'sensitive';
SELECT privrisk.audit('lab_bare');
SELECT (privrisk.audit('lab_bare', sensitive => 'region')->>'l_distinct')::int AS l_region;
-- Labels that name no hierarchy: the search and a DP release say what to pass.
SELECT privrisk.search('lab_bare', sensitive => 'region', constraints => '{"k": 2}');
SELECT * FROM privrisk.dp_release('lab_bare', epsilon => 1, delta => 1e-5, levels => ARRAY[0]) AS r(zip text);
-- A dropped column's label goes with it.
ALTER TABLE lab_bare DROP COLUMN region;
SELECT * FROM privrisk.column_labels('lab_bare');
SELECT count(*) AS labels_left FROM pg_seclabels WHERE provider = 'privrisk' AND objname LIKE 'lab_bare.%';
-- A role that may not read the table learns nothing of it, labels included.
CREATE ROLE lab_none;
SET ROLE lab_none;
SELECT privrisk.audit('lab');
SELECT * FROM privrisk.column_labels('lab');
RESET ROLE;

-- Privacy by default: a policy's releases hide the identifier columns (as the labels are when a
-- release is read); nothing is generalized implicitly.
SELECT privrisk.create_policy('lab_p', 'lab');
SELECT count(*) AS explicit_rules FROM privrisk.policy_rule WHERE policy = 'public.lab_p';
SELECT privrisk.create_policy('lab_q', 'lab', unlabelled => 'hide');
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS NULL;
SELECT privrisk.create_policy('lab_r', 'lab', unlabelled => 'hide');
SELECT name, unlabelled FROM privrisk.policy WHERE base_name LIKE 'lab_%' ORDER BY name;
SELECT privrisk.create_policy('lab_s', 'lab', unlabelled => 'drop');
-- Safe by default: a view of a policy without rules gives every labelled column as NULL
-- and names them; it warns of the unlabelled columns it publishes as they are.
SELECT privrisk.create_release_view('lab_p', 'lab_public');
SELECT count(*) AS rows, count(id) AS id, count(age) AS age, count(sex) AS sex, count(zip) AS zip,
       count(diagnosis) AS diagnosis, count(region) AS region FROM lab_public;
SELECT privrisk.add_rule('lab_p', 'diagnosis', 'hide', 'false');
DROP VIEW lab_public;
SELECT privrisk.create_release_view('lab_p', 'lab_public');
-- A reader of the view only: a column added and labelled identifier after the policy is hidden
-- at once, by name too; an explicit rule cannot publish an identifier (rules combine to the most general).
GRANT SELECT ON lab_public TO lab_stranger;
ALTER TABLE lab ADD COLUMN ssn text;
UPDATE lab SET ssn = 'SSN-' || id;
SECURITY LABEL FOR privrisk ON COLUMN lab.ssn IS 'identifier';
SELECT privrisk.add_rule('lab_p', 'id', 'hide', 'true');
SET ROLE lab_stranger;
SELECT count(*) AS rows, count(ssn) AS ssn_seen, count(id) AS id_seen
FROM privrisk.release('lab_p') AS r(id int, ssn text);
RESET ROLE;
-- With unlabelled => 'hide', a column without a label is hidden too, and a rule does not disclose
-- it (a rule does disclose a quasi-identifier); labelling it insensitive publishes it.
SELECT privrisk.add_rule('lab_q', 'age', 'hide', 'true');
SELECT privrisk.add_rule('lab_q', 'region', 'hide', 'true');
SELECT privrisk.create_release_view('lab_q', 'lab_q_public');
SELECT count(region) AS region_seen, count(age) AS age_seen FROM lab_q_public;
SECURITY LABEL FOR privrisk ON COLUMN lab.region IS 'insensitive';
SELECT count(region) AS region_seen FROM lab_q_public;
-- A release view takes its policy's source's labels (without hierarchies: its values are released),
-- also for a reader who may read the view only.
SELECT privrisk.add_rule('lab_r', 'age', 'gen', 'false', 'lab_age', 2);
SELECT privrisk.add_rule('lab_r', 'zip', 'gen', 'false', 'lab_zip', 1);
SELECT privrisk.add_rule('lab_r', 'sex', 'hide', 'true');
SELECT privrisk.create_release_view('lab_r', 'lab_r_public');
GRANT SELECT ON lab_r_public TO lab_stranger;
SET ROLE lab_stranger;
SELECT (privrisk.audit('lab_r_public')->>'k_anonymity')::int AS k_release;
RESET ROLE;
SELECT (privrisk.audit('lab', levels => ARRAY[2, 0, 1])->>'k_anonymity')::int AS k_source;
-- System columns are not labelled.
SECURITY LABEL FOR privrisk ON COLUMN lab.ctid IS 'identifier';

DROP VIEW lab_public, lab_q_public, lab_r_public;
SELECT privrisk.drop_policy(p) FROM unnest(ARRAY['lab_p', 'lab_q', 'lab_r']) AS p;
DROP TABLE lab, lab_bare;
DROP ROLE lab_stranger, lab_none;
SELECT privrisk.drop_hierarchy(h) FROM unnest(ARRAY['lab_age', 'lab_zip', 'lab_sex']) AS h;
