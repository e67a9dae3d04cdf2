CREATE OR REPLACE FUNCTION privrisk.askari_utility(source regclass, columns text[], hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], weights double precision[] DEFAULT NULL::double precision[]) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_askari_utility';

CREATE OR REPLACE FUNCTION privrisk.askari_degradation(source regclass, columns text[], hierarchies text[], levels integer[], weights double precision[] DEFAULT NULL::double precision[]) RETURNS double precision
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    RETURN (((privrisk.askari_utility(source, columns, hierarchies, NULL::integer[], weights) ->> 'utility'::text))::double precision - ((privrisk.askari_utility(source, columns, hierarchies, levels, weights) ->> 'utility'::text))::double precision);

CREATE OR REPLACE FUNCTION privrisk.channel_bayes_error(matrix double precision[], prior double precision[] DEFAULT NULL::double precision[]) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_bayes_error';

CREATE OR REPLACE FUNCTION privrisk.channel_conditional_entropy(matrix double precision[], prior double precision[] DEFAULT NULL::double precision[]) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_conditional_entropy';

CREATE OR REPLACE FUNCTION privrisk.channel_error_bound(matrix double precision[], prior double precision[] DEFAULT NULL::double precision[]) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_error_bound';

CREATE OR REPLACE FUNCTION privrisk.channel_mutual_information(matrix double precision[], prior double precision[] DEFAULT NULL::double precision[]) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_mutual_information';

CREATE OR REPLACE FUNCTION privrisk.channel_report(matrix double precision[], prior double precision[] DEFAULT NULL::double precision[]) RETURNS jsonb LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_report';

CREATE OR REPLACE FUNCTION privrisk.channel_worst_case_prior(matrix double precision[]) RETURNS jsonb LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_worst_case_prior';

CREATE OR REPLACE FUNCTION privrisk.classification_accuracy(source regclass, features text[], target text, classifier text DEFAULT 'naive_bayes'::text, folds integer DEFAULT 10, hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], fold_columns text[] DEFAULT NULL::text[]) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_classification_accuracy';

CREATE OR REPLACE FUNCTION privrisk.conditional_entropy_bits_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_conditional_entropy_bits_final';

CREATE OR REPLACE FUNCTION privrisk.conditional_entropy_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_conditional_entropy_final';

CREATE OR REPLACE FUNCTION privrisk.entropy_bits_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_entropy_bits_final';

CREATE OR REPLACE FUNCTION privrisk.entropy_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_entropy_final';

CREATE OR REPLACE FUNCTION privrisk.k_anonymity_channel(quasi_identifiers text[], other_domains integer[], rows integer, k integer, mechanism text DEFAULT 'uniform'::text) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_k_anonymity_channel';

CREATE OR REPLACE FUNCTION privrisk.mutual_information_bits_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_mutual_information_bits_final';

CREATE OR REPLACE FUNCTION privrisk.mutual_information_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_mutual_information_final';

CREATE OR REPLACE FUNCTION privrisk.pair_counts_transition(internal, "any", "any") RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pair_counts_transition';

CREATE OR REPLACE FUNCTION privrisk.value_counts_combine(internal, internal) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_combine';

CREATE OR REPLACE FUNCTION privrisk.value_counts_deserialize(bytea, internal) RETURNS internal LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_deserialize';

CREATE OR REPLACE FUNCTION privrisk.value_counts_serialize(internal) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_serialize';

CREATE OR REPLACE FUNCTION privrisk.value_counts_transition(internal, anyelement) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_transition';

CREATE OR REPLACE FUNCTION privrisk.workload_utility(source regclass, quasi_identifiers text[] DEFAULT NULL::text[], sensitive text DEFAULT NULL::text, target text DEFAULT NULL::text, hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], classifier text DEFAULT 'naive_bayes'::text) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    columns text[];
    features text[];
    feature_hierarchies text[];
    feature_levels int[];
    u_san float8; u_max float8; u_no_qi float8; u_no_sensitive float8;
BEGIN
    IF target IS NULL THEN
        RAISE EXCEPTION 'workload_utility needs a target column' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- What the call omits comes from the column labels (docs/labels.md).
    SELECT a.quasi_identifiers, a.hierarchies, a.sensitive INTO quasi_identifiers, hierarchies, sensitive
      FROM privrisk.labelled_arguments(source, quasi_identifiers, hierarchies, sensitive, 'workload_utility') AS a;
    columns := ARRAY(SELECT DISTINCT c FROM unnest(quasi_identifiers || sensitive || target) AS c
                     WHERE c IS NOT NULL ORDER BY c);
    SELECT array_agg(q ORDER BY i), array_agg(hierarchies[i] ORDER BY i), array_agg(coalesce(levels[i], 0) ORDER BY i)
    INTO features, feature_hierarchies, feature_levels
    FROM unnest(quasi_identifiers) WITH ORDINALITY AS u(q, i) WHERE q IS DISTINCT FROM target;
    u_san := (privrisk.classification_accuracy(source,
                  features || CASE WHEN sensitive IS DISTINCT FROM target THEN ARRAY[sensitive] END, target, classifier, 10,
                  feature_hierarchies || CASE WHEN sensitive IS DISTINCT FROM target THEN ARRAY[NULL::text] END,
                  feature_levels || CASE WHEN sensitive IS DISTINCT FROM target THEN ARRAY[0] END, columns)->>'accuracy')::float8;
    u_max := (privrisk.classification_accuracy(source,
                  features || CASE WHEN sensitive IS DISTINCT FROM target THEN ARRAY[sensitive] END, target, classifier, 10,
                  NULL, NULL, columns)->>'accuracy')::float8;
    u_no_qi := (privrisk.classification_accuracy(source,
                  CASE WHEN sensitive IS DISTINCT FROM target THEN ARRAY[sensitive] ELSE '{}'::text[] END, target,
                  classifier, 10, NULL, NULL, columns)->>'accuracy')::float8;
    u_no_sensitive := (privrisk.classification_accuracy(source, features, target, classifier, 10, NULL, NULL,
                                                        columns)->>'accuracy')::float8;
    RETURN jsonb_build_object('classifier', classifier, 'target', target, 'folds', 10,
        'u_san', u_san, 'u_max', u_max, 'u_without_quasi_identifiers', u_no_qi,
        'u_without_sensitive', u_no_sensitive, 'u_base', greatest(u_no_qi, u_no_sensitive),
        'gain', u_san - greatest(u_no_qi, u_no_sensitive));
END $$;

CREATE OR REPLACE FUNCTION privrisk.value_counts_merge_transition(internal, bytea) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_merge_transition';

-- The entropy aggregates' counts as bytes and their merge: what each shard sends for an entropy over
-- foreign partitions (docs/scale-out.md).
CREATE OR REPLACE AGGREGATE privrisk.value_counts(x anyelement) (
    SFUNC = privrisk.value_counts_transition, STYPE = internal, FINALFUNC = privrisk.value_counts_serialize, FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.value_counts(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.value_counts_serialize, FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.value_counts_merge(counts bytea) (
    SFUNC = privrisk.value_counts_merge_transition, STYPE = internal, FINALFUNC = privrisk.value_counts_serialize, FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.conditional_entropy(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.conditional_entropy_final, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.conditional_entropy_bits(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.conditional_entropy_bits_final, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.entropy(x anyelement) (
    SFUNC = privrisk.value_counts_transition, STYPE = internal, FINALFUNC = privrisk.entropy_final, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.entropy_bits(x anyelement) (
    SFUNC = privrisk.value_counts_transition, STYPE = internal, FINALFUNC = privrisk.entropy_bits_final, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.mutual_information(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.mutual_information_final, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.mutual_information_bits(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.mutual_information_bits_final, COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize, DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE);
