-- Risk profiles: one name per look (issue #33, finding 5) and an owner by identity (finding 6).
CREATE ROLE pi_steward;
GRANT EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) TO pi_steward;
SET ROLE pi_steward;
SELECT privrisk.create_profile('Clinic', '{"k": 5}', 'the approved rule');
-- 0.13 stored each of these beside 'Clinic' or 'public_use_file': a verdict citing one looks like
-- a verdict citing the other. Each is refused, naming the profile it looks like.
SELECT privrisk.create_profile('clinic', '{"k": 1}');
SELECT privrisk.create_profile('CLINIC', '{"k": 1}', replace => true);
SELECT privrisk.create_profile('Public_Use_File', '{"k": 1}');
SELECT privrisk.create_profile('public_use_fil' || chr(8203) || 'e', '{"k": 1}');   -- zero-width space
SELECT privrisk.create_profile('clin' || chr(8205) || 'ic', '{"k": 1}');            -- zero-width joiner
SELECT privrisk.create_profile(chr(173) || 'clinic', '{"k": 1}');                   -- soft hyphen
SELECT privrisk.create_profile('clinic' || chr(8238), '{"k": 1}');                  -- right-to-left override
SELECT privrisk.create_profile(chr(8294) || 'Clinic' || chr(8297), '{"k": 1}');     -- bidi isolates
SELECT privrisk.create_profile('clinic' || chr(65279), '{"k": 1}');                 -- zero-width no-break space
SELECT privrisk.create_profile('clinic' || chr(917601), '{"k": 1}');                -- a tag character
SELECT privrisk.create_profile(' clinic ', '{"k": 1}');                             -- spaces
SELECT privrisk.create_profile(chr(12288) || 'clinic', '{"k": 1}');                 -- ideographic space
-- A name like no other but with an invisible character is still refused (names are ASCII).
SELECT privrisk.create_profile('fresh' || chr(8203), '{"k": 1}');
SELECT privrisk.create_profile('Clinic', '{"k": 6}', 'the approved rule', replace => true);
RESET ROLE;
SELECT name, thresholds FROM privrisk.risk_profile WHERE lower(name) LIKE '%clinic%' OR name LIKE 'public%' ORDER BY name;
-- The catalog holds one name per key even for a writer that skips create_profile.
INSERT INTO privrisk.risk_profile(name, thresholds, owner, owner_name) VALUES ('CLINIC', '{"k": 1}', 'pi_steward', 'pi_steward');

-- The owner is a role's identity. Drop the owner and make a role of the same name: it is not the owner.
CREATE ROLE pi_owner;
GRANT EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) TO pi_owner;
SET ROLE pi_owner;
SELECT privrisk.create_profile('board_rule', '{"k": 4}', 'approved by the board');
RESET ROLE;
SELECT name, owner, owner_name FROM privrisk.risk_profile WHERE name = 'board_rule';
REVOKE EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) FROM pi_owner;
DROP ROLE pi_owner;
CREATE ROLE pi_owner;
GRANT EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) TO pi_owner;
SET ROLE pi_owner;
SELECT privrisk.create_profile('board_rule', '{"k": 1}', 'weakened', replace => true);
SELECT privrisk.drop_profile('board_rule');
-- Nor may the profile's other members: pi_steward was never its owner.
RESET ROLE;
SET ROLE pi_steward;
SELECT privrisk.drop_profile('board_rule');
RESET ROLE;
SELECT name, thresholds, description, owner_name FROM privrisk.risk_profile WHERE name = 'board_rule';
-- An orphan is shown as one: the verdict says so, with the owner's name.
CREATE TABLE pi_people AS SELECT i AS id, (i % 4)::text AS zip FROM generate_series(1, 40) AS i;
SELECT r->'verdict'->'profile_owner' AS owner, r->'verdict'->'profile_orphaned' AS orphaned,
       r->'verdict'->'profile_owner_was' AS was, r->'verdict'->>'summary' AS summary
FROM privrisk.audit('pi_people', ARRAY['zip'], profile => 'board_rule') AS r;
SELECT r->'verdict'->'profile_owner' AS owner, r->'verdict'->'profile_orphaned' AS orphaned
FROM privrisk.audit('pi_people', ARRAY['zip'], profile => 'Clinic') AS r;
-- The report names it so.
SELECT substring(page FROM '<p class="meta" id="profile">([^<]*)</p>') AS profile
FROM privrisk.report('pi_people', 'board_rule', ARRAY['zip']) AS page;
-- A superuser may replace an orphan (and becomes its owner) or drop it.
SELECT privrisk.create_profile('board_rule', '{"k": 4}', 'approved by the board', replace => true);
SELECT name, owner = current_user::regrole AS adopted, owner_name = current_user AS named FROM privrisk.risk_profile
WHERE name = 'board_rule';
SELECT privrisk.drop_profile('board_rule');

-- A restored row keeps its owner only if that role has the name recorded with it: a dropped
-- owner's number that is another role's in the restoring cluster does not hand the profile over.
INSERT INTO privrisk.risk_profile(name, thresholds, owner, owner_name) VALUES ('restored', '{"k": 2}', 'pi_steward', 'pi_gone');
INSERT INTO privrisk.risk_profile(name, thresholds, owner, owner_name) VALUES ('restored_ok', '{"k": 2}', 'pi_steward', 'pi_steward');
SELECT name, owner, owner_name FROM privrisk.risk_profile WHERE name LIKE 'restored%' ORDER BY name;
SET ROLE pi_steward;
SELECT privrisk.drop_profile('restored');
SELECT privrisk.drop_profile('restored_ok');
RESET ROLE;
SELECT privrisk.drop_profile('restored');

DROP TABLE pi_people;
SET ROLE pi_steward;
SELECT privrisk.drop_profile('Clinic');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) FROM pi_steward, pi_owner;
DROP ROLE pi_steward, pi_owner;
