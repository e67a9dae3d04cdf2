CREATE OR REPLACE FUNCTION privrisk.check_sensitivity_weights(hierarchy text, weights jsonb) RETURNS boolean
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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
