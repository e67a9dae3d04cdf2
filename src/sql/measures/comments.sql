COMMENT ON PROCEDURE privrisk.record_audit(IN source regclass, IN quasi_identifiers text[], IN sensitive text, IN hierarchies text[], IN levels integer[], IN options jsonb) IS 'Runs audit() with the caller''s rights and appends the result to privrisk.audit_log (the only way to add a row)';

COMMENT ON COLUMN privrisk.audit_log.session_role IS 'The session''s login role when the audit was recorded (audited_by is the current role)';
