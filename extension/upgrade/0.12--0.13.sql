-- 0.12 -> 0.13: what a 0.12 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- dp_release samples by class and row number, not by ctid (docs/dp.md): the
-- function that told whether a seeded release samples a ctid has no meaning left.
DROP FUNCTION privrisk.dp_sampled(bigint, double precision, oid, tid);

-- Releases over shards pin the shards' policies by digest: the type, as a fresh install makes it.
CREATE TYPE privrisk.pinned_policy;

CREATE FUNCTION privrisk.pinned_policy_in(cstring) RETURNS privrisk.pinned_policy LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_policy_in';

CREATE FUNCTION privrisk.pinned_policy_out(privrisk.pinned_policy) RETURNS cstring LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_policy_out';

CREATE FUNCTION privrisk.pinned_policy_recv(internal) RETURNS privrisk.pinned_policy LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_policy_recv';

CREATE FUNCTION privrisk.pinned_policy_send(privrisk.pinned_policy) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_policy_send';

CREATE TYPE privrisk.pinned_policy (
    INTERNALLENGTH = variable,
    INPUT = privrisk.pinned_policy_in,
    OUTPUT = privrisk.pinned_policy_out,
    RECEIVE = privrisk.pinned_policy_recv,
    SEND = privrisk.pinned_policy_send,
    ALIGNMENT = int4,
    STORAGE = extended
);
