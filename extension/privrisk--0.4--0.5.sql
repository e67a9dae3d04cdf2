-- privrisk 0.5: the generalization search (SPEC §4.6).
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.5'" to load this file. \quit

-- The search itself: constraints unpacked, every_node for lattice().
CREATE FUNCTION privrisk.search_lattice(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text,
                                        k int8, l float8, l_kind text, l_c float8, t float8, t_kind text,
                                        t_hierarchy text, delta float8, c float8, ck_k int, max_risk float8,
                                        average_risk float8, max_suppression float8, utility text, every_node boolean)
    RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_search_lattice';

-- Checks the constraints object (names, types) and runs the search.
CREATE FUNCTION privrisk.run_search(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text,
                                    constraints jsonb, utility text, every_node boolean) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad text;
BEGIN
    IF constraints IS NULL OR jsonb_typeof(constraints) <> 'object' THEN
        RAISE EXCEPTION 'constraints must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF constraints ? 'dt_risk' THEN
        RAISE EXCEPTION 'constraint dt_risk is not supported yet: it needs an attacker''s dictionary'
            USING ERRCODE = 'feature_not_supported';
    END IF;
    SELECT string_agg(quote_literal(key), ', ') INTO bad FROM jsonb_object_keys(constraints) AS key
    WHERE key NOT IN ('k', 'l', 'l_kind', 'l_c', 't', 't_kind', 't_hierarchy', 'delta', 'c', 'ck_k', 'max_risk',
                      'average_risk', 'max_suppression');
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'unknown constraint(s) %', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known constraints: k, l (l_kind, l_c), t (t_kind, t_hierarchy), delta, c with ck_k, '
                         'max_risk, average_risk, max_suppression';
    END IF;
    SELECT string_agg(quote_literal(key), ', ') INTO bad FROM jsonb_each(constraints) AS e(key, value)
    WHERE CASE WHEN key IN ('l_kind', 't_kind', 't_hierarchy') THEN jsonb_typeof(value) <> 'string'
               WHEN key IN ('k', 'ck_k') THEN jsonb_typeof(value) <> 'number' OR value::text::numeric <> trunc(value::text::numeric)
                                               OR abs(value::text::numeric) > 9223372036854775807
               ELSE jsonb_typeof(value) <> 'number' END;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'constraint(s) % have the wrong type', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'k and ck_k are integers; l_kind, t_kind and t_hierarchy are strings; the others numbers';
    END IF;
    IF (constraints ? 'c') <> (constraints ? 'ck_k') THEN
        RAISE EXCEPTION 'constraint c needs ck_k (the number of implications the attacker knows), and ck_k needs c'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (constraints ? 'l_kind' OR constraints ? 'l_c') AND NOT constraints ? 'l'
       OR (constraints ? 't_kind' OR constraints ? 't_hierarchy') AND NOT constraints ? 't' THEN
        RAISE EXCEPTION 'l_kind and l_c qualify constraint l, t_kind and t_hierarchy constraint t: give l or t too'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN privrisk.search_lattice(source, quasi_identifiers, hierarchies, sensitive,
        (constraints->>'k')::int8, (constraints->>'l')::float8, constraints->>'l_kind', (constraints->>'l_c')::float8,
        (constraints->>'t')::float8, constraints->>'t_kind', constraints->>'t_hierarchy',
        (constraints->>'delta')::float8, (constraints->>'c')::float8, (constraints->>'ck_k')::int,
        (constraints->>'max_risk')::float8, (constraints->>'average_risk')::float8,
        (constraints->>'max_suppression')::float8, utility, every_node);
END $$;

-- The best full-domain generalization meeting every constraint (SPEC §4.6).
CREATE FUNCTION privrisk.search(source regclass, quasi_identifiers text[], hierarchies text[],
                                sensitive text DEFAULT NULL, constraints jsonb DEFAULT '{}',
                                utility text DEFAULT 'loss') RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
    RETURN privrisk.run_search(source, quasi_identifiers, hierarchies, sensitive, constraints, utility, false);

-- Every node with its measures and utility, for risk-utility frontier plots.
CREATE FUNCTION privrisk.lattice(source regclass, quasi_identifiers text[], hierarchies text[],
                                 sensitive text DEFAULT NULL, constraints jsonb DEFAULT '{}',
                                 utility text DEFAULT 'loss')
    RETURNS TABLE (node int[], qualifies boolean, utility float8, height int, rows_suppressed int8, measures jsonb)
    LANGUAGE sql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT ARRAY(SELECT jsonb_array_elements_text(n->'node')::int), (n->>'qualifies')::boolean,
           (n->>'utility')::float8, (n->>'height')::int, (n->>'rows_suppressed')::int8, n->'measures'
    FROM jsonb_array_elements(privrisk.run_search(source, quasi_identifiers, hierarchies, sensitive, constraints,
                                                  utility, true)->'nodes') AS n;
END;

-- Publishes a search result through the release scan: a policy on the source
-- with one gen rule per generalized quasi-identifier (condition false: every
-- row generalized). Suppression is a property of classes, which a row's rule
-- cannot express, so a result that suppresses rows is refused.
CREATE FUNCTION privrisk.apply_generalization(policy text, result jsonb) RETURNS int
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
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
