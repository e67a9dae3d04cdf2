-- 0.12 -> 0.13: what a 0.12 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- dp_release samples by class and row number, not by ctid (docs/dp.md): the
-- function that told whether a seeded release samples a ctid has no meaning left.
DROP FUNCTION privrisk.dp_sampled(bigint, double precision, oid, tid);
