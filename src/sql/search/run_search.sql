CREATE OR REPLACE FUNCTION privrisk.run_search(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text, constraints jsonb, utility text, every_node boolean) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
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
