
------------------------------------------------------------------------------
-- Bad input: every option is checked, by type and range, before anything runs,
-- with an error that names it (PostgreSQL's casts would name neither the option
-- nor the range). audit(), run_search() and dictionary_options() run under the
-- pinned search path and qualify what they use; a dictionary's name is still
-- resolved as the caller would resolve it (privrisk.caller_regclass).
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.check_options(kind text, options jsonb) RETURNS void
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_check_options';
COMMENT ON FUNCTION privrisk.check_options(text, jsonb) IS
    'internal: checks the type and range of each known audit option (kind audit), search constraint (search) or dictionary option';
CREATE FUNCTION privrisk.check_dictionary_mapping(mapping jsonb, leaf_weights jsonb) RETURNS void
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_check_dictionary_mapping';
COMMENT ON FUNCTION privrisk.check_dictionary_mapping(jsonb, jsonb) IS
    'internal: checks a dictionary mapping and that leaf_weights has one entry per mapped attribute';

CREATE OR REPLACE FUNCTION privrisk.dictionary_options(options jsonb, quasi_identifiers text[], hierarchies text[],
                                                       OUT dictionary regclass, OUT mapping jsonb,
                                                       OUT leaf_weights float8[], OUT family text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
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

CREATE OR REPLACE FUNCTION privrisk.run_search(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text,
                                               constraints jsonb, utility text, every_node boolean) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad text;
    result jsonb;
    d record;
BEGIN
    PERFORM privrisk.check_options('search', constraints);
    IF constraints OPERATOR(pg_catalog.?) 'dt_risk' THEN
        RAISE EXCEPTION 'dt_risk is not a search constraint: give a "dictionary" to have the result''s dt_risk reported'
            USING ERRCODE = 'feature_not_supported';
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.quote_literal(key), ', ') INTO bad
    FROM pg_catalog.jsonb_object_keys(constraints) AS key
    WHERE key OPERATOR(pg_catalog.<>) ALL (ARRAY['k', 'l', 'l_kind', 'l_c', 't', 't_kind', 't_hierarchy', 'delta', 'c',
        'ck_k', 'max_risk', 'average_risk', 'max_suppression', 'dictionary', 'mapping', 'leaf_weights',
        'sensitivity_family']::pg_catalog.text[]);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'unknown constraint(s) %', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known constraints: k, l (l_kind, l_c), t (t_kind, t_hierarchy), delta, c with ck_k, '
                         'max_risk, average_risk, max_suppression; and dictionary (mapping, leaf_weights, '
                         'sensitivity_family) to report the result''s dt_risk';
    END IF;
    IF (constraints OPERATOR(pg_catalog.?) 'c') OPERATOR(pg_catalog.<>) (constraints OPERATOR(pg_catalog.?) 'ck_k') THEN
        RAISE EXCEPTION 'constraint c needs ck_k (the number of implications the attacker knows), and ck_k needs c'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (constraints OPERATOR(pg_catalog.?|) ARRAY['l_kind', 'l_c']) AND NOT constraints OPERATOR(pg_catalog.?) 'l'
       OR (constraints OPERATOR(pg_catalog.?|) ARRAY['t_kind', 't_hierarchy']) AND NOT constraints OPERATOR(pg_catalog.?) 't' THEN
        RAISE EXCEPTION 'l_kind and l_c qualify constraint l, t_kind and t_hierarchy constraint t: give l or t too'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF constraints OPERATOR(pg_catalog.?) 'dictionary' THEN
        IF every_node THEN
            RAISE EXCEPTION 'lattice() does not report dt_risk: search() does, for the node it finds'
                USING ERRCODE = 'feature_not_supported';
        END IF;
        d := privrisk.dictionary_options(constraints, quasi_identifiers, hierarchies);  -- checked before searching
    END IF;
    -- check_options has checked every value these casts read.
    result := privrisk.search_lattice(source, quasi_identifiers, hierarchies, sensitive,
        (constraints OPERATOR(pg_catalog.->>) 'k')::pg_catalog.int8,
        (constraints OPERATOR(pg_catalog.->>) 'l')::pg_catalog.float8,
        constraints OPERATOR(pg_catalog.->>) 'l_kind',
        (constraints OPERATOR(pg_catalog.->>) 'l_c')::pg_catalog.float8,
        (constraints OPERATOR(pg_catalog.->>) 't')::pg_catalog.float8,
        constraints OPERATOR(pg_catalog.->>) 't_kind', constraints OPERATOR(pg_catalog.->>) 't_hierarchy',
        (constraints OPERATOR(pg_catalog.->>) 'delta')::pg_catalog.float8,
        (constraints OPERATOR(pg_catalog.->>) 'c')::pg_catalog.float8,
        (constraints OPERATOR(pg_catalog.->>) 'ck_k')::pg_catalog.int4,
        (constraints OPERATOR(pg_catalog.->>) 'max_risk')::pg_catalog.float8,
        (constraints OPERATOR(pg_catalog.->>) 'average_risk')::pg_catalog.float8,
        (constraints OPERATOR(pg_catalog.->>) 'max_suppression')::pg_catalog.float8, utility, every_node);
    IF constraints OPERATOR(pg_catalog.?) 'dictionary' AND NOT every_node
       AND (result OPERATOR(pg_catalog.->>) 'found')::pg_catalog.bool THEN
        result := pg_catalog.jsonb_set(result, '{result,dt_risk}',
            privrisk.dictionary_risk(source, d.dictionary, d.mapping, d.leaf_weights,
                ARRAY(SELECT pg_catalog.jsonb_array_elements_text(result OPERATOR(pg_catalog.->) 'result'
                                                                  OPERATOR(pg_catalog.->) 'node')::pg_catalog.int4),
                d.family));
    END IF;
    RETURN result;
END $$;

CREATE OR REPLACE FUNCTION privrisk.audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL,
                                          hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL,
                                          options jsonb DEFAULT '{}') RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    unknown text;
    result jsonb;
    d record;
BEGIN
    PERFORM privrisk.check_options('audit', options);
    SELECT pg_catalog.string_agg(pg_catalog.quote_literal(k), ', ') INTO unknown
    FROM pg_catalog.jsonb_object_keys(options) AS k
    WHERE k OPERATOR(pg_catalog.<>) ALL (ARRAY['risk_threshold', 'l_c', 'sensitive_hierarchy', 'kmax', 'target',
        'classifier', 'dictionary', 'mapping', 'leaf_weights', 'sensitivity_family']::pg_catalog.text[]);
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'unknown audit option(s) %', unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known options: risk_threshold, l_c, sensitive_hierarchy, kmax, target, classifier, '
                         'dictionary (mapping, leaf_weights, sensitivity_family)';
    END IF;
    IF options OPERATOR(pg_catalog.?) 'dictionary' THEN
        IF options OPERATOR(pg_catalog.?) 'mapping' AND levels IS NOT NULL THEN
            RAISE EXCEPTION 'levels apply to the default mapping (the quasi-identifiers); with a mapping, audit the '
                            'generalized relation itself' USING ERRCODE = 'invalid_parameter_value';
        END IF;
        d := privrisk.dictionary_options(options, quasi_identifiers, hierarchies);  -- checked before the scan
    END IF;
    -- check_options has checked every value these casts read.
    result := privrisk.audit_classes(source, quasi_identifiers, sensitive, hierarchies, levels,
                                     (options OPERATOR(pg_catalog.->>) 'risk_threshold')::pg_catalog.float8,
                                     (options OPERATOR(pg_catalog.->>) 'l_c')::pg_catalog.float8,
                                     options OPERATOR(pg_catalog.->>) 'sensitive_hierarchy',
                                     (options OPERATOR(pg_catalog.->>) 'kmax')::pg_catalog.int4);
    IF options OPERATOR(pg_catalog.?) 'target' THEN
        result := result OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('utility',
            privrisk.workload_utility(source, quasi_identifiers, sensitive, options OPERATOR(pg_catalog.->>) 'target',
                                      hierarchies, levels,
                                      COALESCE(options OPERATOR(pg_catalog.->>) 'classifier', 'naive_bayes'))
            OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('askari_utility',
                privrisk.askari_utility(source, quasi_identifiers OPERATOR(pg_catalog.||) sensitive,
                    hierarchies OPERATOR(pg_catalog.||) CASE WHEN sensitive IS NOT NULL THEN ARRAY[NULL::pg_catalog.text] END,
                    levels OPERATOR(pg_catalog.||) CASE WHEN sensitive IS NOT NULL THEN ARRAY[0] END)
                OPERATOR(pg_catalog.->) 'utility'));
    END IF;
    IF options OPERATOR(pg_catalog.?) 'dictionary' THEN
        result := result OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('dt_risk',
            privrisk.dictionary_risk(source, d.dictionary, d.mapping, d.leaf_weights, levels, d.family));
    END IF;
    RETURN result;
END $$;
