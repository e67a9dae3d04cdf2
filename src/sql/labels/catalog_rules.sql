-- SECURITY LABEL FOR privrisk needs the provider, which the library registers
-- when it is loaded: this trigger loads it before every SECURITY LABEL, in any
-- session (a restore of a schema or a table runs no privrisk function first).
-- ENABLE ALWAYS: also under session_replication_role = replica.
CREATE EVENT TRIGGER privrisk_load_label_provider ON ddl_command_start
    WHEN TAG IN ('SECURITY LABEL')
    EXECUTE FUNCTION privrisk.load_label_provider();
ALTER EVENT TRIGGER privrisk_load_label_provider ENABLE ALWAYS;
