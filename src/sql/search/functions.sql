CREATE OR REPLACE FUNCTION privrisk.apply_generalization(policy text, result jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    node jsonb := result->'result';
    rules int := 0;
    i int;
BEGIN
    IF result IS NULL OR jsonb_typeof(node) IS DISTINCT FROM 'object' OR NOT (result ? 'source') THEN
        RAISE EXCEPTION 'apply_generalization needs a privrisk.search() result that found a node'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (node->>'rows_suppressed')::int8 > 0 THEN
        RAISE EXCEPTION 'the node suppresses % rows; a policy cannot suppress classes', node->>'rows_suppressed'
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'search again with max_suppression 0, or publish the suppressed release another way';
    END IF;
    PERFORM privrisk.create_policy(policy, (result->>'source')::regclass);
    FOR i IN 0 .. jsonb_array_length(result->'quasi_identifiers') - 1 LOOP
        IF (node->'node'->>i)::int > 0 THEN
            PERFORM privrisk.add_rule(policy, result->'quasi_identifiers'->>i, 'gen', 'false',
                                      result->'hierarchies'->>i, (node->'node'->>i)::int);
            rules := rules + 1;
        END IF;
    END LOOP;
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

CREATE OR REPLACE FUNCTION privrisk.search_lattice(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text, constraints jsonb, utility text, every_node boolean) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_search_nodes';
