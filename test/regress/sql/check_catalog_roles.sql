-- privrisk.check_catalog() for a role that is not a superuser (issue #33). 0.13
-- read the catalog's sequences, which only their owner may read: every other
-- role got "permission denied for sequence audit_log_id_seq". Now a role sees
-- the violations in the catalog rows it may read: row security shows it the
-- policies and rules of its own tables only, so never another role's; the
-- hierarchies are readable by every role (and used by every role's policies),
-- so are their violations; a sequence is checked only by a role that may read
-- it (a superuser, the catalog's owner), the others never touch it.
CREATE ROLE ccr_alice;
CREATE ROLE ccr_bob;
CREATE SCHEMA ccr_a AUTHORIZATION ccr_alice;
CREATE SCHEMA ccr_b AUTHORIZATION ccr_bob;
SET ROLE ccr_alice;
CREATE TABLE ccr_a.t AS SELECT i AS id, CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END AS sex FROM generate_series(1, 40) AS i;
SELECT privrisk.create_policy('ccr_alice_p', 'ccr_a.t');
SELECT privrisk.add_rule('ccr_alice_p', 'sex', 'hide', 'id > 10');
CALL privrisk.record_audit('ccr_a.t', ARRAY['sex']);
SET ROLE ccr_bob;
CREATE TABLE ccr_b.t AS SELECT i AS id, CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END AS sex FROM generate_series(1, 40) AS i;
SELECT privrisk.create_policy('ccr_bob_p', 'ccr_b.t');
SELECT privrisk.add_rule('ccr_bob_p', 'sex', 'hide', 'id > 10');
SELECT privrisk.load_hierarchy('ccr_bob_h', E'F;*\nM;*');
CALL privrisk.record_audit('ccr_b.t', ARRAY['sex']);
RESET ROLE;
SELECT last_value AS ccr_seq_after FROM privrisk.audit_log_id_seq \gset
SELECT id AS ccr_alice_id FROM privrisk.audit_log WHERE audited_by = 'ccr_alice' \gset
SELECT id AS ccr_bob_id FROM privrisk.audit_log WHERE audited_by = 'ccr_bob' \gset

-- A consistent catalog: no row (and no error) for either role.
SET ROLE ccr_alice;
SELECT * FROM privrisk.check_catalog() WHERE object LIKE 'ccr\_%' OR object LIKE 'privrisk.%\_seq';
SET ROLE ccr_bob;
SELECT * FROM privrisk.check_catalog() WHERE object LIKE 'ccr\_%' OR object LIKE 'privrisk.%\_seq';

-- Each owner breaks an invariant of its own: a rule's column renamed away.
SET ROLE ccr_alice;
ALTER TABLE ccr_a.t RENAME COLUMN sex TO gender;
SET ROLE ccr_bob;
ALTER TABLE ccr_b.t RENAME COLUMN sex TO kind;
-- Behind the extension's back (as a superuser): bob's hierarchy gets a leaf
-- with a short path, and the audit log's sequence falls behind its ids (as
-- after a bad restore: the next record_audit would reuse an id).
RESET ROLE;
INSERT INTO privrisk.hierarchy_leaf VALUES ('ccr_bob_h', 99, ARRAY['X', 'Y']);
SELECT setval('privrisk.audit_log_id_seq', :ccr_alice_id, false) = :ccr_alice_id AS next_is_alices_id;

-- Each role sees its own rule's violation, not the other's, and the
-- hierarchy's (every role reads privrisk.hierarchy_leaf); not the sequence.
SET ROLE ccr_alice;
SELECT * FROM privrisk.check_catalog() WHERE object LIKE 'ccr\_%' OR object LIKE 'privrisk.%\_seq' ORDER BY object;
SELECT count(*) AS readable_leaf FROM privrisk.hierarchy_leaf WHERE hierarchy = 'ccr_bob_h' AND line = 99;
SET ROLE ccr_bob;
SELECT * FROM privrisk.check_catalog() WHERE object LIKE 'ccr\_%' OR object LIKE 'privrisk.%\_seq' ORDER BY object;
-- A superuser sees all four; the sequence's next value is alice's id (A), the
-- largest id bob's (B), written as letters: they depend on the tests before.
RESET ROLE;
SELECT invariant, object,
       CASE WHEN invariant = 'sequence past ids'
            THEN regexp_replace(regexp_replace(problem, '\m' || :'ccr_alice_id' || '\M', 'A'), '\m' || :'ccr_bob_id' || '\M', 'B')
            ELSE problem END AS problem
FROM privrisk.check_catalog() WHERE object LIKE 'ccr\_%' OR object LIKE 'privrisk.%\_seq' ORDER BY object;
-- A role granted SELECT on the sequence checks it too, against the ids it may
-- read: its own row's id is the next value the sequence gives.
GRANT SELECT ON SEQUENCE privrisk.audit_log_id_seq TO ccr_alice;
SET ROLE ccr_alice;
SELECT invariant, object, problem = format('last value %s (not yet given), largest id %s', :ccr_alice_id, :ccr_alice_id) AS
       problem_names_own_id
FROM privrisk.check_catalog() WHERE object LIKE 'privrisk.%\_seq';
RESET ROLE;
REVOKE SELECT ON SEQUENCE privrisk.audit_log_id_seq FROM ccr_alice;

-- Repaired, none again.
SELECT setval('privrisk.audit_log_id_seq', :ccr_seq_after) = :ccr_seq_after AS repaired;
DELETE FROM privrisk.hierarchy_leaf WHERE hierarchy = 'ccr_bob_h' AND line = 99;
SET ROLE ccr_alice;
ALTER TABLE ccr_a.t RENAME COLUMN gender TO sex;
SELECT * FROM privrisk.check_catalog() WHERE object LIKE 'ccr\_%' OR object LIKE 'privrisk.%\_seq';
SET ROLE ccr_bob;
ALTER TABLE ccr_b.t RENAME COLUMN kind TO sex;
SELECT * FROM privrisk.check_catalog() WHERE object LIKE 'ccr\_%' OR object LIKE 'privrisk.%\_seq';
RESET ROLE;
SELECT * FROM privrisk.check_catalog() WHERE object LIKE 'ccr\_%' OR object LIKE 'privrisk.%\_seq';

SELECT privrisk.drop_policy('ccr_alice_p'), privrisk.drop_policy('ccr_bob_p'), privrisk.drop_hierarchy('ccr_bob_h');
DROP SCHEMA ccr_a CASCADE;
DROP SCHEMA ccr_b CASCADE;
DELETE FROM privrisk.audit_log WHERE audited_by IN ('ccr_alice', 'ccr_bob');
DROP ROLE ccr_alice;
DROP ROLE ccr_bob;
