CREATE OR REPLACE FUNCTION privrisk.apply_generalization(policy text, result jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    node jsonb := result->'result';
    qi jsonb := result->'quasi_identifiers';
    hierarchies jsonb := result->'hierarchies';
    source regclass;
    existing regclass;
    suppression jsonb;
    level int;
    rules int := 0;
    i int;
BEGIN
    -- The whole result is checked before anything is changed.
    IF result IS NULL OR jsonb_typeof(result) <> 'object' OR jsonb_typeof(result->'source') IS DISTINCT FROM 'string'
       OR jsonb_typeof(qi) IS DISTINCT FROM 'array' OR jsonb_typeof(hierarchies) IS DISTINCT FROM 'array'
       OR jsonb_array_length(qi) = 0 OR jsonb_array_length(hierarchies) <> jsonb_array_length(qi) THEN
        RAISE EXCEPTION 'apply_generalization: result must be a privrisk.search() result (source, quasi_identifiers, hierarchies, result)'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF jsonb_typeof(node) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION 'apply_generalization: the search found no node (found: false): there is nothing to apply'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'relax the constraints, allow suppression (max_suppression), or generalize further';
    END IF;
    IF jsonb_typeof(node->'node') IS DISTINCT FROM 'array' OR jsonb_array_length(node->'node') <> jsonb_array_length(qi)
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(node->'node') AS l(v)
                   WHERE jsonb_typeof(l.v) <> 'number' OR l.v::text !~ '^[0-9]{1,4}$') THEN
        RAISE EXCEPTION 'apply_generalization: the result''s node must hold one level (an integer ≥ 0) per quasi-identifier'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    source := (result->>'source')::regclass;
    IF (node->>'rows_suppressed')::int8 > 0 OR coalesce((result->'constraints'->>'max_suppression')::float8, 0) > 0 THEN
        IF jsonb_typeof(result->'constraints') IS DISTINCT FROM 'object' THEN
            RAISE EXCEPTION 'apply_generalization: the node suppresses % rows but the result carries no constraints to suppress by', node->>'rows_suppressed'
                USING ERRCODE = 'invalid_parameter_value', HINT = 'pass the result of privrisk.search() as it is';
        END IF;
        -- The per-class constraints the search suppressed by, and its budget.
        SELECT jsonb_object_agg(c.key, c.value) INTO suppression
          FROM jsonb_each(result->'constraints') AS c(key, value)
         WHERE c.key IN ('k', 'max_risk', 'l', 'l_kind', 'l_c', 't', 't_kind', 't_hierarchy', 'delta', 'max_suppression');
    END IF;
    existing := privrisk.policy_source(policy);
    IF existing IS NOT NULL AND existing <> source THEN
        RAISE EXCEPTION 'apply_generalization: policy "%" is on %, the search result is for %', policy, existing, source
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF existing IS NULL THEN
        PERFORM privrisk.create_policy(policy, source);
    END IF;
    -- One rule per quasi-identifier: a level above 0 generalizes it, level 0 discloses it as it is.
    FOR i IN 0 .. jsonb_array_length(qi) - 1 LOOP
        level := (node->'node'->>i)::int;
        IF level > 0 THEN
            PERFORM privrisk.add_rule(policy, qi->>i, 'gen', 'false', hierarchies->>i, level);
        ELSE
            PERFORM privrisk.add_rule(policy, qi->>i, 'hide', 'true');
        END IF;
        rules := rules + 1;
    END LOOP;
    IF suppression IS NOT NULL THEN
        PERFORM privrisk.set_suppression(policy, ARRAY(SELECT jsonb_array_elements_text(qi)), suppression,
                                         result->>'sensitive');
    END IF;
    RETURN rules;
END $$;

CREATE OR REPLACE FUNCTION privrisk.lattice(source regclass, quasi_identifiers text[] DEFAULT NULL::text[], hierarchies text[] DEFAULT NULL::text[], sensitive text DEFAULT NULL::text, constraints jsonb DEFAULT '{}'::jsonb, utility text DEFAULT 'loss'::text, profile text DEFAULT NULL::text) RETURNS TABLE(node integer[], qualifies boolean, utility double precision, height integer, rows_suppressed bigint, measures jsonb)
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    BEGIN ATOMIC
 SELECT ARRAY( SELECT (jsonb_array_elements_text((n.value -> 'node'::text)))::integer AS jsonb_array_elements_text) AS "array",
     ((n.value ->> 'qualifies'::text))::boolean AS bool,
     ((n.value ->> 'utility'::text))::double precision AS float8,
     ((n.value ->> 'height'::text))::integer AS int4,
     ((n.value ->> 'rows_suppressed'::text))::bigint AS int8,
     (n.value -> 'measures'::text)
    FROM jsonb_array_elements((privrisk.run_search(lattice.source, lattice.quasi_identifiers, lattice.hierarchies, lattice.sensitive, lattice.constraints, lattice.utility, true, lattice.profile) -> 'nodes'::text)) n(value);
END;

CREATE OR REPLACE FUNCTION privrisk.search(source regclass, quasi_identifiers text[] DEFAULT NULL::text[], hierarchies text[] DEFAULT NULL::text[], sensitive text DEFAULT NULL::text, constraints jsonb DEFAULT '{}'::jsonb, utility text DEFAULT 'loss'::text, profile text DEFAULT NULL::text) RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    RETURN privrisk.run_search(source, quasi_identifiers, hierarchies, sensitive, constraints, utility, false, profile);

CREATE OR REPLACE FUNCTION privrisk.search_lattice(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text, constraints jsonb, utility text, every_node boolean, profile text) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_search_nodes';
