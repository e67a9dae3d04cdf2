-- Pseudonymize rules (docs/pseudonymization.md): a value's pseudonym is a keyed PRF of
-- its text under its policy's key, so the same value gives the same pseudonym
-- within a policy, across reads and sessions; another policy gives others; a
-- rotation changes them; the key itself is out of every other role's reach.
CREATE ROLE regress_pseud_steward;
CREATE ROLE regress_pseud_analyst;
CREATE ROLE regress_pseud_stranger;
CREATE SCHEMA regress_pseud AUTHORIZATION regress_pseud_steward;
GRANT USAGE ON SCHEMA regress_pseud TO regress_pseud_analyst, regress_pseud_stranger;
CREATE SCHEMA regress_pseud_analyst AUTHORIZATION regress_pseud_analyst;

SET ROLE regress_pseud_steward;
CREATE TABLE regress_pseud.visits (id int, email text, patient int, seen date, at timestamptz, consent boolean,
                                   code char(6), code_text text);
INSERT INTO regress_pseud.visits
SELECT i, CASE WHEN i % 50 = 0 THEN NULL ELSE 'person-' || (i % 400) || '@example.org' END, i % 400,
       date '2020-01-01' + i % 30, timestamptz '2020-01-01 00:00+00' + i * interval '1 hour', i % 10 = 0,
       'c' || (i % 7), 'c' || (i % 7)
FROM generate_series(1, 2000) AS i;
SELECT privrisk.create_policy('visits', 'regress_pseud.visits');
SELECT privrisk.add_rule('visits', 'email', 'pseudonymize');
SELECT privrisk.add_rule('visits', 'patient', 'pseudonymize');
SELECT privrisk.add_rule('visits', 'seen', 'pseudonymize');
SELECT privrisk.add_rule('visits', 'code', 'pseudonymize');
SELECT privrisk.add_rule('visits', 'code_text', 'pseudonymize');
SELECT privrisk.create_release_view('visits', 'regress_pseud.visits_release');
GRANT SELECT ON regress_pseud.visits_release TO regress_pseud_analyst;
-- A second policy on the same table, with its own key.
SELECT privrisk.create_policy('visits_other', 'regress_pseud.visits');
SELECT privrisk.add_rule('visits_other', 'email', 'pseudonymize');
SELECT privrisk.create_release_view('visits_other', 'regress_pseud.visits_other_release');
-- Released as text, 32 hex digits; NULL stays NULL.
SELECT pg_typeof(email) AS type, count(*) AS rows, count(email) AS not_null,
       count(*) FILTER (WHERE email ~ '^[0-9a-f]{32}$') AS hex32,
       count(*) FILTER (WHERE email LIKE '%example%') AS clear_text
FROM regress_pseud.visits_release GROUP BY 1;
-- The same value, the same pseudonym; different values, different ones (a bijection on the 400 people).
SELECT count(DISTINCT s.email) AS values, count(DISTINCT r.email) AS pseudonyms,
       count(DISTINCT (s.email, r.email)) FILTER (WHERE s.email IS NOT NULL) AS pairs,
       count(*) FILTER (WHERE s.email IS NULL AND r.email IS NULL) AS nulls
FROM regress_pseud.visits s JOIN regress_pseud.visits_release r USING (id);
-- The hash is over the value's text: char(6) drops its pad blanks, so code and code_text match; a date
-- is read in ISO form whatever DateStyle says.
SELECT count(*) FILTER (WHERE code = code_text) AS char_equals_text, count(*) AS rows FROM regress_pseud.visits_release;
CREATE TABLE regress_pseud.saved AS SELECT id, email, patient, seen FROM regress_pseud.visits_release;
SET DateStyle = 'SQL, DMY';
SELECT count(*) AS same_seen FROM regress_pseud.saved s JOIN regress_pseud.visits_release r USING (id) WHERE s.seen = r.seen;
RESET DateStyle;
-- Another policy on the same table: no pseudonym in common.
SELECT count(*) AS shared_pseudonyms
FROM regress_pseud.visits_release a JOIN regress_pseud.visits_other_release b USING (id) WHERE a.email = b.email;
RESET ROLE;

-- Another session: the same pseudonyms.
\c
SET ROLE regress_pseud_steward;
SELECT count(*) FILTER (WHERE s.email = r.email) AS same, count(*) FILTER (WHERE s.email IS DISTINCT FROM r.email) AS changed
FROM regress_pseud.saved s JOIN regress_pseud.visits_release r USING (id);
RESET ROLE;

-- The analyst reads the pseudonyms, links a person's rows, and reaches the key by no path.
SET ROLE regress_pseud_analyst;
SELECT count(*) AS rows, count(DISTINCT email) AS people FROM regress_pseud.visits_release;
SELECT count(*) AS visits FROM regress_pseud.visits_release
WHERE email = (SELECT email FROM regress_pseud.visits_release WHERE id = 1);
SELECT secret FROM privrisk.pseudonym_key;
SELECT * FROM privrisk.pseudonym_key;
SELECT count(*) AS keys_seen FROM privrisk.pseudonym_key;  -- row security: another owner's policy
SELECT privrisk.rotate_pseudonym_key('regress_pseud.visits');
SELECT privrisk.rotate_pseudonym_key('visits');
SELECT * FROM privrisk.release('regress_pseud.visits') AS r(id int, email text);
SELECT privrisk.add_rule('regress_pseud.visits', 'email', 'hide', 'true');
-- EXPLAIN VERBOSE of the release, kept for the check below.
CREATE TABLE regress_pseud_analyst.plans (line text);
DO $$
DECLARE line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (VERBOSE, ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM regress_pseud.visits_release'
    LOOP
        INSERT INTO regress_pseud_analyst.plans VALUES (line);
    END LOOP;
END $$;
PREPARE pseud_read AS SELECT email ~ '^[0-9a-f]{32}$' AS pseudonymized FROM regress_pseud.visits_release WHERE id = $1;
EXECUTE pseud_read(1);
SELECT count(*) AS statements FROM pg_prepared_statements WHERE statement LIKE '%pseud_read%';
DEALLOCATE pseud_read;
RESET ROLE;
-- No plan line, no statistic and no function result shows the key (as hex, as pseudonyms are shown).
SELECT encode(secret, 'hex') AS secret_hex FROM privrisk.pseudonym_key WHERE policy = 'regress_pseud.visits' \gset
SELECT count(*) AS plan_lines, count(*) FILTER (WHERE position(:'secret_hex' IN line) > 0) AS lines_with_key
FROM regress_pseud_analyst.plans;
ANALYZE privrisk.pseudonym_key;
SELECT count(*) AS statistics_of_secret FROM pg_stats WHERE schemaname = 'privrisk' AND tablename = 'pseudonym_key' AND attname = 'secret';
SELECT count(*) AS functions_returning_bytea FROM pg_proc
WHERE pronamespace = 'privrisk'::regnamespace AND prorettype = 'bytea'::regtype AND proname LIKE '%pseudonym%';
SELECT grantee, privilege_type, column_name FROM information_schema.column_privileges
WHERE table_schema = 'privrisk' AND table_name = 'pseudonym_key' AND grantee <> 'postgres' ORDER BY 1, 2, 3;

-- The owner sees when its key was made, not the key; rotation changes every pseudonym.
SET ROLE regress_pseud_steward;
SELECT secret FROM privrisk.pseudonym_key;
SELECT policy FROM privrisk.pseudonym_key ORDER BY policy;
SELECT privrisk.rotate_pseudonym_key('visits');
SELECT count(*) FILTER (WHERE s.email = r.email) AS same, count(*) FILTER (WHERE s.email <> r.email) AS changed,
       count(*) FILTER (WHERE s.patient <> r.patient) AS patients_changed,
       count(DISTINCT (s.email, r.email)) FILTER (WHERE s.email IS NOT NULL) AS pairs, count(DISTINCT s.email) AS people
FROM regress_pseud.saved s JOIN regress_pseud.visits_release r USING (id);
-- The other policy kept its key.
SELECT count(*) AS other_still_distinct FROM regress_pseud.visits_other_release o JOIN regress_pseud.saved s USING (id)
WHERE o.email = s.email;

-- Conditions keep hide's meaning: where the condition holds the value is disclosed as it is; a hide rule
-- on the same column wins where its own condition fails (⊥ is above the pseudonym).
SELECT privrisk.create_policy('visits_consent', 'regress_pseud.visits');
SELECT privrisk.add_rule('visits_consent', 'email', 'pseudonymize', 'consent');
SELECT privrisk.add_rule('visits_consent', 'email', 'hide', 'id > 100');
SELECT count(*) FILTER (WHERE email LIKE '%@example.org') AS clear, count(*) FILTER (WHERE email ~ '^[0-9a-f]{32}$') AS pseudonyms,
       count(*) FILTER (WHERE email IS NULL) AS hidden
FROM privrisk.release('visits_consent') AS r(id int, email text);
SELECT count(*) AS clear_without_consent FROM privrisk.release('visits_consent') AS r(id int, email text, consent boolean)
WHERE email LIKE '%@example.org' AND NOT consent;

-- Bad input: each an error naming the problem, nothing changed.
SELECT privrisk.add_rule('visits', 'at', 'pseudonymize');
SELECT privrisk.add_rule('visits', 'email', 'pseudonymize', 'false', 'some_hierarchy', 1);
SELECT privrisk.prefix_hierarchy('regress_pseud_zip', 6);
SELECT privrisk.add_rule('visits', 'code_text', 'gen', 'false', 'regress_pseud_zip', 1);
SELECT privrisk.add_rule('visits', 'email', 'pseudonymise');
SELECT privrisk.rotate_pseudonym_key('no_such_policy');
SELECT privrisk.rotate_pseudonym_key(NULL);
SELECT count(*) AS rules FROM privrisk.policy_rule WHERE policy = 'regress_pseud.visits';
RESET ROLE;
SET ROLE regress_pseud_stranger;
SELECT privrisk.add_rule('regress_pseud.visits', 'email', 'pseudonymize', 'true');
SELECT privrisk.rotate_pseudonym_key('regress_pseud.visits');
RESET ROLE;

-- A policy whose key is missing (a catalog edited by hand) refuses its release, naming no key.
DELETE FROM privrisk.pseudonym_key WHERE policy = 'regress_pseud.visits_other';
SET ROLE regress_pseud_steward;
SELECT count(email) FROM regress_pseud.visits_other_release;
SELECT count(*) AS rows_without_reading_email FROM regress_pseud.visits_other_release;
SELECT privrisk.rotate_pseudonym_key('visits_other');
SELECT count(DISTINCT email) AS people FROM regress_pseud.visits_other_release;
-- The key goes with its policy.
SELECT privrisk.drop_policy('visits_other', cascade => true);
SELECT policy FROM privrisk.pseudonym_key ORDER BY policy;
RESET ROLE;

-- A column labelled identifier is never released as it is; with a pseudonymize rule it goes out as
-- its pseudonym in every row, even where the rule's own condition holds (safe by default,
-- docs/release.md), and without one as NULL.
SET ROLE regress_pseud_steward;
CREATE TABLE regress_pseud.members AS SELECT i AS id, 'member-' || (i % 7) AS email, 'm-' || i AS handle
FROM generate_series(1, 21) AS i;
SECURITY LABEL FOR privrisk ON COLUMN regress_pseud.members.email IS 'identifier';
SECURITY LABEL FOR privrisk ON COLUMN regress_pseud.members.handle IS 'identifier';
SELECT privrisk.create_policy('members', 'regress_pseud.members');
SELECT privrisk.add_rule('members', 'email', 'pseudonymize', 'id > 10');  -- 'as it is where id > 10' is overruled
SELECT privrisk.add_rule('members', 'handle', 'hide', 'true');            -- an identifier stays NULL
SELECT privrisk.create_release_view('members', 'regress_pseud.members_release');
SELECT count(*) AS rows, count(email) AS pseudonymized, count(DISTINCT email) AS people,
       count(*) FILTER (WHERE email LIKE 'member-%') AS as_it_is,
       bool_and(email ~ '^[0-9a-f]{32}$') AS all_hex, count(handle) AS handles
FROM regress_pseud.members_release;
SELECT privrisk.drop_policy('members', cascade => true);
RESET ROLE;

DROP SCHEMA regress_pseud CASCADE;
DROP SCHEMA regress_pseud_analyst CASCADE;
DROP ROLE regress_pseud_steward, regress_pseud_analyst, regress_pseud_stranger;
SELECT count(*) AS keys_left FROM privrisk.pseudonym_key;
SELECT privrisk.drop_hierarchy('regress_pseud_zip');
