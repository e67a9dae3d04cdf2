-- Safe by default (docs/release.md, "Defaults"): a column labelled
-- quasi_identifier, identifier or sensitive that no rule of the policy names is
-- released as NULL; a rule discloses it. Then create_release_view with a risk
-- profile, and the trace an audit of a release view leaves in the audit log.
CREATE ROLE sd_steward;
CREATE ROLE sd_analyst;
CREATE SCHEMA sd AUTHORIZATION sd_steward;
GRANT USAGE ON SCHEMA sd TO sd_analyst;
SET ROLE sd_steward;
-- One table per label kind, each with an empty policy and a release view the analyst reads.
CREATE TABLE sd.qi AS SELECT i AS n, 20 + i % 7 AS age FROM generate_series(1, 40) AS i;
CREATE TABLE sd.ident AS SELECT i AS n, 'person-' || i AS name FROM generate_series(1, 40) AS i;
CREATE TABLE sd.sens AS SELECT i AS n, 'dx-' || i % 2 AS dx FROM generate_series(1, 40) AS i;
SECURITY LABEL FOR privrisk ON COLUMN sd.qi.age IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN sd.ident.name IS 'identifier';
SECURITY LABEL FOR privrisk ON COLUMN sd.sens.dx IS 'sensitive';
SECURITY LABEL FOR privrisk ON COLUMN sd.qi.n IS 'insensitive';
SECURITY LABEL FOR privrisk ON COLUMN sd.ident.n IS 'insensitive';
SECURITY LABEL FOR privrisk ON COLUMN sd.sens.n IS 'insensitive';
SELECT privrisk.create_policy('qi_empty', 'sd.qi');
SELECT privrisk.create_policy('ident_empty', 'sd.ident');
SELECT privrisk.create_policy('sens_empty', 'sd.sens');
-- The notice names each labelled column the view gives as NULL.
SELECT privrisk.create_release_view('qi_empty', 'sd.qi_public');
SELECT privrisk.create_release_view('ident_empty', 'sd.ident_public');
SELECT privrisk.create_release_view('sens_empty', 'sd.sens_public');
GRANT SELECT ON sd.qi_public, sd.ident_public, sd.sens_public TO sd_analyst;
-- The owner's own reads of release(): no labelled value, every insensitive one.
SELECT count(n) AS n, count(age) AS age FROM privrisk.release('qi_empty') AS r(n int, age int);
SELECT count(n) AS n, count(name) AS name FROM privrisk.release('ident_empty') AS r(n int, name text);
SELECT count(n) AS n, count(dx) AS dx FROM privrisk.release('sens_empty') AS r(n int, dx text);
-- The analyst, through the views: the same, whatever the query asks for.
SET ROLE sd_analyst;
SELECT count(n) AS n, count(age) AS age FROM sd.qi_public;
SELECT count(n) AS n, count(name) AS name FROM sd.ident_public;
SELECT count(n) AS n, count(dx) AS dx FROM sd.sens_public;
SELECT count(*) AS rows_with_age_27 FROM sd.qi_public WHERE age = 27;
SELECT DISTINCT dx FROM sd.sens_public;
SET ROLE sd_steward;
-- A rule discloses a quasi-identifier or a sensitive column: 'hide' with 'true'
-- as it is, 'gen' generalized; a rule on another column discloses nothing else.
SELECT privrisk.add_rule('qi_empty', 'n', 'hide', 'n > 0');
SELECT count(age) AS age FROM privrisk.release('qi_empty') AS r(n int, age int);
SELECT privrisk.add_rule('qi_empty', 'age', 'hide', 'true');
SELECT privrisk.add_rule('sens_empty', 'dx', 'hide', 'n <= 10');
SET ROLE sd_analyst;
SELECT count(age) AS age, count(DISTINCT age) AS ages FROM sd.qi_public;
SELECT count(dx) AS dx FROM sd.sens_public;
SET ROLE sd_steward;
-- An identifier stays NULL whatever its rules say (docs/labels.md).
SELECT privrisk.add_rule('ident_empty', 'name', 'hide', 'true');
SELECT count(name) AS name FROM privrisk.release('ident_empty') AS r(n int, name text);
-- The labels are read when the release is read: a label set after the view was
-- made covers its column at once, and changing it back discloses it again.
SECURITY LABEL FOR privrisk ON COLUMN sd.ident.n IS 'quasi_identifier';
SET ROLE sd_analyst;
SELECT count(n) AS n FROM sd.ident_public;
SET ROLE sd_steward;
SECURITY LABEL FOR privrisk ON COLUMN sd.ident.n IS 'insensitive';
SELECT count(n) AS n FROM privrisk.release('ident_empty') AS r(n int, name text);

-- create_release_view(…, profile => …): public_use_file wants k >= 5 and l >= 2.
CREATE TABLE sd.people AS
SELECT i AS id, 20 + i % 7 AS age, '4790' || i % 3 AS zip, 'dx-' || i % 2 AS dx FROM generate_series(1, 42) AS i;
SECURITY LABEL FOR privrisk ON COLUMN sd.people.id IS 'identifier';
SECURITY LABEL FOR privrisk ON COLUMN sd.people.age IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN sd.people.zip IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN sd.people.dx IS 'sensitive';
SELECT privrisk.create_policy('people_raw', 'sd.people');
SELECT privrisk.add_rule('people_raw', 'age', 'hide', 'true');
SELECT privrisk.add_rule('people_raw', 'zip', 'hide', 'true');
SELECT privrisk.add_rule('people_raw', 'dx', 'hide', 'true');
-- Age and zip as they are: classes of 2 rows. Refused, with the verdict, and nothing is created.
SELECT privrisk.create_release_view('people_raw', 'sd.people_raw', profile => 'public_use_file');
SELECT to_regclass('sd.people_raw') AS view, (SELECT count(*) FROM privrisk.release_view) AS release_views;
-- override needs a profile; a missing profile is an error that names it.
\set VERBOSITY terse
SELECT privrisk.create_release_view('people_raw', 'sd.people_raw', override => true);
SELECT privrisk.create_release_view('people_raw', 'sd.people_raw', profile => 'no_such_profile');
SELECT to_regclass('sd.people_raw') AS view;
\set VERBOSITY default
-- The override creates it, with a warning, and the audit log records who, when, what.
SELECT count(*) AS rows_before FROM privrisk.audit_log;
SELECT privrisk.create_release_view('people_raw', 'sd.people_raw', profile => 'public_use_file', override => true);
SELECT audited_by, session_role, source, audited_at > now() - interval '1 hour' AS recent,
       settings -> 'create_release_view' AS create_release_view, settings ->> 'profile' AS profile,
       result -> 'verdict' ->> 'summary' AS verdict, release ->> 'policy' AS policy,
       jsonb_array_length(release -> 'rules') AS rules
FROM privrisk.audit_log ORDER BY id DESC LIMIT 1;
-- Safe by default passes the same profile: age and zip NULL, one class of 42 rows.
SELECT privrisk.create_policy('people_default', 'sd.people');
SELECT privrisk.add_rule('people_default', 'dx', 'hide', 'true');
SELECT privrisk.create_release_view('people_default', 'sd.people_default', profile => 'public_use_file');
SELECT measure, value, passed FROM privrisk.check('sd.people_default', 'public_use_file') ORDER BY measure;
SELECT count(*) AS rows_after_passing FROM privrisk.audit_log;

-- The audit log traces an audit of a release view to its policy: the digest
-- shards pin, the rules and the hierarchies' digests (docs/measures.md).
SELECT privrisk.interval_hierarchy('sd_age', 0, 120, ARRAY[10, 40]);
SELECT privrisk.create_policy('people_gen', 'sd.people');
SELECT privrisk.add_rule('people_gen', 'age', 'gen', 'false', 'sd_age', 1);
SELECT privrisk.add_rule('people_gen', 'dx', 'hide', 'true');
SELECT privrisk.create_release_view('people_gen', 'sd.people_gen');
CALL privrisk.record_audit('sd.people_gen', profile => 'public_use_file');
SELECT source, settings ->> 'profile' AS profile, release ->> 'policy' AS policy, release -> 'rules' AS rules,
       release -> 'hidden_by_default' AS hidden_by_default,
       release -> 'hierarchies' -> 0 ->> 'name' AS hierarchy,
       release -> 'hierarchies' -> 0 ->> 'digest' = split_part(privrisk.pin_hierarchy('sd_age')::text, '@', 2) AS hierarchy_digest_matches
FROM privrisk.audit_log ORDER BY id DESC LIMIT 1;
-- The digest computed here from its definition (shard_release.cpp's policy_digest:
-- each field written as its length, ':', its bytes; the first 8 bytes of SHA-256;
-- the released columns' types schema-qualified where PostgreSQL has no SQL name for them).
CREATE FUNCTION pg_temp.field(t text) RETURNS text LANGUAGE sql AS $$ SELECT octet_length(t) || ':' || t $$;
CREATE FUNCTION pg_temp.hex(t text) RETURNS text LANGUAGE sql AS $$ SELECT left(encode(sha256(convert_to(t, 'UTF8')), 'hex'), 16) $$;
CREATE FUNCTION pg_temp.policy_digest(policy text, base text, hidden text[], view regclass) RETURNS text LANGUAGE sql AS $$
WITH rules AS (
    SELECT pg_temp.hex(pg_temp.field(column_name) || pg_temp.field(operator) || pg_temp.field(condition) ||
           CASE WHEN operator = 'gen' THEN pg_temp.field(hierarchy) ||
                pg_temp.field(split_part(privrisk.pin_hierarchy(hierarchy)::text, '@', 2)) || pg_temp.field(level::text)
                ELSE '' END) AS d
    FROM privrisk.policy_rule WHERE policy_rule.policy = policy_digest.policy
    UNION ALL
    SELECT pg_temp.hex(pg_temp.field(c) || pg_temp.field('hide') || pg_temp.field('false')) FROM unnest(hidden) AS c)
SELECT pg_temp.hex(pg_temp.field('privrisk policy 1') || pg_temp.field(base) || pg_temp.field('publish') ||
                   pg_temp.field((SELECT count(*) FROM rules)::text) ||
                   (SELECT string_agg(pg_temp.field(d), '' ORDER BY d COLLATE "C") FROM rules) ||
                   (SELECT string_agg(pg_temp.field(attname) || pg_temp.field(CASE atttypid WHEN 'text'::regtype
                           THEN 'pg_catalog.text' ELSE format_type(atttypid, atttypmod) END), '' ORDER BY attnum)
                    FROM pg_attribute WHERE attrelid = view AND attnum > 0))
$$;
SELECT release ->> 'policy_digest' = pg_temp.policy_digest('sd.people_gen', 'people_gen', ARRAY['id', 'zip'], 'sd.people_gen')
       AS digest_matches
FROM privrisk.audit_log ORDER BY id DESC LIMIT 1;
-- A rule changed: the next audit's digest differs, and matches its definition again.
SELECT privrisk.add_rule('people_gen', 'zip', 'hide', 'id > 40');
CALL privrisk.record_audit('sd.people_gen');
SELECT l.release ->> 'policy_digest' <> p.release ->> 'policy_digest' AS digest_changed,
       l.release ->> 'policy_digest' = pg_temp.policy_digest('sd.people_gen', 'people_gen', ARRAY['id'], 'sd.people_gen')
       AS digest_matches, l.release -> 'hidden_by_default' AS hidden_by_default, l.settings ? 'profile' AS profiled
FROM privrisk.audit_log l, privrisk.audit_log p
WHERE l.id = (SELECT max(id) FROM privrisk.audit_log) AND p.id = l.id - 1;
-- An audit of a plain table has no trace.
CALL privrisk.record_audit('sd.people');
SELECT source, release IS NULL AS no_trace FROM privrisk.audit_log ORDER BY id DESC LIMIT 1;
-- The analyst's own audit of the view names the policy and withholds its rules
-- and digest (a digest could be tested against guessed rules).
GRANT SELECT ON sd.people_gen TO sd_analyst;
SET ROLE sd_analyst;
CALL privrisk.record_audit('sd.people_gen');
SELECT audited_by, release FROM privrisk.audit_log ORDER BY id DESC LIMIT 1;
SET ROLE sd_steward;
DROP FUNCTION pg_temp.field(text), pg_temp.hex(text), pg_temp.policy_digest(text, text, text[], regclass);
RESET ROLE;
DELETE FROM privrisk.audit_log WHERE audited_by IN ('sd_steward', 'sd_analyst');
DROP SCHEMA sd CASCADE;
SELECT privrisk.drop_hierarchy('sd_age');
DROP ROLE sd_steward, sd_analyst;
