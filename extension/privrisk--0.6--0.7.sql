-- privrisk 0.6 -> 0.7: differentially private releases under a privacy budget
-- (SPEC §4.7).
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.7'" to load this file. \quit

------------------------------------------------------------------------------
-- Budgets: one per source relation, spent by every DP release of it. Written
-- only by set_budget() and dp_release() (as the tables' owner), readable by all.
------------------------------------------------------------------------------
CREATE TABLE privrisk.budget (
    relation regclass PRIMARY KEY,
    epsilon float8 NOT NULL CHECK (epsilon > 0 AND epsilon < 'Infinity'),
    delta float8 NOT NULL CHECK (delta >= 0 AND delta < 1),
    spent_epsilon float8 NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0),
    spent_delta float8 NOT NULL DEFAULT 0 CHECK (spent_delta >= 0),
    set_by name NOT NULL,
    set_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE privrisk.budget IS 'privacy budget (epsilon, delta) of each source relation and what DP releases spent of it';

CREATE TABLE privrisk.budget_ledger (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    relation regclass NOT NULL,
    spent_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    spent_by name NOT NULL,
    epsilon float8 NOT NULL,
    delta float8 NOT NULL,
    mechanism text NOT NULL,
    parameters jsonb NOT NULL,
    private boolean NOT NULL   -- false for a seeded (reproducible) run
);
COMMENT ON TABLE privrisk.budget_ledger IS 'every spend of a privacy budget: who, when, epsilon, delta, mechanism, parameters';

SELECT pg_catalog.pg_extension_config_dump('privrisk.budget', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.budget_ledger', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.budget_ledger_id_seq', '');
REVOKE ALL ON privrisk.budget, privrisk.budget_ledger FROM PUBLIC;
GRANT SELECT ON privrisk.budget, privrisk.budget_ledger TO PUBLIC;

CREATE FUNCTION privrisk.set_budget(dataset regclass, epsilon float8, delta float8) RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_set_budget';
COMMENT ON FUNCTION privrisk.set_budget(regclass, float8, float8) IS
    'sets the privacy budget of a relation (its owner only; never below what was spent)';

------------------------------------------------------------------------------
-- dp_release: a differentially private release of a relation; spends (epsilon,
-- delta) from the relation's budget in the caller's transaction. Returns SETOF
-- record: give a column definition list of text columns, one per
-- quasi-identifier (plus a bigint count with output => 'classes').
--   safepub: levels (the node) required; fouad: drop_probability required,
--   theta0, lambda, kappa, score (aggregate | risk), sensitivity (uniform |
--   harmonic) and leaf_weights optional.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.dp_release(source regclass, quasi_identifiers text[], hierarchies text[],
                                    epsilon float8, delta float8, mechanism text DEFAULT 'safepub',
                                    levels int[] DEFAULT NULL, seed int8 DEFAULT NULL, output text DEFAULT 'rows',
                                    drop_probability float8 DEFAULT NULL, theta0 float8 DEFAULT NULL,
                                    lambda float8 DEFAULT NULL, kappa int DEFAULT NULL, score text DEFAULT NULL,
                                    sensitivity text DEFAULT NULL, leaf_weights float8[] DEFAULT NULL)
    RETURNS SETOF record
    LANGUAGE c VOLATILE PARALLEL UNSAFE ROWS 1000 AS 'MODULE_PATHNAME', 'privrisk_dp_release';
COMMENT ON FUNCTION privrisk.dp_release(regclass, text[], text[], float8, float8, text, int[], int8, text,
                                        float8, float8, float8, int, text, text, float8[]) IS
    'differentially private release under a budget: safepub (sampling, generalization, suppression under k) or fouad (per-record exponential mechanism)';

CREATE FUNCTION privrisk.dp_sampled(seed int8, probability float8, tableoid oid, ctid tid) RETURNS boolean
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dp_sampled';
COMMENT ON FUNCTION privrisk.dp_sampled(int8, float8, oid, tid) IS
    'whether dp_release with this seed samples the row (seeded runs are reproducible and not private)';

------------------------------------------------------------------------------
-- Decision-theoretic risk (SPEC §4.5; Lebanon et al.): sensitivity Φ, the
-- loss, identification against a dictionary, and the risk aggregates.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.sensitivity_linear(weights float8[], disclosed boolean[]) RETURNS float8
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_sensitivity_linear';
COMMENT ON FUNCTION privrisk.sensitivity_linear(float8[], boolean[]) IS
    'Phi_1 (Phi_2 with an entity''s own weights): the sum of the disclosed attributes'' weights';
CREATE FUNCTION privrisk.sensitivity_pairwise(weights float8[], pair_weights float8[], disclosed boolean[]) RETURNS float8
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_sensitivity_pairwise';
COMMENT ON FUNCTION privrisk.sensitivity_pairwise(float8[], float8[], boolean[]) IS
    'Phi_3: disclosed weights plus the weights of disclosed pairs (an m x m matrix, upper triangle)';
CREATE FUNCTION privrisk.sensitivity_multiplicative(weights float8[], disclosed boolean[]) RETURNS float8
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_sensitivity_multiplicative';
COMMENT ON FUNCTION privrisk.sensitivity_multiplicative(float8[], boolean[]) IS
    'Phi_4: exp of the sum of the disclosed weights (1 for a fully suppressed record)';
CREATE FUNCTION privrisk.harmonic_weight(hierarchy text, node text, leaf_weight float8) RETURNS float8
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_harmonic_weight';
COMMENT ON FUNCTION privrisk.harmonic_weight(text, text, float8) IS
    'the modified-harmonic-mean weight of a hierarchy node: leaf_weight / leaves under it; bottom (NULL) 0';
CREATE FUNCTION privrisk.sensitivity(vals text[], hierarchies text[], leaf_weights float8[],
                                     family text DEFAULT 'multiplicative') RETURNS float8
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_sensitivity';
COMMENT ON FUNCTION privrisk.sensitivity(text[], text[], float8[], text) IS
    'Phi of a released record with harmonic value weights (family multiplicative or linear); NULL is bottom';
CREATE FUNCTION privrisk.loss(phi float8, matches int8, psi float8 DEFAULT 0) RETURNS float8
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_loss';
COMMENT ON FUNCTION privrisk.loss(float8, int8, float8) IS
    'decision-theoretic loss: phi/matches + (1 - 1/matches) psi; psi when nothing matches; 0 * inf = 0';

CREATE FUNCTION privrisk.dt_risk_add(state bytea, phi float8, matches int8) RETURNS bytea
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dt_risk_add';
CREATE FUNCTION privrisk.bayes_risk_add(state bytea, risk float8, prior float8) RETURNS bytea
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_bayes_risk_add';
CREATE FUNCTION privrisk.risk_state_combine(bytea, bytea) RETURNS bytea
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_risk_state_combine';
CREATE FUNCTION privrisk.risk_state_mean(bytea) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_risk_state_mean';
CREATE FUNCTION privrisk.dt_risk_max_add(state float8, phi float8, matches int8) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dt_risk_max_add';
CREATE AGGREGATE privrisk.dt_risk(phi float8, matches int8) (
    SFUNC = privrisk.dt_risk_add, STYPE = bytea, COMBINEFUNC = privrisk.risk_state_combine,
    FINALFUNC = privrisk.risk_state_mean, PARALLEL = SAFE);
COMMENT ON AGGREGATE privrisk.dt_risk(float8, int8) IS
    'decision-theoretic risk R(delta, theta): the mean loss over all released rows (exact sums: order-independent)';
CREATE AGGREGATE privrisk.dt_risk_max(phi float8, matches int8) (
    SFUNC = privrisk.dt_risk_max_add, STYPE = float8, COMBINEFUNC = float8larger, PARALLEL = SAFE);
COMMENT ON AGGREGATE privrisk.dt_risk_max(float8, int8) IS 'the worst released record''s loss';
CREATE AGGREGATE privrisk.bayes_risk(risk float8, prior float8) (
    SFUNC = privrisk.bayes_risk_add, STYPE = bytea, COMBINEFUNC = privrisk.risk_state_combine,
    FINALFUNC = privrisk.risk_state_mean, PARALLEL = SAFE);
COMMENT ON AGGREGATE privrisk.bayes_risk(float8, float8) IS
    'Bayes risk over candidate dictionaries: sum(prior * risk) / sum(prior)';

CREATE FUNCTION privrisk.match_counts(released regclass, dictionary regclass, mapping jsonb,
                                      mode text DEFAULT 'exact', threshold float8 DEFAULT 0.8, levels int[] DEFAULT NULL)
    RETURNS TABLE(released_values text[], rows int8, matches int8)
    LANGUAGE c STABLE PARALLEL RESTRICTED ROWS 10000 AS 'MODULE_PATHNAME', 'privrisk_match_counts';
COMMENT ON FUNCTION privrisk.match_counts(regclass, regclass, jsonb, text, float8, int[]) IS
    '|rho(y, theta)| for every distinct released tuple (generalized to levels when given): the dictionary entries consistent with it';
CREATE FUNCTION privrisk.dt_risk_add(state bytea, phi float8, matches int8, rows int8) RETURNS bytea
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dt_risk_add';
CREATE AGGREGATE privrisk.dt_risk(phi float8, matches int8, rows int8) (
    SFUNC = privrisk.dt_risk_add, STYPE = bytea, COMBINEFUNC = privrisk.risk_state_combine,
    FINALFUNC = privrisk.risk_state_mean, PARALLEL = SAFE);
COMMENT ON AGGREGATE privrisk.dt_risk(float8, int8, int8) IS
    'the mean loss with each distinct released tuple weighted by its rows (match_counts output)';

-- Optimal disclosure (paper eq. 7-9; thesis ch. 4): per record, the generalization
-- minimizing the risk against a dictionary subject to a utility floor (min_risk),
-- maximizing utility under a risk ceiling (max_utility), or minimizing risk - lambda
-- utility (lagrangian); methods exhaustive, btda, aruba, genetic (seeded).
CREATE FUNCTION privrisk.optimal_disclosure(record text[], dictionary regclass, mapping jsonb, leaf_weights float8[],
                                            bound float8 DEFAULT NULL, method text DEFAULT 'aruba',
                                            problem text DEFAULT 'min_risk', lambda float8 DEFAULT 0,
                                            family text DEFAULT 'multiplicative', seed int8 DEFAULT 1) RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_optimal_disclosure';
COMMENT ON FUNCTION privrisk.optimal_disclosure(text[], regclass, jsonb, float8[], float8, text, text, float8, text, int8) IS
    'the optimal disclosure of one record against a dictionary: levels, released values, risk, utility, nodes visited';
CREATE FUNCTION privrisk.optimal_disclosures(source regclass, dictionary regclass, mapping jsonb, leaf_weights float8[],
                                             bound float8 DEFAULT NULL, method text DEFAULT 'aruba',
                                             problem text DEFAULT 'min_risk', lambda float8 DEFAULT 0,
                                             family text DEFAULT 'multiplicative', seed int8 DEFAULT 1)
    RETURNS TABLE(source_values text[], rows int8, levels int[], released_values text[], risk float8, utility float8,
                  visited int8)
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_optimal_disclosures';
COMMENT ON FUNCTION privrisk.optimal_disclosures(regclass, regclass, jsonb, float8[], float8, text, text, float8, text, int8) IS
    'the optimal disclosure of every distinct source tuple (per-record levels the release can publish)';

CREATE FUNCTION privrisk.risk_bound_holds(source regclass, estimated regclass, true_dictionary regclass, id_column text,
                                          mapping jsonb) RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_risk_bound_holds';
COMMENT ON FUNCTION privrisk.risk_bound_holds(regclass, regclass, regclass, text, jsonb) IS
    'Proposition 1''s conditions: unique ids, estimated << true dictionary, a counterpart for every source record';

-- Weight schemas (digest 000 §3.4 with E1's corrected direction, A11, A12): per-node
-- weights of a tree hierarchy must be non-negative numbers, never grow toward the
-- root (a more general value is not more sensitive), and the root (bottom) weighs 0.
CREATE FUNCTION privrisk.check_sensitivity_weights(hierarchy text, weights jsonb) RETURNS boolean
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    bad record;
    kind_of text;
    root_of text;
BEGIN
    IF hierarchy IS NULL OR weights IS NULL THEN
        RAISE EXCEPTION 'hierarchy and weights must not be NULL' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT h.kind, h.root INTO kind_of, root_of FROM privrisk.hierarchy h WHERE h.name = hierarchy;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'hierarchy "%" does not exist', hierarchy USING ERRCODE = 'undefined_object';
    END IF;
    IF kind_of <> 'tree' THEN
        RAISE EXCEPTION 'per-node weights need a tree hierarchy; "%" is of kind %', hierarchy, kind_of
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF jsonb_typeof(weights) <> 'object' THEN
        RAISE EXCEPTION 'weights must be a jsonb object {node: weight}' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR bad IN SELECT key, value FROM jsonb_each(weights)
               WHERE jsonb_typeof(value) <> 'number' OR (value::text)::float8 < 0 LIMIT 1 LOOP
        RAISE EXCEPTION 'the weight of node "%" must be a non-negative number, got %', bad.key, bad.value
            USING ERRCODE = 'invalid_parameter_value';
    END LOOP;
    FOR bad IN SELECT key FROM jsonb_each(weights) w
               WHERE w.key <> root_of AND NOT EXISTS (SELECT 1 FROM privrisk.hierarchy_leaf l WHERE l.hierarchy = check_sensitivity_weights.hierarchy
                                 AND w.key = ANY (l.path)) LIMIT 1 LOOP
        RAISE EXCEPTION 'node "%" is not in hierarchy "%"', bad.key, hierarchy USING ERRCODE = 'invalid_parameter_value';
    END LOOP;
    IF weights ? root_of AND (weights->>root_of)::float8 <> 0 THEN
        RAISE EXCEPTION 'the root "%" (bottom) must weigh 0, got %', root_of, weights->>root_of
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR bad IN SELECT l.path[i] AS child, l.path[i + 1] AS parent
               FROM privrisk.hierarchy_leaf l, generate_subscripts(l.path, 1) AS i
               WHERE l.hierarchy = check_sensitivity_weights.hierarchy AND i < array_length(l.path, 1)
                 AND weights ? l.path[i] AND weights ? l.path[i + 1]
                 AND (weights->>l.path[i + 1])::float8 > (weights->>l.path[i])::float8
               ORDER BY l.line, i LIMIT 1 LOOP
        RAISE EXCEPTION 'weights must not grow toward the root: "%" (%) generalizes "%" (%)',
            bad.parent, weights->>bad.parent, bad.child, weights->>bad.child USING ERRCODE = 'invalid_parameter_value';
    END LOOP;
    RETURN true;
END $$;
COMMENT ON FUNCTION privrisk.check_sensitivity_weights(text, jsonb) IS
    'validates per-node sensitivity weights of a tree hierarchy: non-negative, not growing toward the root, root 0';

-- Per-record budgets (digest 000 §3.3): an entity's weights sum to c ('exactly') or at most c ('at_most').
CREATE FUNCTION privrisk.check_weight_budget(weights float8[], budget float8, mode text DEFAULT 'at_most') RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
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
    SELECT coalesce(sum(w), 0) INTO total FROM unnest(weights) w;
    RETURN CASE mode WHEN 'exactly' THEN abs(total - budget) <= 1e-9 * greatest(1, abs(budget))
                     ELSE total <= budget + 1e-9 * greatest(1, abs(budget)) END;
END $$;
COMMENT ON FUNCTION privrisk.check_weight_budget(float8[], float8, text) IS
    'whether an entity''s weights meet its budget: sum = budget (exactly) or sum <= budget (at_most)';

-- The decision-theoretic risk of a relation (or of its release at `levels`)
-- against a dictionary: the mean and worst loss, the rows nothing identifies.
CREATE FUNCTION privrisk.dictionary_risk(source regclass, dictionary regclass, mapping jsonb, leaf_weights float8[],
                                         levels int[] DEFAULT NULL, family text DEFAULT 'multiplicative') RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT jsonb_build_object('dictionary', dictionary::text,
               'risk', privrisk.dt_risk(phi, matches, rows), 'max_loss', privrisk.dt_risk_max(phi, matches),
               'rows', coalesce(sum(rows), 0), 'unidentified_rows', coalesce(sum(rows) FILTER (WHERE matches = 0), 0),
               'family', family)
    FROM (SELECT m.rows, m.matches,
                 privrisk.sensitivity(m.released_values, ARRAY(SELECT e->>'hierarchy' FROM jsonb_array_elements(mapping) e),
                                      leaf_weights, family) AS phi
          FROM privrisk.match_counts(source, dictionary, mapping, 'exact', 0.8, levels) AS m) AS per_tuple;
END;
COMMENT ON FUNCTION privrisk.dictionary_risk(regclass, regclass, jsonb, float8[], int[], text) IS
    'dt_risk of a relation (at levels) against a dictionary: risk, max_loss, rows, unidentified_rows';

-- audit() and search() take a dictionary (options / constraints "dictionary", with
-- "mapping" (default: the quasi-identifiers and their hierarchies), "leaf_weights"
-- (default 1/k each) and "sensitivity_family") and report its dt_risk. These
-- functions run without their own search_path, so that the dictionary's name
-- resolves as the caller would resolve it; every object they use is qualified.
CREATE FUNCTION privrisk.dictionary_options(options jsonb, quasi_identifiers text[], hierarchies text[],
                                            OUT dictionary regclass, OUT mapping jsonb, OUT leaf_weights float8[],
                                            OUT family text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF jsonb_typeof(options->'dictionary') IS DISTINCT FROM 'string'
       OR options ? 'mapping' AND jsonb_typeof(options->'mapping') <> 'array'
       OR options ? 'leaf_weights' AND jsonb_typeof(options->'leaf_weights') <> 'array'
       OR options ? 'sensitivity_family' AND jsonb_typeof(options->'sensitivity_family') <> 'string' THEN
        RAISE EXCEPTION 'dictionary is a relation name, mapping a jsonb array, leaf_weights an array of numbers, '
                        'sensitivity_family a string' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    dictionary := (options->>'dictionary')::regclass;
    mapping := coalesce(options->'mapping',
        (SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('released', q, 'hierarchy', h)) ORDER BY i)
         FROM unnest(quasi_identifiers, coalesce(hierarchies, array_fill(NULL::text, ARRAY[cardinality(quasi_identifiers)])))
              WITH ORDINALITY AS t(q, h, i)));
    IF options ? 'leaf_weights' THEN
        leaf_weights := ARRAY(SELECT x::float8 FROM jsonb_array_elements_text(options->'leaf_weights') x);
    ELSE
        leaf_weights := array_fill(1.0::float8 / jsonb_array_length(mapping), ARRAY[jsonb_array_length(mapping)]);
    END IF;
    family := coalesce(options->>'sensitivity_family', 'multiplicative');
END $$;

CREATE OR REPLACE FUNCTION privrisk.run_search(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text,
                                    constraints jsonb, utility text, every_node boolean) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
AS $$
DECLARE
    bad text;
    result jsonb;
    d record;
BEGIN
    IF constraints IS NULL OR jsonb_typeof(constraints) <> 'object' THEN
        RAISE EXCEPTION 'constraints must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF constraints ? 'dt_risk' THEN
        RAISE EXCEPTION 'dt_risk is not a search constraint: give a "dictionary" to have the result''s dt_risk reported'
            USING ERRCODE = 'feature_not_supported';
    END IF;
    SELECT string_agg(quote_literal(key), ', ') INTO bad FROM jsonb_object_keys(constraints) AS key
    WHERE key NOT IN ('k', 'l', 'l_kind', 'l_c', 't', 't_kind', 't_hierarchy', 'delta', 'c', 'ck_k', 'max_risk',
                      'average_risk', 'max_suppression', 'dictionary', 'mapping', 'leaf_weights', 'sensitivity_family');
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'unknown constraint(s) %', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known constraints: k, l (l_kind, l_c), t (t_kind, t_hierarchy), delta, c with ck_k, '
                         'max_risk, average_risk, max_suppression; and dictionary (mapping, leaf_weights, '
                         'sensitivity_family) to report the result''s dt_risk';
    END IF;
    SELECT string_agg(quote_literal(key), ', ') INTO bad FROM jsonb_each(constraints) AS e(key, value)
    WHERE key NOT IN ('dictionary', 'mapping', 'leaf_weights', 'sensitivity_family') AND CASE WHEN key IN ('l_kind', 't_kind', 't_hierarchy') THEN jsonb_typeof(value) <> 'string'
               WHEN key IN ('k', 'ck_k') THEN jsonb_typeof(value) <> 'number' OR value::text::numeric <> trunc(value::text::numeric)
                                               OR abs(value::text::numeric) > 9223372036854775807
               ELSE jsonb_typeof(value) <> 'number' END;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'constraint(s) % have the wrong type', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'k and ck_k are integers; l_kind, t_kind and t_hierarchy are strings; the others numbers';
    END IF;
    IF (constraints ? 'c') <> (constraints ? 'ck_k') THEN
        RAISE EXCEPTION 'constraint c needs ck_k (the number of implications the attacker knows), and ck_k needs c'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (constraints ? 'l_kind' OR constraints ? 'l_c') AND NOT constraints ? 'l'
       OR (constraints ? 't_kind' OR constraints ? 't_hierarchy') AND NOT constraints ? 't' THEN
        RAISE EXCEPTION 'l_kind and l_c qualify constraint l, t_kind and t_hierarchy constraint t: give l or t too'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF constraints ? 'dictionary' THEN
        IF every_node THEN
            RAISE EXCEPTION 'lattice() does not report dt_risk: search() does, for the node it finds'
                USING ERRCODE = 'feature_not_supported';
        END IF;
        d := privrisk.dictionary_options(constraints, quasi_identifiers, hierarchies);  -- checked before searching
    END IF;
    result := privrisk.search_lattice(source, quasi_identifiers, hierarchies, sensitive,
        (constraints->>'k')::int8, (constraints->>'l')::float8, constraints->>'l_kind', (constraints->>'l_c')::float8,
        (constraints->>'t')::float8, constraints->>'t_kind', constraints->>'t_hierarchy',
        (constraints->>'delta')::float8, (constraints->>'c')::float8, (constraints->>'ck_k')::int,
        (constraints->>'max_risk')::float8, (constraints->>'average_risk')::float8,
        (constraints->>'max_suppression')::float8, utility, every_node);
    IF constraints ? 'dictionary' AND NOT every_node AND (result->>'found')::boolean THEN
        result := jsonb_set(result, '{result,dt_risk}', privrisk.dictionary_risk(source, d.dictionary, d.mapping,
            d.leaf_weights, ARRAY(SELECT jsonb_array_elements_text(result->'result'->'node')::int), d.family));
    END IF;
    RETURN result;
END $$;

CREATE OR REPLACE FUNCTION privrisk.audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL,
                               hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL,
                               options jsonb DEFAULT '{}') RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
AS $$
DECLARE
    unknown text;
    result jsonb;
    d record;
BEGIN
    IF options IS NULL OR jsonb_typeof(options) <> 'object' THEN
        RAISE EXCEPTION 'options must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT string_agg(quote_literal(k), ', ') INTO unknown FROM jsonb_object_keys(options) AS k
    WHERE k NOT IN ('risk_threshold', 'l_c', 'sensitive_hierarchy', 'kmax', 'target', 'classifier',
                    'dictionary', 'mapping', 'leaf_weights', 'sensitivity_family');
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'unknown audit option(s) %', unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known options: risk_threshold, l_c, sensitive_hierarchy, kmax, target, classifier, '
                         'dictionary (mapping, leaf_weights, sensitivity_family)';
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
    IF options ? 'dictionary' THEN
        IF options ? 'mapping' AND levels IS NOT NULL THEN
            RAISE EXCEPTION 'levels apply to the default mapping (the quasi-identifiers); with a mapping, audit the '
                            'generalized relation itself' USING ERRCODE = 'invalid_parameter_value';
        END IF;
        d := privrisk.dictionary_options(options, quasi_identifiers, hierarchies);
        result := result || jsonb_build_object('dt_risk',
            privrisk.dictionary_risk(source, d.dictionary, d.mapping, d.leaf_weights, levels, d.family));
    END IF;
    RETURN result;
END $$;

CREATE OR REPLACE FUNCTION privrisk.search(source regclass, quasi_identifiers text[], hierarchies text[],
                                          sensitive text DEFAULT NULL, constraints jsonb DEFAULT '{}',
                                          utility text DEFAULT 'loss') RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    RETURN privrisk.run_search(source, quasi_identifiers, hierarchies, sensitive, constraints, utility, false);

-- The table-level, full-domain form: one node for every row, risk = the mean loss of
-- the release at the node, utility = the mean steps left to bottom; search()'s shape.
CREATE FUNCTION privrisk.optimal_generalization(source regclass, dictionary regclass, mapping jsonb, leaf_weights float8[],
                                                bound float8 DEFAULT NULL, method text DEFAULT 'btda',
                                                problem text DEFAULT 'min_risk', lambda float8 DEFAULT 0,
                                                family text DEFAULT 'multiplicative', seed int8 DEFAULT 1) RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_optimal_generalization';
COMMENT ON FUNCTION privrisk.optimal_generalization(regclass, regclass, jsonb, float8[], float8, text, text, float8, text, int8) IS
    'the full-domain node of least mean risk against a dictionary with mean utility >= bound (or the other forms); apply_generalization publishes it';

CREATE FUNCTION privrisk.match_count(released_values text[], dictionary regclass, mapping jsonb,
                                     mode text DEFAULT 'exact', threshold float8 DEFAULT 0.8) RETURNS int8
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_match_count';
COMMENT ON FUNCTION privrisk.match_count(text[], regclass, jsonb, text, float8) IS
    '|rho(y, theta)| of one released record (reads the dictionary on each call; match_counts does a table at once)';
CREATE FUNCTION privrisk.independent_top_k(weights float8[], frequencies float8[], dictionary_size int8, k int) RETURNS jsonb
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_independent_top_k';
COMMENT ON FUNCTION privrisk.independent_top_k(float8[], float8[], int8, int) IS
    'the k attributes whose disclosure costs least under independence (paper 4.2): factors e^w/f, loss (1/N) prod';

-- Every node of a tree hierarchy with its harmonic weight (digest 000 §3 H): the
-- modified harmonic mean of its children, which for equal leaf weights is
-- leaf_weight / (leaves under the node); the root (bottom) weighs 0.
CREATE FUNCTION privrisk.harmonic_weights(hierarchy text, leaf_weight float8)
    RETURNS TABLE(node text, level int, leaves int8, weight float8)
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    kind_of text;
BEGIN
    IF hierarchy IS NULL OR leaf_weight IS NULL OR leaf_weight < 0 OR leaf_weight = 'NaN' THEN
        RAISE EXCEPTION 'leaf_weight must be a non-negative number, got %', coalesce(leaf_weight::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT h.kind INTO kind_of FROM privrisk.hierarchy h WHERE h.name = hierarchy;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'hierarchy "%" does not exist', hierarchy USING ERRCODE = 'undefined_object';
    END IF;
    IF kind_of <> 'tree' THEN
        RAISE EXCEPTION 'harmonic_weights lists the nodes of a tree hierarchy; "%" is of kind % (use harmonic_weight per node)',
            hierarchy, kind_of USING ERRCODE = 'invalid_parameter_value';
    END IF;
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
COMMENT ON FUNCTION privrisk.harmonic_weights(text, float8) IS
    'every node of a tree hierarchy with its harmonic weight leaf_weight / leaves under it; the root 0';
