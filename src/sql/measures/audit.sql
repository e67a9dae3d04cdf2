CREATE OR REPLACE FUNCTION privrisk.audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL::text, hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], options jsonb DEFAULT '{}'::jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
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
                -- without hierarchies, every quasi-identifier is released as it is (level 0)
                privrisk.askari_utility(source, quasi_identifiers OPERATOR(pg_catalog.||) sensitive,
                    COALESCE(hierarchies, pg_catalog.array_fill(NULL::pg_catalog.text,
                                                                ARRAY[pg_catalog.cardinality(quasi_identifiers)]))
                        OPERATOR(pg_catalog.||) CASE WHEN sensitive IS NOT NULL THEN ARRAY[NULL::pg_catalog.text] END,
                    COALESCE(levels, pg_catalog.array_fill(0, ARRAY[pg_catalog.cardinality(quasi_identifiers)]))
                        OPERATOR(pg_catalog.||) CASE WHEN sensitive IS NOT NULL THEN ARRAY[0] END)
                OPERATOR(pg_catalog.->) 'utility'));
    END IF;
    IF options OPERATOR(pg_catalog.?) 'dictionary' THEN
        result := result OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('dt_risk',
            privrisk.dictionary_risk(source, d.dictionary, d.mapping, d.leaf_weights, levels, d.family));
    END IF;
    RETURN result;
END $$;
