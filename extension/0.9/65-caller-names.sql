
------------------------------------------------------------------------------
-- A relation named inside options (audit's and search's "dictionary") is
-- resolved on the caller's search path, as a regclass argument would be,
-- although the functions themselves run under the pinned one.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.caller_regclass(name text) RETURNS regclass
    LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_caller_regclass';
COMMENT ON FUNCTION privrisk.caller_regclass(text) IS
    'A relation name resolved on the search path of the caller of the privrisk function running now (internal)';

CREATE OR REPLACE FUNCTION privrisk.dictionary_options(options jsonb, quasi_identifiers text[], hierarchies text[],
                                            OUT dictionary regclass, OUT mapping jsonb, OUT leaf_weights float8[],
                                            OUT family text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF jsonb_typeof(options->'dictionary') IS DISTINCT FROM 'string'
       OR options ? 'mapping' AND jsonb_typeof(options->'mapping') <> 'array'
       OR options ? 'leaf_weights' AND jsonb_typeof(options->'leaf_weights') <> 'array'
       OR options ? 'sensitivity_family' AND jsonb_typeof(options->'sensitivity_family') <> 'string' THEN
        RAISE EXCEPTION 'dictionary is a relation name, mapping a jsonb array, leaf_weights an array of numbers, '
                        'sensitivity_family a string' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    dictionary := privrisk.caller_regclass(options->>'dictionary');
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
