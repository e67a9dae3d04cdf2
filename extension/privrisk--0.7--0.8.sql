-- privrisk 0.7 -> 0.8: identification reads its tables through a parallel aggregate.
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.8'" to load this file. \quit

-- tuple_tally(columns…): the distinct tuples of its arguments with their counts,
-- in a byte form only privrisk reads. match_counts and the optimal-disclosure
-- functions run it over the released table and the dictionary, so that parallel
-- workers share the counting (SPEC §4.5).
CREATE FUNCTION privrisk.tuple_tally_transition(internal, VARIADIC "any") RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_transition';
CREATE FUNCTION privrisk.tuple_tally_combine(internal, internal) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_combine';
CREATE FUNCTION privrisk.tuple_tally_serialize(internal) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_serialize';
CREATE FUNCTION privrisk.tuple_tally_deserialize(bytea, internal) RETURNS internal
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_deserialize';
CREATE FUNCTION privrisk.tuple_tally_final(internal) RETURNS bytea
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_final';
CREATE AGGREGATE privrisk.tuple_tally(VARIADIC "any") (
    SFUNC = privrisk.tuple_tally_transition, STYPE = internal, COMBINEFUNC = privrisk.tuple_tally_combine,
    SERIALFUNC = privrisk.tuple_tally_serialize, DESERIALFUNC = privrisk.tuple_tally_deserialize,
    FINALFUNC = privrisk.tuple_tally_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE privrisk.tuple_tally(VARIADIC "any") IS
    'internal: the distinct tuples of its arguments with their counts, in privrisk''s byte form (read by match_counts)';
