
------------------------------------------------------------------------------
-- The audit log takes rows only from record_audit, which computes the audit
-- with the caller's rights and writes the row as the log's owner, recording
-- the current and the session role and the time itself: no forged or
-- back-dated rows. Reading stays as it was (each role its own rows).
------------------------------------------------------------------------------
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON privrisk.audit_log FROM PUBLIC;
ALTER TABLE privrisk.audit_log ADD COLUMN session_role name;
COMMENT ON COLUMN privrisk.audit_log.session_role IS 'The session''s login role when the audit was recorded (audited_by is the current role)';

DROP PROCEDURE privrisk.record_audit(regclass, text[], text, text[], int[], jsonb);
CREATE PROCEDURE privrisk.record_audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL,
                                       hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL,
                                       options jsonb DEFAULT '{}')
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_record_audit';
COMMENT ON PROCEDURE privrisk.record_audit(regclass, text[], text, text[], int[], jsonb) IS
    'Runs audit() with the caller''s rights and appends the result to privrisk.audit_log (the only way to add a row)';
