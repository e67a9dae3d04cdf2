-- privrisk 0.6: information-theoretic measures and utility (SPEC §4.8).
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.6'" to load this file. \quit

------------------------------------------------------------------------------
-- Entropy aggregates: the unit is in the name (nats by default, as SPEC §2
-- says; _bits for base 2). The state counts rows per distinct value (or pair)
-- by a 128-bit fingerprint of the value, with a combine function and binary
-- serialization for parallel plans. NULL is ⊥, a value of its own; x may be a
-- row value, ROW(a, b), for a quasi-identifier tuple.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.value_counts_transition(internal, anyelement) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_transition';
CREATE FUNCTION privrisk.pair_counts_transition(internal, "any", "any") RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pair_counts_transition';
CREATE FUNCTION privrisk.value_counts_combine(internal, internal) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_combine';
CREATE FUNCTION privrisk.value_counts_serialize(internal) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_serialize';
CREATE FUNCTION privrisk.value_counts_deserialize(bytea, internal) RETURNS internal
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_value_counts_deserialize';
CREATE FUNCTION privrisk.entropy_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_entropy_final';
CREATE FUNCTION privrisk.entropy_bits_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_entropy_bits_final';
CREATE FUNCTION privrisk.conditional_entropy_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_conditional_entropy_final';
CREATE FUNCTION privrisk.conditional_entropy_bits_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_conditional_entropy_bits_final';
CREATE FUNCTION privrisk.mutual_information_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_mutual_information_final';
CREATE FUNCTION privrisk.mutual_information_bits_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_mutual_information_bits_final';

-- H(X), in nats / bits.
CREATE AGGREGATE privrisk.entropy(x anyelement) (
    SFUNC = privrisk.value_counts_transition, STYPE = internal, FINALFUNC = privrisk.entropy_final,
    COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize,
    DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.entropy_bits(x anyelement) (
    SFUNC = privrisk.value_counts_transition, STYPE = internal, FINALFUNC = privrisk.entropy_bits_final,
    COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize,
    DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE
);
-- H(X|Y) = H(X,Y) − H(Y).
CREATE AGGREGATE privrisk.conditional_entropy(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.conditional_entropy_final,
    COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize,
    DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.conditional_entropy_bits(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.conditional_entropy_bits_final,
    COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize,
    DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE
);
-- I(X;Y) = H(X) + H(Y) − H(X,Y).
CREATE AGGREGATE privrisk.mutual_information(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.mutual_information_final,
    COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize,
    DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.mutual_information_bits(x "any", y "any") (
    SFUNC = privrisk.pair_counts_transition, STYPE = internal, FINALFUNC = privrisk.mutual_information_bits_final,
    COMBINEFUNC = privrisk.value_counts_combine, SERIALFUNC = privrisk.value_counts_serialize,
    DESERIALFUNC = privrisk.value_counts_deserialize, PARALLEL = SAFE
);

------------------------------------------------------------------------------
-- Channel metrics (Askari et al. §4.1; bits). matrix[i][j] = P(output j | input i),
-- rows stochastic within 1e-9; prior NULL = uniform.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.channel_bayes_error(matrix float8[], prior float8[] DEFAULT NULL) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_bayes_error';
CREATE FUNCTION privrisk.channel_conditional_entropy(matrix float8[], prior float8[] DEFAULT NULL) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_conditional_entropy';
CREATE FUNCTION privrisk.channel_mutual_information(matrix float8[], prior float8[] DEFAULT NULL) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_mutual_information';
CREATE FUNCTION privrisk.channel_error_bound(matrix float8[], prior float8[] DEFAULT NULL) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_error_bound';
CREATE FUNCTION privrisk.channel_report(matrix float8[], prior float8[] DEFAULT NULL) RETURNS jsonb
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_report';
CREATE FUNCTION privrisk.channel_worst_case_prior(matrix float8[]) RETURNS jsonb
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_channel_worst_case_prior';

-- The k-anonymity channel of a tiny universe (§5, corrected counts): quasi-identifiers
-- are tree hierarchies (their leaves are the ground domain), other_domains the sizes
-- of the attributes that are never generalized. Reads the hierarchy catalog: STABLE.
CREATE FUNCTION privrisk.k_anonymity_channel(quasi_identifiers text[], other_domains int[], rows int, k int,
                                             mechanism text DEFAULT 'uniform') RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_k_anonymity_channel';

------------------------------------------------------------------------------
-- Utility: Askari's (eq 8-14, bits) and the workload's (Brickell-Shmatikov).
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.askari_utility(source regclass, columns text[], hierarchies text[] DEFAULT NULL,
                                        levels int[] DEFAULT NULL, weights float8[] DEFAULT NULL) RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_askari_utility';

-- Utility_Deg (eq 15): the utility lost by publishing the columns at `levels`.
CREATE FUNCTION privrisk.askari_degradation(source regclass, columns text[], hierarchies text[], levels int[],
                                            weights float8[] DEFAULT NULL) RETURNS float8
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
    RETURN (privrisk.askari_utility(source, columns, hierarchies, NULL, weights)->>'utility')::float8
         - (privrisk.askari_utility(source, columns, hierarchies, levels, weights)->>'utility')::float8;

CREATE FUNCTION privrisk.classification_accuracy(source regclass, features text[], target text,
                                                 classifier text DEFAULT 'naive_bayes', folds int DEFAULT 10,
                                                 hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL,
                                                 fold_columns text[] DEFAULT NULL) RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_classification_accuracy';

-- U_san − U_base (digest 001 §2.6): the accuracy of predicting `target` from the release
-- (quasi-identifiers at `levels`, plus the sensitive column), against the better of the
-- two trivial sanitizations (no quasi-identifiers; no sensitive column). Same folds for all.
CREATE FUNCTION privrisk.workload_utility(source regclass, quasi_identifiers text[], sensitive text, target text,
                                          hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL,
                                          classifier text DEFAULT 'naive_bayes') RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    columns text[] := ARRAY(SELECT DISTINCT c FROM unnest(quasi_identifiers || sensitive || target) AS c
                            WHERE c IS NOT NULL ORDER BY c);
    features text[];
    feature_hierarchies text[];
    feature_levels int[];
    u_san float8; u_max float8; u_no_qi float8; u_no_sensitive float8;
BEGIN
    IF target IS NULL THEN
        RAISE EXCEPTION 'workload_utility needs a target column' USING ERRCODE = 'invalid_parameter_value';
    END IF;
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

------------------------------------------------------------------------------
-- audit() gains a utility block when options name a target column.
------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION privrisk.audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL,
                               hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL,
                               options jsonb DEFAULT '{}') RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    unknown text;
    result jsonb;
BEGIN
    IF options IS NULL OR jsonb_typeof(options) <> 'object' THEN
        RAISE EXCEPTION 'options must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT string_agg(quote_literal(k), ', ') INTO unknown FROM jsonb_object_keys(options) AS k
    WHERE k NOT IN ('risk_threshold', 'l_c', 'sensitive_hierarchy', 'kmax', 'target', 'classifier');
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'unknown audit option(s) %', unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known options: risk_threshold, l_c, sensitive_hierarchy, kmax, target, classifier';
    END IF;
    IF options ? 'risk_threshold' AND jsonb_typeof(options->'risk_threshold') <> 'number'
       OR options ? 'l_c' AND jsonb_typeof(options->'l_c') <> 'number'
       OR options ? 'kmax' AND jsonb_typeof(options->'kmax') <> 'number'
       OR options ? 'sensitive_hierarchy' AND jsonb_typeof(options->'sensitive_hierarchy') <> 'string'
       OR options ? 'target' AND jsonb_typeof(options->'target') <> 'string'
       OR options ? 'classifier' AND jsonb_typeof(options->'classifier') <> 'string' THEN
        RAISE EXCEPTION 'audit options: risk_threshold, l_c and kmax are numbers; sensitive_hierarchy, target and classifier strings'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    result := privrisk.audit_classes(source, quasi_identifiers, sensitive, hierarchies, levels,
                                     (options->>'risk_threshold')::float8, (options->>'l_c')::float8,
                                     options->>'sensitive_hierarchy', (options->>'kmax')::int);
    IF options ? 'target' THEN
        result := result || jsonb_build_object('utility',
            privrisk.workload_utility(source, quasi_identifiers, sensitive, options->>'target', hierarchies, levels,
                                      coalesce(options->>'classifier', 'naive_bayes'))
            || jsonb_build_object('askari_utility', privrisk.askari_utility(source, quasi_identifiers || sensitive,
                   hierarchies || CASE WHEN sensitive IS NOT NULL THEN ARRAY[NULL::text] END,
                   levels || CASE WHEN sensitive IS NOT NULL THEN ARRAY[0] END)->'utility'));
    END IF;
    RETURN result;
END $$;

------------------------------------------------------------------------------
-- Differential privacy, first part (SPEC §4.7): SafePub's sampling probability
-- and suppression threshold for a target (ε, δ), rounded on the safe side.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.dp_parameters(epsilon float8, delta float8, OUT beta float8, OUT k int8, OUT delta_k float8)
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dp_parameters';
