-- 0.9 -> 0.10: what a 0.9 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- The audit log's id sequence was not registered for pg_dump: after a restore
-- it started again at 1 and the next record_audit hit a duplicate key.
SELECT pg_catalog.pg_extension_config_dump('privrisk.audit_log_id_seq', '');
