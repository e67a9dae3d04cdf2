CREATE OR REPLACE FUNCTION privrisk.hist_combine(internal, internal) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_combine';

CREATE OR REPLACE FUNCTION privrisk.hist_deserialize(bytea, internal) RETURNS internal LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_deserialize';

CREATE OR REPLACE FUNCTION privrisk.hist_distinct(privrisk.hist) RETURNS integer LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_distinct';

CREATE OR REPLACE FUNCTION privrisk.hist_final(internal) RETURNS privrisk.hist LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_final';

CREATE OR REPLACE FUNCTION privrisk.hist_merge_transition(internal, privrisk.hist) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_merge_transition';

CREATE OR REPLACE FUNCTION privrisk.hist_serialize(internal) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_serialize';

CREATE OR REPLACE FUNCTION privrisk.hist_size(privrisk.hist) RETURNS bigint LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_size';

CREATE OR REPLACE FUNCTION privrisk.hist_transition(internal, anyelement) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';

CREATE OR REPLACE FUNCTION privrisk.hist_transition(internal, character) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';

CREATE OR REPLACE FUNCTION privrisk.hist_transition(internal, name) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';

CREATE OR REPLACE FUNCTION privrisk.hist_transition(internal, text) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';

CREATE OR REPLACE FUNCTION privrisk.hist_transition(internal, character varying) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';

CREATE OR REPLACE FUNCTION privrisk.hist_transition_star(internal) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition_star';

CREATE OR REPLACE FUNCTION privrisk.class_tally_combine(internal, internal) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_tally_combine';

CREATE OR REPLACE FUNCTION privrisk.class_tally_deserialize(bytea, internal) RETURNS internal LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_tally_deserialize';

CREATE OR REPLACE FUNCTION privrisk.class_tally_final(internal) RETURNS bytea LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_tally_final';

CREATE OR REPLACE FUNCTION privrisk.class_tally_serialize(internal) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_tally_serialize';

CREATE OR REPLACE FUNCTION privrisk.class_tally_transition(internal, text, VARIADIC "any") RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_tally_transition';

CREATE OR REPLACE FUNCTION privrisk.tuple_tally_combine(internal, internal) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_combine';

CREATE OR REPLACE FUNCTION privrisk.tuple_tally_deserialize(bytea, internal) RETURNS internal LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_deserialize';

CREATE OR REPLACE FUNCTION privrisk.tuple_tally_final(internal) RETURNS bytea LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_final';

CREATE OR REPLACE FUNCTION privrisk.tuple_tally_serialize(internal) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_serialize';

CREATE OR REPLACE FUNCTION privrisk.tuple_tally_transition(internal, VARIADIC "any") RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_tuple_tally_transition';

CREATE OR REPLACE AGGREGATE privrisk.hist(*) (
    SFUNC = privrisk.hist_transition_star, STYPE = internal, FINALFUNC = privrisk.hist_final, COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize, DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.hist(sensitive anyelement) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final, COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize, DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.hist(sensitive character) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final, COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize, DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.hist(sensitive name) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final, COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize, DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.hist(sensitive text) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final, COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize, DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.hist(sensitive character varying) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final, COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize, DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.hist_merge(privrisk.hist) (
    SFUNC = privrisk.hist_merge_transition, STYPE = internal, FINALFUNC = privrisk.hist_final, COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize, DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.class_tally(sensitive text, VARIADIC "any") (
    SFUNC = privrisk.class_tally_transition, STYPE = internal, FINALFUNC = privrisk.class_tally_final, COMBINEFUNC = privrisk.class_tally_combine, SERIALFUNC = privrisk.class_tally_serialize, DESERIALFUNC = privrisk.class_tally_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.tuple_tally(VARIADIC "any") (
    SFUNC = privrisk.tuple_tally_transition, STYPE = internal, FINALFUNC = privrisk.tuple_tally_final, COMBINEFUNC = privrisk.tuple_tally_combine, SERIALFUNC = privrisk.tuple_tally_serialize, DESERIALFUNC = privrisk.tuple_tally_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE FUNCTION privrisk.classes_sql(source regclass, quasi_identifiers text[], hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], sensitive text DEFAULT NULL::text) RETURNS text LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_classes_sql';

CREATE OR REPLACE FUNCTION privrisk.classes(source regclass, quasi_identifiers text[] DEFAULT NULL::text[], hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], sensitive text DEFAULT NULL::text)
    RETURNS TABLE(class text[], hist privrisk.hist)
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    -- What the call omits comes from the column labels (docs/labels.md).
    SELECT a.quasi_identifiers, a.hierarchies, a.sensitive INTO quasi_identifiers, hierarchies, sensitive
      FROM privrisk.labelled_arguments(source, quasi_identifiers, hierarchies, sensitive, 'classes') AS a;
    -- The query names every object with its schema and quotes every name (classes_sql).
    RETURN QUERY EXECUTE privrisk.classes_sql(source, quasi_identifiers, hierarchies, levels, sensitive);
END $$;
