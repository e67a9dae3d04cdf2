CREATE OR REPLACE FUNCTION privrisk.checked_options(kind text, options jsonb, quasi_identifiers text[], hierarchies text[], levels integer[], every_node boolean, OUT dictionary regclass, OUT mapping jsonb, OUT leaf_weights double precision[], OUT family text) RETURNS record
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    d record;
BEGIN
    -- Every key's type and range, unknown keys and keys that need others (C++).
    PERFORM privrisk.check_options(kind, options);
    IF NOT options OPERATOR(pg_catalog.?) 'dictionary' THEN
        RETURN;
    END IF;
    IF kind OPERATOR(pg_catalog.=) 'audit' AND options OPERATOR(pg_catalog.?) 'mapping' AND levels IS NOT NULL THEN
        RAISE EXCEPTION 'levels apply to the default mapping (the quasi-identifiers); with a mapping, audit the '
                        'generalized relation itself' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF kind OPERATOR(pg_catalog.=) 'search' AND every_node THEN
        RAISE EXCEPTION 'lattice() does not report dt_risk: search() does, for the node it finds'
            USING ERRCODE = 'feature_not_supported';
    END IF;
    d := privrisk.dictionary_options(options, quasi_identifiers, hierarchies);  -- checked before the scan
    dictionary := d.dictionary;
    mapping := d.mapping;
    leaf_weights := d.leaf_weights;
    family := d.family;
END $$;
