-- 0.9 -> 0.10: what a 0.9 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- The audit log's id sequence was not registered for pg_dump: after a restore
-- it started again at 1 and the next record_audit hit a duplicate key.
SELECT pg_catalog.pg_extension_config_dump('privrisk.audit_log_id_seq', '');

-- search_lattice reads the constraints jsonb itself (it took them as 15
-- arguments cast by run_search); the new one is created by the replay below.
DROP FUNCTION privrisk.search_lattice(regclass, text[], text[], text, bigint, double precision, text,
    double precision, double precision, text, text, double precision, double precision, integer,
    double precision, double precision, double precision, text, boolean);
