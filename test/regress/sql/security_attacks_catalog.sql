-- Adversarial suite, part 1b: privrisk's own SQL against look-alikes of
-- built-ins, forged and stale catalog rows, inheritance, and the catalog's
-- visibility (classes 9, 7 and on). The lab: test/regress/attack_lab.psql.
\i test/regress/attack_lab.psql

------------------------------------------------------------------------------
-- Class 9: privrisk's plpgsql and SQL must not call the caller's look-alikes of
-- built-ins (jsonb_typeof, string_agg, ...), and its tables must hold no forged
-- or stale rows.
------------------------------------------------------------------------------
\c - atk_stranger
CREATE FUNCTION atk_stranger.jsonb_typeof(jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM atk_stranger.evil('jsonb_typeof'); RETURN pg_catalog.jsonb_typeof($1); END $$;
SET search_path = atk_stranger, pg_catalog;
-- C1. audit() of its own table.
SELECT privrisk.audit('atk_stranger.mine', ARRAY['zip']) -> 'k_anonymity' AS k;
SELECT * FROM atk_lab.verdict();
-- C2. search().
SELECT privrisk.search('atk_stranger.mine', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 2}') -> 'result' -> 'node' AS node;
SELECT * FROM atk_lab.verdict();
-- C3. lattice().
SELECT count(*) AS nodes FROM privrisk.lattice('atk_stranger.mine', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 2}');
SELECT * FROM atk_lab.verdict();
-- C4. record_audit().
CALL privrisk.record_audit('atk_stranger.mine', ARRAY['zip']);
SELECT * FROM atk_lab.verdict();
-- C5. match_counts() reads its mapping with SQL of its own.
CREATE TABLE atk_stranger.dict (zip text);
INSERT INTO atk_stranger.dict VALUES ('47901'), ('47902'), ('4790*');
SELECT sum(rows) AS rows FROM privrisk.match_counts('atk_stranger.mine', 'atk_stranger.dict', '[{"released": "zip", "hierarchy": "atk_zip"}]');
SELECT * FROM atk_lab.verdict();
-- C6. audit() with a dictionary (dictionary_options).
SELECT privrisk.audit('atk_stranger.mine', ARRAY['zip'], NULL, ARRAY['atk_zip'],
                      options => '{"dictionary": "atk_stranger.dict"}') -> 'dt_risk' -> 'rows' AS dt_rows;
SELECT * FROM atk_lab.verdict();
-- C7. dictionary_risk() (pinned) calls match_counts().
SELECT privrisk.dictionary_risk('atk_stranger.mine', 'atk_stranger.dict', '[{"released": "zip", "hierarchy": "atk_zip"}]',
                                ARRAY[1.0]) -> 'rows' AS rows;
SELECT * FROM atk_lab.verdict();
RESET search_path;
DROP FUNCTION atk_stranger.jsonb_typeof(jsonb);
-- C8. string_agg(text, text) of its own (its final function runs even over no row).
\c - atk_stranger
CREATE FUNCTION atk_stranger.agg_step(text, text, text) RETURNS text LANGUAGE sql RETURN $1 || $3 || $2;
CREATE FUNCTION atk_stranger.agg_final(text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM atk_stranger.evil('string_agg'); RETURN $1; END $$;
CREATE AGGREGATE atk_stranger.string_agg(text, text) (SFUNC = atk_stranger.agg_step, STYPE = text, FINALFUNC = atk_stranger.agg_final);
SET search_path = atk_stranger, pg_catalog;
SELECT privrisk.audit('atk_stranger.mine', ARRAY['zip']) -> 'k_anonymity' AS k;
SELECT * FROM atk_lab.verdict();
-- C9. search() with the same.
SELECT privrisk.search('atk_stranger.mine', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 2}') -> 'result' -> 'node' AS node;
SELECT * FROM atk_lab.verdict();
RESET search_path;
DROP AGGREGATE atk_stranger.string_agg(text, text);
-- C10. jsonb_array_length (only dictionary_options calls it).
\c - atk_stranger
CREATE FUNCTION atk_stranger.jsonb_array_length(jsonb) RETURNS int LANGUAGE plpgsql AS $$
BEGIN PERFORM atk_stranger.evil('jsonb_array_length'); RETURN pg_catalog.jsonb_array_length($1); END $$;
SET search_path = atk_stranger, pg_catalog;
SELECT privrisk.search('atk_stranger.mine', ARRAY['zip'], ARRAY['atk_zip'],
                       constraints => '{"k": 2, "dictionary": "atk_stranger.dict"}') -> 'result' -> 'dt_risk' -> 'rows' AS dt_rows;
SELECT * FROM atk_lab.verdict();
RESET search_path;
DROP FUNCTION atk_stranger.jsonb_array_length(jsonb);
-- C11. A pg_temp.text domain: audit() casts the sensitive column with ::text.
\c - atk_stranger
CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (atk_stranger.evil('pg_temp.text'));
SELECT privrisk.audit('atk_stranger.mine', ARRAY['zip'], 'age') -> 'rows' AS rows;
SELECT * FROM atk_lab.verdict();
-- C12. A pg_temp.float8 domain: the hierarchy catalog read by generalize().
\c - atk_stranger
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float8 CHECK (atk_stranger.evil('pg_temp.float8'));
SELECT privrisk.generalize('atk_age', '35', 1) AS g;
SELECT * FROM atk_lab.verdict();
-- C13. A superuser whose path names a schema the stranger owns runs the stranger's
-- jsonb_typeof, which makes the stranger a superuser.
\c - atk_stranger
CREATE FUNCTION atk_stranger.jsonb_typeof(jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO atk_lab.marks VALUES (current_user, 'jsonb_typeof for a superuser');
    IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        ALTER ROLE atk_stranger SUPERUSER;
    END IF;
    RETURN pg_catalog.jsonb_typeof($1);
END $$;
GRANT SELECT ON atk_stranger.mine TO PUBLIC;
\c - :atk_su
SET search_path = atk_stranger, pg_catalog;
SELECT privrisk.audit('atk_stranger.mine', ARRAY['zip']) -> 'k_anonymity' AS k;
RESET search_path;
SELECT * FROM atk_lab.verdict();
\c - atk_stranger
DROP FUNCTION atk_stranger.jsonb_typeof(jsonb);
REVOKE SELECT ON atk_stranger.mine FROM PUBLIC;

-- The audit log: written by record_audit only.
-- C14. A forged, back-dated audit with a made-up result.
INSERT INTO privrisk.audit_log(audited_by, audited_at, source, settings, result)
VALUES (current_user, '2001-01-01', 'atk_src.people', '{}', '{"k_anonymity": 1000}');
-- C15. The same with a chosen id.
INSERT INTO privrisk.audit_log(id, audited_by, source, settings, result) OVERRIDING SYSTEM VALUE
VALUES (-1, current_user, 'atk_src.people', '{}', '{"k_anonymity": 1000}');
-- C16. Without naming the date: the result is still made up.
INSERT INTO privrisk.audit_log(source, settings, result) VALUES ('atk_src.people', '{}', '{"k_anonymity": 1000}');
-- C17. In another role's name.
INSERT INTO privrisk.audit_log(audited_by, source, settings, result) VALUES ('atk_owner', 'atk_src.people', '{}', '{}');
-- C18. Rewriting or deleting its own audits.
UPDATE privrisk.audit_log SET result = '{"k_anonymity": 1000}';
DELETE FROM privrisk.audit_log;
-- C19. record_audit of a table it cannot read records nothing.
CALL privrisk.record_audit(:atk_people_oid::regclass, ARRAY['zip']);
\c - :atk_su
SELECT count(*) FILTER (WHERE result->>'k_anonymity' = '1000' OR audited_at < '2020-01-01' OR id < 1) AS forged,
       count(*) FILTER (WHERE audited_by = 'atk_stranger' AND source <> 'atk_stranger.mine') AS foreign_sources
FROM privrisk.audit_log;

-- Rows of relations that are gone.
-- C20. A policy and a budget on a temporary table, left behind when it goes (DISCARD TEMP, as at session end).
\c - atk_stranger
CREATE TEMP TABLE atk_tmp (id int, age int);
SELECT privrisk.create_policy('atk_tmp_policy', 'atk_tmp');
SELECT privrisk.set_budget('atk_tmp', 1, 1e-5);
DISCARD TEMP;
\c - :atk_su
SELECT count(*) AS stale_policies FROM privrisk.policy p WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = p.source);
SELECT count(*) AS stale_budgets FROM privrisk.budget b WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = b.relation);
-- C21. A budget on a dropped table.
\c - atk_stranger
CREATE TABLE atk_stranger.gone (id int, age int);
SELECT privrisk.set_budget('atk_stranger.gone', 1000, 0.5);
DROP TABLE atk_stranger.gone;
\c - :atk_su
SELECT count(*) AS stale_budgets FROM privrisk.budget b WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = b.relation);
-- (cleanup of what C20 and C21 left, so that later attempts start clean)
DELETE FROM privrisk.policy p WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = p.source);
DELETE FROM privrisk.budget b WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = b.relation);

-- Existing policies look like missing ones to a stranger. err() gives an
-- attempt's SQLSTATE and message with the policy name replaced by <policy>.
\c - atk_stranger
CREATE FUNCTION atk_stranger.err(sql text, policy text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE sql;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || replace(SQLERRM, policy, '<policy>');
END $$;
CREATE FUNCTION atk_stranger.same_error(template text) RETURNS boolean LANGUAGE sql
    RETURN atk_stranger.err(format(template, 'atk_p'), 'atk_p') = atk_stranger.err(format(template, 'atk_zz_missing'), 'atk_zz_missing');
-- C22. release().
SELECT atk_stranger.same_error('SELECT count(*) FROM privrisk.release(%L) AS r(id int)') AS same;
-- C23. EXPLAIN of release().
SELECT atk_stranger.same_error('EXPLAIN SELECT * FROM privrisk.release(%L) AS r(id int)') AS same;
-- C24. add_rule().
SELECT atk_stranger.same_error('SELECT privrisk.add_rule(%L, ''id'', ''hide'', ''true'')') AS same;
-- C25. drop_policy().
SELECT atk_stranger.same_error('SELECT privrisk.drop_policy(%L)') AS same;
-- C26. create_release_view().
SELECT atk_stranger.same_error('SELECT privrisk.create_release_view(%L, ''atk_stranger.peek'')') AS same;
-- C27. apply_generalization() onto an existing policy's name. Policies are
-- named per schema (their source's): the stranger's policy would be
-- atk_stranger.<name>, so the victim's name tells it nothing.
SELECT atk_stranger.same_error('SELECT privrisk.apply_generalization(%L, ''{"source": "atk_stranger.mine", "result": {"node": [0], "rows_suppressed": 0}, "quasi_identifiers": ["zip"], "hierarchies": ["atk_zip"]}'')') AS same;

-- Budgets only on tables.
-- C28. set_budget on a view of its own.
CREATE VIEW atk_stranger.mine_view AS SELECT * FROM atk_stranger.mine;
SELECT privrisk.set_budget('atk_stranger.mine_view', 1000, 0.5);
SELECT count(*) AS view_budgets FROM privrisk.budget b JOIN pg_class c ON c.oid = b.relation WHERE c.relkind = 'v';
-- C29. A reader of a budgeted table wraps it in a view with a budget of its own:
-- the table's budget (epsilon 0.5) must still bound what it can release.
\c - atk_owner
CREATE TABLE atk_src.census (id int, age int);
INSERT INTO atk_src.census SELECT i, 20 + i % 60 FROM generate_series(1, 2000) AS i;
SELECT privrisk.set_budget('atk_src.census', 0.5, 1e-5);
GRANT SELECT ON atk_src.census TO atk_analyst;
\c - atk_analyst
CREATE VIEW atk_analyst.census_view AS SELECT * FROM atk_src.census;
SELECT privrisk.set_budget('atk_analyst.census_view', 1000, 0.5);
SELECT count(*) > 0 AS released FROM privrisk.dp_release('atk_analyst.census_view', ARRAY['age'], ARRAY['atk_age'], 5, 1e-6,
       levels => ARRAY[1]) AS r(age text);
-- C30. The table itself: epsilon 5 is over its budget.
SELECT count(*) > 0 AS released FROM privrisk.dp_release('atk_src.census', ARRAY['age'], ARRAY['atk_age'], 5, 1e-6,
       levels => ARRAY[1]) AS r(age text);
SELECT coalesce(sum(epsilon), 0) AS spent_on_census_data FROM privrisk.budget_ledger l JOIN pg_class c ON c.oid = l.relation
WHERE c.relname LIKE 'census%';

------------------------------------------------------------------------------
-- Class 7: measures over a table with inheritance children count the children's
-- rows, as SELECT does. atk_stranger.flat holds the same rows without children.
------------------------------------------------------------------------------
\c - atk_stranger
CREATE TABLE atk_stranger.parent (zip text, age int, diag text);
INSERT INTO atk_stranger.parent SELECT '4790' || (i % 5), 20 + i % 3, 'd' || (i % 2) FROM generate_series(1, 40) AS i;
CREATE TABLE atk_stranger.child (extra int) INHERITS (atk_stranger.parent);
INSERT INTO atk_stranger.child VALUES ('10001', 99, 'unique', 1);
CREATE TABLE atk_stranger.flat AS SELECT zip, age, diag FROM atk_stranger.parent;
SELECT (SELECT count(*) FROM atk_stranger.parent) AS parent_rows, (SELECT count(*) FROM atk_stranger.flat) AS flat_rows;
\set atk_map '''[{"released": "zip", "hierarchy": "atk_zip"}]'''
-- D1. audit(): k-anonymity (the child's row is unique: k = 1).
SELECT privrisk.audit('atk_stranger.parent', ARRAY['zip']) -> 'k_anonymity' AS k_parent,
       privrisk.audit('atk_stranger.flat', ARRAY['zip']) -> 'k_anonymity' AS k_flat;
-- D2. audit(): rows.
SELECT privrisk.audit('atk_stranger.parent', ARRAY['zip', 'age']) -> 'rows' AS rows_parent,
       privrisk.audit('atk_stranger.flat', ARRAY['zip', 'age']) -> 'rows' AS rows_flat;
-- D3. audit() with a sensitive column: l-diversity.
SELECT privrisk.audit('atk_stranger.parent', ARRAY['zip'], 'diag') -> 'l_distinct' AS l_parent,
       privrisk.audit('atk_stranger.flat', ARRAY['zip'], 'diag') -> 'l_distinct' AS l_flat;
-- D4. audit() at a generalization level.
SELECT privrisk.audit('atk_stranger.parent', ARRAY['zip'], NULL, ARRAY['atk_zip'], ARRAY[1]) -> 'k_anonymity' AS k_parent,
       privrisk.audit('atk_stranger.flat', ARRAY['zip'], NULL, ARRAY['atk_zip'], ARRAY[1]) -> 'k_anonymity' AS k_flat;
-- D5. search(): the node found for k = 2.
SELECT privrisk.search('atk_stranger.parent', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 2}') -> 'result' -> 'node' AS node_parent,
       privrisk.search('atk_stranger.flat', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 2}') -> 'result' -> 'node' AS node_flat;
-- D6. lattice(): which nodes qualify.
SELECT (SELECT array_agg(qualifies ORDER BY node) FROM privrisk.lattice('atk_stranger.parent', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 2}')) AS parent,
       (SELECT array_agg(qualifies ORDER BY node) FROM privrisk.lattice('atk_stranger.flat', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 2}')) AS flat;
-- D7. match_counts() of the parent as the released table.
SELECT (SELECT sum(rows) FROM privrisk.match_counts('atk_stranger.parent', 'atk_stranger.dict', :atk_map)) AS rows_parent,
       (SELECT sum(rows) FROM privrisk.match_counts('atk_stranger.flat', 'atk_stranger.dict', :atk_map)) AS rows_flat;
-- D8. match_counts() with the parent as the dictionary.
SELECT (SELECT sum(matches) FROM privrisk.match_counts('atk_stranger.flat', 'atk_stranger.parent', :atk_map)) AS matches_parent,
       (SELECT sum(matches) FROM privrisk.match_counts('atk_stranger.flat', 'atk_stranger.flat', :atk_map)) AS matches_flat;
-- D9. release() of a policy on the parent.
SELECT privrisk.create_policy('atk_stranger_parent', 'atk_stranger.parent');
SELECT (SELECT count(*) FROM privrisk.release('atk_stranger_parent') AS r(zip text)) AS released_rows,
       (SELECT count(*) FROM atk_stranger.parent) AS parent_rows;
-- D10. askari_utility().
SELECT privrisk.askari_utility('atk_stranger.parent', ARRAY['zip'], ARRAY['atk_zip'], ARRAY[1]) -> 'utility' AS u_parent,
       privrisk.askari_utility('atk_stranger.flat', ARRAY['zip'], ARRAY['atk_zip'], ARRAY[1]) -> 'utility' AS u_flat;
-- D11. classification_accuracy(): rows.
SELECT privrisk.classification_accuracy('atk_stranger.parent', ARRAY['zip'], 'diag') -> 'rows' AS rows_parent,
       privrisk.classification_accuracy('atk_stranger.flat', ARRAY['zip'], 'diag') -> 'rows' AS rows_flat;
-- D12. optimal_disclosures(): rows.
SELECT (SELECT sum(rows) FROM privrisk.optimal_disclosures('atk_stranger.parent', 'atk_stranger.dict', :atk_map, ARRAY[1.0], 0)) AS rows_parent,
       (SELECT sum(rows) FROM privrisk.optimal_disclosures('atk_stranger.flat', 'atk_stranger.dict', :atk_map, ARRAY[1.0], 0)) AS rows_flat;
-- D13. dictionary_risk(): rows.
SELECT privrisk.dictionary_risk('atk_stranger.parent', 'atk_stranger.dict', :atk_map, ARRAY[1.0]) -> 'rows' AS rows_parent,
       privrisk.dictionary_risk('atk_stranger.flat', 'atk_stranger.dict', :atk_map, ARRAY[1.0]) -> 'rows' AS rows_flat;
-- D14. A partitioned table (a sanity check of the same kind).
CREATE TABLE atk_stranger.parted (zip text, age int) PARTITION BY LIST (age);
CREATE TABLE atk_stranger.parted_a PARTITION OF atk_stranger.parted FOR VALUES IN (20, 21);
CREATE TABLE atk_stranger.parted_b PARTITION OF atk_stranger.parted DEFAULT;
INSERT INTO atk_stranger.parted SELECT zip, age FROM atk_stranger.parent;
SELECT privrisk.audit('atk_stranger.parted', ARRAY['zip']) -> 'k_anonymity' AS k_parted,
       privrisk.audit('atk_stranger.parted', ARRAY['zip']) -> 'rows' AS rows_parted;
-- D15. A child added to the parent after the policy: the release follows it.
CREATE TABLE atk_stranger.child2 () INHERITS (atk_stranger.parent);
INSERT INTO atk_stranger.child2 VALUES ('10002', 98, 'second');
SELECT (SELECT count(*) FROM privrisk.release('atk_stranger_parent') AS r(zip text)) AS released_rows,
       (SELECT count(*) FROM atk_stranger.parent) AS parent_rows;

------------------------------------------------------------------------------
-- Reads with partial rights: column privileges and row-level security.
------------------------------------------------------------------------------
\c - atk_owner
CREATE TABLE atk_src.partial (id int, zip text, diag text);
INSERT INTO atk_src.partial SELECT i, '4790' || (i % 4), 'SECRET-' || (i % 3) FROM generate_series(1, 40) AS i;
GRANT SELECT (id, zip) ON atk_src.partial TO atk_analyst;
SELECT privrisk.set_budget('atk_src.partial', 10, 1e-3);
CREATE TABLE atk_src.rls_t (id int, zip text, diag text);
INSERT INTO atk_src.rls_t SELECT i, CASE WHEN i % 2 = 0 THEN '4790' || (i % 4) ELSE '1000' || (i % 4) END, 'd' || (i % 3)
FROM generate_series(1, 100) AS i;
ALTER TABLE atk_src.rls_t ENABLE ROW LEVEL SECURITY;
CREATE POLICY half ON atk_src.rls_t FOR SELECT USING (zip LIKE '4790%');
GRANT SELECT ON atk_src.rls_t TO atk_analyst;
SELECT privrisk.set_budget('atk_src.rls_t', 10, 1e-3);
\c - atk_analyst
CREATE TABLE atk_analyst.dict (zip text, diag text);
INSERT INTO atk_analyst.dict VALUES ('47901', 'SECRET-1'), ('47902', 'SECRET-2'), ('4790*', NULL);
SELECT count(*) AS visible_rls_rows FROM atk_src.rls_t;
-- F1. audit() with the unreadable column as the sensitive one.
SELECT privrisk.audit('atk_src.partial', ARRAY['zip'], 'diag');
-- F2. audit() with it as a quasi-identifier.
SELECT privrisk.audit('atk_src.partial', ARRAY['diag']) -> 'k_anonymity' AS k;
-- F3. search() with l-diversity over it.
SELECT privrisk.search('atk_src.partial', ARRAY['zip'], ARRAY['atk_zip'], 'diag', '{"l": 2}') -> 'result' AS result;
-- F4. lattice() likewise.
SELECT count(*) FROM privrisk.lattice('atk_src.partial', ARRAY['zip'], ARRAY['atk_zip'], 'diag', '{"l": 2}');
-- F5. match_counts() releasing it.
SELECT count(*) FROM privrisk.match_counts('atk_src.partial', 'atk_analyst.dict', '[{"released": "diag"}]');
-- F6. match_counts() with it as the dictionary's column.
SELECT count(*) FROM privrisk.match_counts('atk_analyst.dict', 'atk_src.partial', '[{"released": "diag", "dictionary": "diag"}]');
-- F7. askari_utility().
SELECT privrisk.askari_utility('atk_src.partial', ARRAY['diag']) -> 'utility' AS u;
-- F8. classification_accuracy() predicting it.
SELECT privrisk.classification_accuracy('atk_src.partial', ARRAY['zip'], 'diag') -> 'accuracy' AS accuracy;
-- F9. optimal_disclosures() of it.
SELECT count(*) FROM privrisk.optimal_disclosures('atk_src.partial', 'atk_analyst.dict', '[{"released": "diag"}]', ARRAY[1.0], 0);
-- F10. dp_release() of it.
SELECT count(*) FROM privrisk.dp_release('atk_src.partial', ARRAY['diag'], ARRAY[NULL], 1, 1e-5, levels => ARRAY[0], seed => 1)
AS r(diag text);
-- F11. risk_bound_holds() with it as the id column.
CREATE TABLE atk_analyst.ids (id int, zip text);
INSERT INTO atk_analyst.ids VALUES (1, '47901'), (2, '47902');
SELECT privrisk.risk_bound_holds('atk_src.partial', 'atk_analyst.ids', 'atk_analyst.ids', 'id', '[{"released": "diag", "dictionary": "zip"}]');
-- F12. workload_utility() with it as the target.
SELECT privrisk.workload_utility('atk_src.partial', ARRAY['id'], 'zip', 'diag') -> 'u_san' AS u_san;
-- Row-level security: only the visible half may count.
-- F13. match_counts().
SELECT sum(rows) AS rows FROM privrisk.match_counts('atk_src.rls_t', 'atk_analyst.dict', '[{"released": "zip"}]');
-- F14. search().
SELECT privrisk.search('atk_src.rls_t', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 1}') -> 'result' -> 'rows' AS rows;
-- F15. lattice().
SELECT DISTINCT rows_suppressed, (SELECT count(*) FROM atk_src.rls_t) AS visible FROM privrisk.lattice('atk_src.rls_t', ARRAY['zip'], ARRAY['atk_zip'], constraints => '{"k": 1}');
-- F16. askari_utility().
SELECT (privrisk.askari_utility('atk_src.rls_t', ARRAY['zip']) -> 'rows') AS rows;
-- F17. classification_accuracy().
SELECT privrisk.classification_accuracy('atk_src.rls_t', ARRAY['zip'], 'diag') -> 'rows' AS rows;
-- F18. optimal_disclosures().
SELECT sum(rows) AS rows FROM privrisk.optimal_disclosures('atk_src.rls_t', 'atk_analyst.dict', '[{"released": "zip"}]', ARRAY[1.0], 0);
-- F19. dp_release(): no more rows than visible in any class output.
SELECT coalesce(sum(count), 0) <= 50 AS within_visible FROM privrisk.dp_release('atk_src.rls_t', ARRAY['zip'], ARRAY['atk_zip'], 1, 1e-3,
       levels => ARRAY[0], seed => 3, output => 'classes') AS r(zip text, count bigint);
-- F20. dictionary_risk() with the protected table as the dictionary.
SELECT privrisk.dictionary_risk('atk_analyst.dict', 'atk_src.rls_t', '[{"released": "zip"}]', ARRAY[1.0]) -> 'unidentified_rows' AS unidentified;
SELECT privrisk.dictionary_risk('atk_analyst.dict', 'atk_analyst.dict', '[{"released": "zip"}]', ARRAY[1.0]) -> 'unidentified_rows' AS unidentified_own;

------------------------------------------------------------------------------
-- Writes: the catalog, the budget and the log are out of a stranger's reach.
------------------------------------------------------------------------------
\c - atk_stranger
-- E1. A policy row of its own making, in the owner's name.
INSERT INTO privrisk.policy(name, source, created_by) VALUES ('atk_forged', 'atk_stranger.mine', 'atk_owner');
-- E2. Re-pointing the victim's policy.
UPDATE privrisk.policy SET source = 'atk_stranger.mine' WHERE name = 'atk_p';
-- E3. Registering its own view as a release view of the victim's policy.
INSERT INTO privrisk.release_view VALUES ('atk_stranger.mine_view', 'atk_p');
-- E4. Unregistering views.
DELETE FROM privrisk.release_view;
-- E5. Loosening rules.
UPDATE privrisk.policy_rule SET condition = 'true';
-- E6. Flattening a hierarchy.
UPDATE privrisk.hierarchy SET height = 1 WHERE name = 'atk_zip';
-- E7. Emptying hierarchy leaves.
DELETE FROM privrisk.hierarchy_leaf;
-- E8. Deleting the victim's budget.
DELETE FROM privrisk.budget WHERE relation = :atk_people_oid;
-- E9. Writing a budget row.
INSERT INTO privrisk.budget(relation, epsilon, delta, set_by) VALUES ('atk_stranger.flat', 1000, 0.5, 'atk_owner');
-- E10. Rewriting the ledger.
UPDATE privrisk.budget_ledger SET epsilon = 0;
-- E11. Emptying the audit log.
TRUNCATE privrisk.audit_log;
-- E12. COPY into the audit log.
COPY privrisk.audit_log(source, settings, result) FROM STDIN;
atk_src.people	{}	{"k_anonymity": 1000}
\.
-- E13. apply_generalization() of a forged search result onto the victim's table.
SELECT privrisk.apply_generalization('atk_forged_gen', '{"source": "atk_src.people", "result": {"node": [0], "rows_suppressed": 0}, "quasi_identifiers": ["zip"], "hierarchies": ["atk_zip"]}');
-- E14. A release view of its own policy in the victim's schema.
SELECT privrisk.create_release_view('atk_stranger_own', 'atk_src.intruder');
-- E15. A release view in the extension's schema.
SELECT privrisk.create_release_view('atk_stranger_own', 'privrisk.intruder');
-- E16. A view name carrying SQL.
SELECT privrisk.create_release_view('atk_stranger_own', 'atk_stranger.v AS SELECT 1; DROP TABLE atk_src.people; --');
-- E17. A rule condition reading the victim's table.
SELECT privrisk.add_rule('atk_stranger_own', 'zip', 'hide', 'EXISTS (SELECT 1 FROM atk_src.people)');
-- E18. A rule condition calling its hostile function.
SELECT privrisk.add_rule('atk_stranger_own', 'zip', 'hide', 'atk_stranger.evil(''E18 condition'')');
-- E19. A rule condition changing the role.
SELECT privrisk.add_rule('atk_stranger_own', 'zip', 'hide', 'set_config(''role'', ''atk_owner'', true) IS NOT NULL');
-- E20. A rule condition reading a setting.
SELECT privrisk.add_rule('atk_stranger_own', 'zip', 'hide', 'current_setting(''is_superuser'') = ''on''');
-- E21. A rule condition with two statements.
SELECT privrisk.add_rule('atk_stranger_own', 'zip', 'hide', 'true; DROP TABLE atk_src.people');
-- E22. Replacing privrisk.audit().
CREATE OR REPLACE FUNCTION privrisk.audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL,
    hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL, options jsonb DEFAULT '{}') RETURNS jsonb
    LANGUAGE sql RETURN '{}';
-- E23. Updating and dropping the extension.
ALTER EXTENSION privrisk UPDATE;
DROP EXTENSION privrisk;
-- E24. The guard self-test (revoked from PUBLIC).
SELECT privrisk.guard_selftest('x', 1);
-- E25. Overwriting and dropping the victim's hierarchy.
SELECT privrisk.load_hierarchy('atk_zip', E'a;*\nb;*');
SELECT privrisk.drop_hierarchy('atk_zip');
SELECT * FROM atk_lab.verdict();

------------------------------------------------------------------------------
-- More of the same kinds, found along the way.
------------------------------------------------------------------------------
-- A31. Plan-time work before the permission check: a plan whose release scan is
-- never started (WHERE false) leaves the stranger holding a lock on the victim's
-- table for the rest of its transaction (it would block DROP, TRUNCATE, ALTER).
\c - atk_stranger
BEGIN;
SELECT count(*) FROM privrisk.release('atk_p') AS r(id int) WHERE false;
SELECT count(*) AS victim_locks FROM pg_locks WHERE relation = :atk_people_oid AND pid = pg_backend_pid();
COMMIT;
-- A32. The same statement meets a pg_temp.oid domain: it succeeds, so nothing rolls back.
CREATE DOMAIN pg_temp.oid AS pg_catalog.oid CHECK (atk_stranger.evil('A32 WHERE false'));
SELECT count(*) FROM privrisk.release('atk_p') AS r(id int) WHERE false;
SELECT * FROM atk_lab.verdict();
-- A33. In a subquery that is never run (EXISTS under a false condition).
\c - atk_stranger
CREATE DOMAIN pg_temp.int8 AS pg_catalog.int8 CHECK (atk_stranger.evil('A33 unused subquery'));
SELECT 1 AS one WHERE false AND EXISTS (SELECT 1 FROM privrisk.release('atk_p') AS r(id int));
SELECT * FROM atk_lab.verdict();

-- B11. A collation named "C" first on the analyst's path (ICU's root order puts
-- 'álvaro' before 'n'; "C" does not): the owner's rule name < 'n' COLLATE "C".
\c - atk_owner
CREATE TABLE atk_src.names (name text, code text);
INSERT INTO atk_src.names VALUES ('álvaro', 'CODE-1'), ('zoe', 'CODE-2'), ('bob', 'CODE-3'), ('Zed', 'CODE-4');
SELECT privrisk.create_policy('atk_p_names', 'atk_src.names');
SELECT privrisk.add_rule('atk_p_names', 'code', 'hide', 'name < ''n'' COLLATE "C"');
SELECT privrisk.create_release_view('atk_p_names', 'atk_src.names_release');
GRANT SELECT ON atk_src.names_release TO atk_analyst;
SELECT name, code FROM atk_src.names_release ORDER BY code NULLS LAST, name COLLATE "C";
\c - atk_analyst
CREATE COLLATION atk_analyst."C" (provider = icu, locale = 'und');
SET search_path = atk_analyst, pg_catalog;
CREATE TEMP TABLE names_got AS SELECT * FROM atk_src.names_release;
RESET search_path;
SELECT name, code FROM pg_temp.names_got ORDER BY code NULLS LAST, name COLLATE "C";

-- C31. A policy and a release view on temporary relations, when the session ends.
\c - atk_stranger
CREATE TEMP TABLE atk_tmp2 (id int, age int);
SELECT privrisk.create_policy('atk_tmp2_policy', 'atk_tmp2');
SELECT privrisk.create_release_view('atk_tmp2_policy', 'pg_temp.atk_tmp2_release') IS NOT NULL AS created;
SELECT privrisk.set_budget('atk_tmp2', 1, 1e-5);
\c - :atk_su
DO $$ BEGIN   -- wait for the stranger's session to end (it drops its temporary relations)
    FOR i IN 1 .. 400 LOOP
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE usename = 'atk_stranger');
        PERFORM pg_sleep(0.01);
    END LOOP;
END $$;
SELECT (SELECT count(*) FROM privrisk.policy p WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = p.source)) AS stale_policies,
       (SELECT count(*) FROM privrisk.release_view v WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = v.view)) AS stale_views,
       (SELECT count(*) FROM privrisk.budget b WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = b.relation)) AS stale_budgets;
DELETE FROM privrisk.policy p WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = p.source);
DELETE FROM privrisk.budget b WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = b.relation);
-- C32. A temporary release view of the victim's own policy, after DISCARD TEMP.
\c - atk_owner
SELECT privrisk.create_release_view('atk_p_names', 'pg_temp.names_tmp_release') IS NOT NULL AS created;
DISCARD TEMP;
\c - :atk_su
SELECT count(*) AS stale_views FROM privrisk.release_view v WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = v.view);

\i test/regress/attack_lab_end.psql
