-- Trust, round two: what a release is bound to. Each block is an attack a
-- hostile test made on 0.13, by a role with the default rights, and the safe
-- outcome it now gets. Roles: a steward (owns the source), an analyst (SELECT
-- on the release view only) and a stranger (owns a table of its own).
CREATE ROLE rb_steward;
CREATE ROLE rb_analyst;
CREATE ROLE rb_stranger;
CREATE SCHEMA rb_data AUTHORIZATION rb_steward;
CREATE SCHEMA rb_stranger AUTHORIZATION rb_stranger;
GRANT USAGE ON SCHEMA rb_data TO rb_analyst, rb_stranger;
SET ROLE rb_steward;
CREATE TABLE rb_data.visits AS
SELECT i AS id, 'dx-' || i AS dx, i % 2 = 0 AS consent, i % 3 AS region FROM generate_series(1, 6) AS i;
SELECT privrisk.create_policy('rb_visits', 'rb_data.visits');
SELECT privrisk.add_rule('rb_visits', 'dx', 'hide', 'consent');
SELECT privrisk.create_release_view('rb_visits', 'rb_data.visits_public');
GRANT SELECT ON rb_data.visits_public TO rb_analyst;
-- The key of a policy is its source's schema and its name.
SELECT p.name, p.base_name, p.source FROM privrisk.policy p;
RESET ROLE;
SET ROLE rb_analyst;
SELECT id, dx FROM rb_data.visits_public ORDER BY id;
RESET ROLE;

-- 1. A rule follows its column, not its name. The owner renames dx and adds a
--    new dx: on 0.13 the rule guarded the new, empty column and every hidden
--    value read as dx_old. Now the release stops, naming the policy and column.
SET ROLE rb_steward;
ALTER TABLE rb_data.visits RENAME COLUMN dx TO dx_old;
ALTER TABLE rb_data.visits ADD COLUMN dx text DEFAULT 'new';
RESET ROLE;
SET ROLE rb_analyst;
SELECT id, dx FROM rb_data.visits_public ORDER BY id;
SELECT count(dx_old) AS shown FROM privrisk.release('rb_visits') AS r(dx_old text);
RESET ROLE;
SET ROLE rb_steward;
-- The owner too, until it approves the columns as they are.
SELECT count(dx_old) AS shown FROM privrisk.release('rb_visits') AS r(dx_old text);
SELECT privrisk.refresh_policy('rb_visits');
SELECT id, dx_old, dx FROM privrisk.release('rb_visits') AS r(id int, dx_old text, dx text) ORDER BY id;
SELECT rule, column_name, column_number FROM privrisk.policy_rule WHERE policy = 'rb_data.rb_visits';
RESET ROLE;
-- The view was made to release the column numbered 2 as dx: it is dx_old now,
-- and the new dx is not one of its columns. It refuses until made again.
SET ROLE rb_analyst;
SELECT id, dx FROM rb_data.visits_public ORDER BY id;
RESET ROLE;
-- A retype and a drop stop the release the same way.
SET ROLE rb_steward;
ALTER TABLE rb_data.visits ALTER COLUMN dx_old TYPE varchar(20);
SELECT count(*) FROM privrisk.release('rb_visits') AS r(id int);
ALTER TABLE rb_data.visits ALTER COLUMN dx_old TYPE text;
SELECT count(*) FROM privrisk.release('rb_visits') AS r(id int);
-- A labelled column is guarded too.
SECURITY LABEL FOR privrisk ON COLUMN rb_data.visits.region IS 'quasi_identifier';
SELECT privrisk.refresh_policy('rb_visits');
ALTER TABLE rb_data.visits RENAME COLUMN region TO area;
SELECT count(*) FROM privrisk.release('rb_visits') AS r(id int);
ALTER TABLE rb_data.visits RENAME COLUMN area TO region;
SELECT count(*) AS rows FROM privrisk.release('rb_visits') AS r(id int);
-- A condition bound by number keeps its meaning; bound again from its text it
-- would read the new column of the old name: refresh_policy refuses that.
CREATE TABLE rb_data.consents AS SELECT i AS id, i % 2 = 0 AS consent, 'x-' || i AS x FROM generate_series(1, 4) AS i;
SELECT privrisk.create_policy('rb_consents', 'rb_data.consents');
SELECT privrisk.add_rule('rb_consents', 'x', 'hide', 'consent');
ALTER TABLE rb_data.consents RENAME COLUMN consent TO consent_old;
ALTER TABLE rb_data.consents ADD COLUMN consent boolean DEFAULT true;
SELECT privrisk.refresh_policy('rb_consents');
SELECT count(x) AS shown FROM privrisk.release('rb_consents') AS r(x text);
SELECT condition_columns FROM privrisk.policy_rule WHERE policy = 'rb_data.rb_consents';
RESET ROLE;

-- 2. A release view depends on its policy. On 0.13 drop_policy left the view and
--    its grants, any table owner could take the name, and the view served that
--    role's rows. Now the policy drops only with its views, and the source too.
SET ROLE rb_steward;
SELECT privrisk.create_release_view('rb_visits', 'rb_data.visits_public2');
GRANT SELECT ON rb_data.visits_public2 TO rb_analyst;
SELECT privrisk.drop_policy('rb_visits');
DROP TABLE rb_data.visits;
RESET ROLE;
-- The stranger's policy of the same name is its own (its schema's), and the
-- steward's view still reads the steward's policy.
SET ROLE rb_stranger;
CREATE TABLE rb_stranger.bait AS SELECT i AS id, 'bait' AS dx, true AS consent, 0 AS region, 'bait' AS dx_old
FROM generate_series(1, 99) AS i;
SELECT privrisk.create_policy('rb_visits', 'rb_stranger.bait');
SELECT privrisk.create_release_view('rb_visits', 'rb_stranger.bait_public');
GRANT SELECT ON rb_stranger.bait_public TO rb_analyst;
RESET ROLE;
SET ROLE rb_analyst;
SELECT count(*) AS rows, count(*) FILTER (WHERE dx_old = 'bait') AS bait FROM rb_data.visits_public2;
-- Two policies of that name are readable by nobody but their owners directly.
SELECT count(*) FROM privrisk.release('rb_visits') AS r(id int);
RESET ROLE;
SET ROLE rb_steward;
SELECT count(*) AS rows FROM privrisk.release('rb_visits') AS r(id int);
SELECT count(*) AS rows FROM privrisk.release('rb_data.rb_visits') AS r(id int);
SELECT privrisk.drop_policy('rb_visits', cascade => true);
SELECT to_regclass('rb_data.visits_public') AS view1, to_regclass('rb_data.visits_public2') AS view2;
-- The steward takes its name again.
SELECT privrisk.create_policy('rb_visits', 'rb_data.visits');
RESET ROLE;

-- 3. A release view's readers read the view. The steward narrows its view to
--    region 1 (a security barrier); on 0.13 its reader called release() and got
--    every row and column, and a column added later.
SET ROLE rb_steward;
-- region is labelled quasi_identifier: safe by default, a rule discloses it.
SELECT privrisk.add_rule('rb_visits', 'region', 'hide', 'true');
SELECT privrisk.create_release_view('rb_visits', 'rb_data.region1');
CREATE OR REPLACE VIEW rb_data.region1 WITH (security_barrier) AS
SELECT * FROM privrisk.release('rb_data.rb_visits') AS r(id integer, dx_old text, consent boolean, region integer, dx text)
WHERE region = 1;
GRANT SELECT ON rb_data.region1 TO rb_analyst;
ALTER TABLE rb_data.visits ADD COLUMN secret text DEFAULT 'SECRET';
RESET ROLE;
CREATE FUNCTION public.rb_leak(int) RETURNS boolean LANGUAGE plpgsql COST 0.0001 AS $$
BEGIN RAISE NOTICE 'rb_leak saw row %', $1; RETURN true; END $$;
SET ROLE rb_analyst;
SELECT id, region FROM rb_data.region1 WHERE public.rb_leak(id) ORDER BY id;
SELECT count(*) FROM privrisk.release('rb_visits') AS r(id int);
SELECT count(secret) FROM privrisk.release('rb_data.rb_visits') AS r(secret text);
-- Reached only through its view, never around it: a view of the analyst's own
-- over the release is not a release view.
CREATE TEMP VIEW mine AS SELECT * FROM privrisk.release('rb_data.rb_visits') AS r(secret text);
SELECT count(secret) FROM mine;
DROP VIEW mine;
RESET ROLE;
-- Without the barrier, a filtered view refuses: the reader's function could see
-- the rows its filter leaves out.
SET ROLE rb_steward;
ALTER VIEW rb_data.region1 RESET (security_barrier);
RESET ROLE;
SET ROLE rb_analyst;
SELECT count(*) FROM rb_data.region1 WHERE public.rb_leak(id);
RESET ROLE;
-- A join leaves rows out as a WHERE does: refused without the barrier too.
SET ROLE rb_steward;
CREATE TABLE rb_data.allowed (region int);
INSERT INTO rb_data.allowed VALUES (1);
SELECT privrisk.create_release_view('rb_visits', 'rb_data.region1j');
CREATE OR REPLACE VIEW rb_data.region1j AS
SELECT r.* FROM privrisk.release('rb_data.rb_visits')
     AS r(id integer, dx_old text, consent boolean, region integer, dx text, secret text)
JOIN rb_data.allowed a ON a.region = r.region;
GRANT SELECT ON rb_data.region1j TO rb_analyst;
RESET ROLE;
SET ROLE rb_analyst;
SELECT count(*) FROM rb_data.region1j WHERE public.rb_leak(id);
RESET ROLE;
-- A view whose definition reads the release only through another relation is
-- not the release view its mark names.
SET ROLE rb_steward;
SELECT privrisk.create_release_view('rb_visits', 'rb_data.indirect');
CREATE OR REPLACE VIEW rb_data.indirect WITH (security_barrier) AS
SELECT * FROM (SELECT * FROM privrisk.release('rb_data.rb_visits')
               AS r(id integer, dx_old text, consent boolean, region integer, dx text, secret text)) AS s;
GRANT SELECT ON rb_data.indirect TO rb_analyst;
RESET ROLE;
SET ROLE rb_analyst;
SELECT count(*) FROM rb_data.indirect;
RESET ROLE;

-- 4. Names: creating a policy says whether a name is taken only in a schema
--    where the caller may create objects.
SET ROLE rb_stranger;
SELECT privrisk.create_policy('rb_visits', 'rb_stranger.bait');
RESET ROLE;
-- A table the stranger owns in a schema where it may not create objects: it
-- may not name a policy there, so it cannot probe that schema's names.
CREATE TABLE public.rb_public (id int);
ALTER TABLE public.rb_public OWNER TO rb_stranger;
SET ROLE rb_stranger;
SELECT privrisk.create_policy('rb_probe', 'public.rb_public');
RESET ROLE;

RESET ROLE;
-- 5. pg_dump keeps no dependency of a view on its source (a restored view would
--    let the source drop alone): refresh_policy records it again.
DELETE FROM pg_depend WHERE classid = 'pg_class'::regclass AND objid = 'rb_data.region1'::regclass
   AND refobjid = 'rb_data.visits'::regclass;
SET ROLE rb_steward;
SELECT privrisk.refresh_policy('rb_visits');
RESET ROLE;
SELECT count(*) AS dependencies FROM pg_depend WHERE classid = 'pg_class'::regclass
   AND objid = 'rb_data.region1'::regclass AND refobjid = 'rb_data.visits'::regclass;
DROP FUNCTION public.rb_leak(int);
DROP TABLE public.rb_public;
SELECT privrisk.drop_policy(name, cascade => true) FROM privrisk.policy WHERE base_name LIKE 'rb\_%' ORDER BY name;
DROP SCHEMA rb_data CASCADE;
DROP SCHEMA rb_stranger CASCADE;
DROP ROLE rb_steward, rb_analyst, rb_stranger;
