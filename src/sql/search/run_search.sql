CREATE OR REPLACE FUNCTION privrisk.run_search(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text, constraints jsonb, utility text, every_node boolean) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    d record := privrisk.checked_options('search', constraints, quasi_identifiers, hierarchies, NULL, every_node);
    result jsonb;
BEGIN
    result := privrisk.search_lattice(source, quasi_identifiers, hierarchies, sensitive, constraints, utility,
                                      every_node);
    IF d.dictionary IS NOT NULL AND NOT every_node
       AND (result OPERATOR(pg_catalog.->>) 'found')::pg_catalog.bool THEN
        result := pg_catalog.jsonb_set(result, '{result,dt_risk}',
            privrisk.dictionary_risk(source, d.dictionary, d.mapping, d.leaf_weights,
                ARRAY(SELECT pg_catalog.jsonb_array_elements_text(result OPERATOR(pg_catalog.->) 'result'
                                                                  OPERATOR(pg_catalog.->) 'node')::pg_catalog.int4),
                d.family));
    END IF;
    RETURN result;
END $$;
