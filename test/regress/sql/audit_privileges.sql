-- audit() reads the source as the caller: no SELECT right, no audit. Views work;
-- each role sees only its own rows of the audit log.
CREATE TABLE secret (zip text, disease text);
INSERT INTO secret VALUES ('47677', 'flu'), ('47677', 'cold'), ('47906', 'flu');
CREATE VIEW released AS SELECT left(zip, 3) AS zip3, disease FROM secret;
CREATE ROLE privrisk_analyst;
GRANT SELECT ON released TO privrisk_analyst;

SET ROLE privrisk_analyst;
SELECT privrisk.audit('secret', ARRAY['zip'], 'disease');
SELECT privrisk.k_anonymity(h) FROM (SELECT privrisk.hist(disease) AS h FROM secret GROUP BY zip) AS c;
-- Through the view it may read: classes 476 (two rows) and 479 (one row), so k = 1.
SELECT privrisk.audit('released', ARRAY['zip3'], 'disease') -> 'k_anonymity' AS k_of_view;
CALL privrisk.record_audit('released', ARRAY['zip3'], 'disease');
RESET ROLE;

CALL privrisk.record_audit('secret', ARRAY['zip'], 'disease');
-- The owner sees both rows; the analyst only its own, and cannot forge another name.
SELECT audited_by, source FROM privrisk.audit_log ORDER BY id;
SET ROLE privrisk_analyst;
SELECT audited_by, source FROM privrisk.audit_log ORDER BY id;
INSERT INTO privrisk.audit_log(audited_by, source, settings, result) VALUES ('postgres', 'x', '{}', '{}');
DELETE FROM privrisk.audit_log;
RESET ROLE;
SELECT count(*) AS rows_left FROM privrisk.audit_log;

-- Row-level security applies to audit(): such a table is read through SQL, as the caller.
ALTER TABLE secret ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_flu ON secret FOR SELECT USING (disease = 'flu');
GRANT SELECT ON secret TO privrisk_analyst;
SET ROLE privrisk_analyst;
SELECT privrisk.audit('secret', ARRAY['zip'], 'disease') -> 'rows' AS rows_the_analyst_may_see;
RESET ROLE;
SELECT privrisk.audit('secret', ARRAY['zip'], 'disease') -> 'rows' AS rows_the_owner_sees;

DELETE FROM privrisk.audit_log;
DROP VIEW released;
DROP TABLE secret;
DROP ROLE privrisk_analyst;
