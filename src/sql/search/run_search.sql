CREATE OR REPLACE FUNCTION privrisk.run_search(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text, constraints jsonb, utility text, every_node boolean, profile text) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    d record;
    result jsonb;
    wanted jsonb;
    caller text := CASE WHEN every_node THEN 'lattice' ELSE 'search' END;
BEGIN
    -- What the call omits comes from the column labels (docs/labels.md).
    SELECT a.quasi_identifiers, a.hierarchies, a.sensitive INTO quasi_identifiers, hierarchies, sensitive
      FROM privrisk.labelled_arguments(source, quasi_identifiers, hierarchies, sensitive, caller) AS a;
    IF hierarchies IS NULL THEN
        RAISE EXCEPTION '%: no hierarchies: pass hierarchies (NULL for a column released as it is), or name each quasi-identifier''s in its label (''quasi_identifier(<hierarchy>)'')', caller
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF profile IS NOT NULL THEN
        -- The profile's thresholds are constraints; one given with another value is a contradiction.
        wanted := privrisk.profile_options(profile, 'search');
        IF EXISTS (SELECT 1 FROM pg_catalog.jsonb_each(constraints) AS g(key, value)
                    WHERE wanted OPERATOR(pg_catalog.?) g.key
                      AND wanted OPERATOR(pg_catalog.->) g.key OPERATOR(pg_catalog.<>) g.value) THEN
            RAISE EXCEPTION '%: constraints % contradict risk profile "%" (%)', caller, constraints, profile, wanted
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        constraints := COALESCE(constraints, '{}') OPERATOR(pg_catalog.||) wanted;
    END IF;
    d := privrisk.checked_options('search', constraints, quasi_identifiers, hierarchies, NULL, every_node);
    result := privrisk.search_lattice(source, quasi_identifiers, hierarchies, sensitive, constraints, utility,
                                      every_node, profile);  -- with profile's verdict on the node found
    IF d.dictionary IS NOT NULL AND NOT every_node
       AND (result OPERATOR(pg_catalog.->>) 'found')::pg_catalog.bool THEN
        result := pg_catalog.jsonb_set(result, '{result,dt_risk}',
            privrisk.dictionary_risk(source, d.dictionary, d.mapping, d.leaf_weights,
                ARRAY(SELECT pg_catalog.jsonb_array_elements_text(result OPERATOR(pg_catalog.->) 'result'
                                                                  OPERATOR(pg_catalog.->) 'node')::pg_catalog.int4),
                d.family));
    END IF;
    IF NOT every_node THEN
        -- What apply_generalization needs to publish the node with its suppression.
        result := result OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('sensitive', sensitive,
                                                                              'constraints', constraints);
    END IF;
    RETURN result;
END $$;
