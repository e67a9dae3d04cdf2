-- 0.10 -> 0.11: what a 0.10 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- A hierarchy pinned by the digest of its definition: generalizing through it is IMMUTABLE.
CREATE TYPE privrisk.pinned_hierarchy;

CREATE FUNCTION privrisk.pinned_hierarchy_in(cstring) RETURNS privrisk.pinned_hierarchy LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_hierarchy_in';

CREATE FUNCTION privrisk.pinned_hierarchy_out(privrisk.pinned_hierarchy) RETURNS cstring LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_hierarchy_out';

CREATE FUNCTION privrisk.pinned_hierarchy_recv(internal) RETURNS privrisk.pinned_hierarchy LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_hierarchy_recv';

CREATE FUNCTION privrisk.pinned_hierarchy_send(privrisk.pinned_hierarchy) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_hierarchy_send';

CREATE TYPE privrisk.pinned_hierarchy (
    INTERNALLENGTH = variable,
    INPUT = privrisk.pinned_hierarchy_in,
    OUTPUT = privrisk.pinned_hierarchy_out,
    RECEIVE = privrisk.pinned_hierarchy_recv,
    SEND = privrisk.pinned_hierarchy_send,
    ALIGNMENT = int4,
    STORAGE = extended
);
