CREATE OR REPLACE FUNCTION privrisk.bayes_risk_add(state bytea, risk double precision, prior double precision) RETURNS bytea LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_bayes_risk_add';

CREATE OR REPLACE FUNCTION privrisk.check_weight_budget(weights double precision[], budget double precision, mode text DEFAULT 'at_most'::text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    total float8;
BEGIN
    IF weights IS NULL OR budget IS NULL OR mode IS NULL THEN
        RAISE EXCEPTION 'weights, budget and mode must not be NULL' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF mode NOT IN ('exactly', 'at_most') THEN
        RAISE EXCEPTION 'mode must be exactly or at_most, got "%"', mode USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(weights) w WHERE w IS NULL OR w < 0 OR w = 'NaN') THEN
        RAISE EXCEPTION 'weights must be non-negative numbers' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF budget = 'NaN' OR budget IN ('Infinity', '-Infinity') THEN
        RAISE EXCEPTION 'budget must be a finite number, got %', budget USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT coalesce(sum(w), 0) INTO total FROM unnest(weights) w;
    RETURN CASE mode WHEN 'exactly' THEN abs(total - budget) <= 1e-9 * greatest(1, abs(budget))
                     ELSE total <= budget + 1e-9 * greatest(1, abs(budget)) END;
END $$;

CREATE OR REPLACE FUNCTION privrisk.dictionary_options(options jsonb, quasi_identifiers text[], hierarchies text[], OUT dictionary regclass, OUT mapping jsonb, OUT leaf_weights double precision[], OUT family text) RETURNS record
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    PERFORM privrisk.check_options('dictionary', options);
    IF NOT options OPERATOR(pg_catalog.?) 'dictionary' THEN
        RAISE EXCEPTION 'option dictionary must name the relation of the attacker''s dictionary'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- Resolved on the caller's own search path, as a regclass argument would be.
    dictionary := privrisk.caller_regclass(options OPERATOR(pg_catalog.->>) 'dictionary');
    mapping := COALESCE(options OPERATOR(pg_catalog.->) 'mapping',
        (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('released', q, 'hierarchy', h))
                                     ORDER BY i)
         -- unnest of several arrays is FROM-clause syntax, not a function: it cannot be qualified
         FROM unnest(quasi_identifiers,
                     COALESCE(hierarchies, pg_catalog.array_fill(NULL::pg_catalog.text,
                                    ARRAY[pg_catalog.cardinality(quasi_identifiers)])))
              WITH ORDINALITY AS t(q, h, i)));
    PERFORM privrisk.check_dictionary_mapping(mapping, options OPERATOR(pg_catalog.->) 'leaf_weights');
    IF options OPERATOR(pg_catalog.?) 'leaf_weights' THEN
        leaf_weights := ARRAY(SELECT x::pg_catalog.float8
                              FROM pg_catalog.jsonb_array_elements_text(options OPERATOR(pg_catalog.->) 'leaf_weights') x);
    ELSE
        leaf_weights := pg_catalog.array_fill(1.0::pg_catalog.float8 OPERATOR(pg_catalog./) pg_catalog.jsonb_array_length(mapping),
                                              ARRAY[pg_catalog.jsonb_array_length(mapping)]);
    END IF;
    family := COALESCE(options OPERATOR(pg_catalog.->>) 'sensitivity_family', 'multiplicative');
END $$;

CREATE OR REPLACE FUNCTION privrisk.dt_risk_add(state bytea, phi double precision, matches bigint, rows bigint) RETURNS bytea LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dt_risk_add';

CREATE OR REPLACE FUNCTION privrisk.dt_risk_max_add(state double precision, phi double precision, matches bigint) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dt_risk_max_add';

CREATE OR REPLACE FUNCTION privrisk.match_counts(released regclass, dictionary regclass, mapping jsonb, mode text DEFAULT 'exact'::text, threshold double precision DEFAULT 0.8, levels integer[] DEFAULT NULL::integer[]) RETURNS TABLE(released_values text[], rows bigint, matches bigint) LANGUAGE c STABLE ROWS 10000 PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_match_counts';

CREATE OR REPLACE FUNCTION privrisk.risk_state_combine(bytea, bytea) RETURNS bytea LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_risk_state_combine';

CREATE OR REPLACE FUNCTION privrisk.risk_state_mean(bytea) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_risk_state_mean';

CREATE OR REPLACE FUNCTION privrisk.sensitivity(vals text[], hierarchies text[], leaf_weights double precision[], family text DEFAULT 'multiplicative'::text) RETURNS double precision LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_sensitivity';

CREATE OR REPLACE AGGREGATE privrisk.dt_risk(phi double precision, matches bigint, rows bigint) (
    SFUNC = privrisk.dt_risk_add, STYPE = bytea, FINALFUNC = privrisk.risk_state_mean, COMBINEFUNC = privrisk.risk_state_combine, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.dt_risk_max(phi double precision, matches bigint) (
    SFUNC = privrisk.dt_risk_max_add, STYPE = double precision, COMBINEFUNC = float8larger, PARALLEL = SAFE);

CREATE OR REPLACE FUNCTION privrisk.dictionary_risk(source regclass, dictionary regclass, mapping jsonb, leaf_weights double precision[], levels integer[] DEFAULT NULL::integer[], family text DEFAULT 'multiplicative'::text) RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    BEGIN ATOMIC
 SELECT jsonb_build_object('dictionary', (dictionary_risk.dictionary)::text, 'risk', privrisk.dt_risk(per_tuple.phi, per_tuple.matches, per_tuple.rows), 'max_loss', privrisk.dt_risk_max(per_tuple.phi, per_tuple.matches), 'rows', COALESCE(sum(per_tuple.rows), (0)::numeric), 'unidentified_rows', COALESCE(sum(per_tuple.rows) FILTER (WHERE (per_tuple.matches = 0)), (0)::numeric), 'family', dictionary_risk.family) AS jsonb_build_object
    FROM ( SELECT m.rows,
             m.matches,
             privrisk.sensitivity(m.released_values, ARRAY( SELECT (e.value ->> 'hierarchy'::text)
                    FROM jsonb_array_elements(dictionary_risk.mapping) e(value)), dictionary_risk.leaf_weights, dictionary_risk.family) AS phi
            FROM privrisk.match_counts(dictionary_risk.source, dictionary_risk.dictionary, dictionary_risk.mapping, 'exact'::text, (0.8)::double precision, dictionary_risk.levels) m(released_values, rows, matches)) per_tuple;
END;

CREATE OR REPLACE FUNCTION privrisk.dt_risk_add(state bytea, phi double precision, matches bigint) RETURNS bytea LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dt_risk_add';

CREATE OR REPLACE FUNCTION privrisk.harmonic_weight(hierarchy text, node text, leaf_weight double precision) RETURNS double precision LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_harmonic_weight';

CREATE OR REPLACE FUNCTION privrisk.harmonic_weights(hierarchy text, leaf_weight double precision) RETURNS TABLE(node text, level integer, leaves bigint, weight double precision)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF hierarchy IS NULL OR leaf_weight IS NULL OR leaf_weight < 0 OR leaf_weight = 'NaN' THEN
        RAISE EXCEPTION 'leaf_weight must be a non-negative number, got %', coalesce(leaf_weight::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM privrisk.require_tree_hierarchy(hierarchy, 'harmonic_weights lists the nodes of a tree hierarchy',
                                            'use harmonic_weight per node');
    RETURN QUERY
        SELECT p.path[i], i - 1, count(*), leaf_weight / count(*)
        FROM privrisk.hierarchy_leaf p, generate_subscripts(p.path, 1) AS i
        WHERE p.hierarchy = harmonic_weights.hierarchy
        GROUP BY p.path[i], i
        UNION ALL
        SELECT h.root, h.height, (SELECT count(*) FROM privrisk.hierarchy_leaf l WHERE l.hierarchy = h.name), 0::float8
        FROM privrisk.hierarchy h WHERE h.name = harmonic_weights.hierarchy
        ORDER BY 2, 1;
END $$;

CREATE OR REPLACE FUNCTION privrisk.independent_top_k(weights double precision[], frequencies double precision[], dictionary_size bigint, k integer) RETURNS jsonb LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_independent_top_k';

CREATE OR REPLACE FUNCTION privrisk.loss(phi double precision, matches bigint, psi double precision DEFAULT 0) RETURNS double precision LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_loss';

CREATE OR REPLACE FUNCTION privrisk.match_count(released_values text[], dictionary regclass, mapping jsonb, mode text DEFAULT 'exact'::text, threshold double precision DEFAULT 0.8) RETURNS bigint LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_match_count';

CREATE OR REPLACE FUNCTION privrisk.optimal_disclosure(record text[], dictionary regclass, mapping jsonb, leaf_weights double precision[], bound double precision DEFAULT NULL::double precision, method text DEFAULT 'aruba'::text, problem text DEFAULT 'min_risk'::text, lambda double precision DEFAULT 0, family text DEFAULT 'multiplicative'::text, seed bigint DEFAULT 1) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_optimal_disclosure';

CREATE OR REPLACE FUNCTION privrisk.optimal_disclosures(source regclass, dictionary regclass, mapping jsonb, leaf_weights double precision[], bound double precision DEFAULT NULL::double precision, method text DEFAULT 'aruba'::text, problem text DEFAULT 'min_risk'::text, lambda double precision DEFAULT 0, family text DEFAULT 'multiplicative'::text, seed bigint DEFAULT 1) RETURNS TABLE(source_values text[], rows bigint, levels integer[], released_values text[], risk double precision, utility double precision, visited bigint) LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_optimal_disclosures';

CREATE OR REPLACE FUNCTION privrisk.optimal_generalization(source regclass, dictionary regclass, mapping jsonb, leaf_weights double precision[], bound double precision DEFAULT NULL::double precision, method text DEFAULT 'btda'::text, problem text DEFAULT 'min_risk'::text, lambda double precision DEFAULT 0, family text DEFAULT 'multiplicative'::text, seed bigint DEFAULT 1) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_optimal_generalization';

CREATE OR REPLACE FUNCTION privrisk.risk_bound_holds(source regclass, estimated regclass, true_dictionary regclass, id_column text, mapping jsonb) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_risk_bound_holds';

CREATE OR REPLACE FUNCTION privrisk.sensitivity_linear(weights double precision[], disclosed boolean[]) RETURNS double precision LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_sensitivity_linear';

CREATE OR REPLACE FUNCTION privrisk.sensitivity_multiplicative(weights double precision[], disclosed boolean[]) RETURNS double precision LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_sensitivity_multiplicative';

CREATE OR REPLACE FUNCTION privrisk.sensitivity_pairwise(weights double precision[], pair_weights double precision[], disclosed boolean[]) RETURNS double precision LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_sensitivity_pairwise';

CREATE OR REPLACE AGGREGATE privrisk.bayes_risk(risk double precision, prior double precision) (
    SFUNC = privrisk.bayes_risk_add, STYPE = bytea, FINALFUNC = privrisk.risk_state_mean, COMBINEFUNC = privrisk.risk_state_combine, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.dt_risk(phi double precision, matches bigint) (
    SFUNC = privrisk.dt_risk_add, STYPE = bytea, FINALFUNC = privrisk.risk_state_mean, COMBINEFUNC = privrisk.risk_state_combine, PARALLEL = SAFE);
