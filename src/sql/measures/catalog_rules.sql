ALTER TABLE privrisk.audit_log ENABLE ROW LEVEL SECURITY;

CREATE POLICY own_audits ON privrisk.audit_log USING ((audited_by = CURRENT_USER)) WITH CHECK ((audited_by = CURRENT_USER));
