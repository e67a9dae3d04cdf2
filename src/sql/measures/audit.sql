CREATE OR REPLACE FUNCTION privrisk.audit(source regclass, quasi_identifiers text[] DEFAULT NULL::text[], sensitive text DEFAULT NULL::text, hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], options jsonb DEFAULT '{}'::jsonb, profile text DEFAULT NULL::text) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    result jsonb;
    d record;
    given jsonb;
BEGIN
    -- What the call omits comes from the column labels (docs/labels.md).
    SELECT a.quasi_identifiers, a.hierarchies, a.sensitive INTO quasi_identifiers, hierarchies, sensitive
      FROM privrisk.labelled_arguments(source, quasi_identifiers, hierarchies, sensitive, 'audit') AS a;
    IF profile IS NOT NULL THEN
        -- The profile's qualifiers (risk_threshold, l_c, ck_k, t_hierarchy) join the options; a
        -- different value given for one of them would measure something else than the profile bounds.
        given := options;
        options := COALESCE(options, '{}') OPERATOR(pg_catalog.||) privrisk.profile_options(profile, 'audit');
        IF EXISTS (SELECT 1 FROM pg_catalog.jsonb_each(given) AS g(key, value)
                    WHERE options OPERATOR(pg_catalog.->) g.key OPERATOR(pg_catalog.<>) g.value) THEN
            RAISE EXCEPTION 'audit: options % differ from what risk profile "%" needs (%)', given, profile,
                privrisk.profile_options(profile, 'audit') USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    d := privrisk.checked_options('audit', options, quasi_identifiers, hierarchies, levels, false);
    -- check_options has checked every value these casts read.
    result := privrisk.audit_classes(source, quasi_identifiers, sensitive, hierarchies, levels,
                                     (options OPERATOR(pg_catalog.->>) 'risk_threshold')::pg_catalog.float8,
                                     (options OPERATOR(pg_catalog.->>) 'l_c')::pg_catalog.float8,
                                     COALESCE(options OPERATOR(pg_catalog.->>) 't_hierarchy', options OPERATOR(pg_catalog.->>) 'sensitive_hierarchy'),
                                     COALESCE(options OPERATOR(pg_catalog.->>) 'ck_k', options OPERATOR(pg_catalog.->>) 'kmax')::pg_catalog.int4);
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
    IF d.dictionary IS NOT NULL THEN
        result := result OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('dt_risk',
            privrisk.dictionary_risk(source, d.dictionary, d.mapping, d.leaf_weights, levels, d.family));
    END IF;
    IF profile IS NOT NULL THEN
        result := result OPERATOR(pg_catalog.||)
                  pg_catalog.jsonb_build_object('verdict', privrisk.profile_verdict(profile, result, source));
    END IF;
    -- A release view whose policy suppresses records: the rows it withholds now (docs/release.md).
    result := privrisk.with_suppression(result, source);
    RETURN result;
END $$;
