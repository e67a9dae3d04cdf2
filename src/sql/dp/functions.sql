CREATE OR REPLACE FUNCTION privrisk.dp_parameters(epsilon double precision, delta double precision, OUT beta double precision, OUT k bigint, OUT delta_k double precision) RETURNS record LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dp_parameters';

CREATE OR REPLACE FUNCTION privrisk.dp_release(source regclass, quasi_identifiers text[] DEFAULT NULL::text[], hierarchies text[] DEFAULT NULL::text[], epsilon double precision DEFAULT NULL::double precision, delta double precision DEFAULT NULL::double precision, mechanism text DEFAULT 'safepub'::text, levels integer[] DEFAULT NULL::integer[], seed bigint DEFAULT NULL::bigint, output text DEFAULT 'rows'::text, drop_probability double precision DEFAULT NULL::double precision, theta0 double precision DEFAULT NULL::double precision, lambda double precision DEFAULT NULL::double precision, kappa integer DEFAULT NULL::integer, score text DEFAULT NULL::text, sensitivity text DEFAULT NULL::text, leaf_weights double precision[] DEFAULT NULL::double precision[]) RETURNS SETOF record
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_dp_release';

CREATE OR REPLACE FUNCTION privrisk.dp_sampled_rows(seed bigint, probability double precision, class text[], "rows" bigint) RETURNS bigint LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dp_sampled_rows';

CREATE OR REPLACE FUNCTION privrisk.forget_dropped_budgets() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    DELETE FROM privrisk.budget_ledger
     WHERE relation::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (
           SELECT objid FROM pg_catalog.pg_event_trigger_dropped_objects()
            WHERE classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
              AND objsubid OPERATOR(pg_catalog.=) 0);
    DELETE FROM privrisk.budget
     WHERE relation::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (
           SELECT objid FROM pg_catalog.pg_event_trigger_dropped_objects()
            WHERE classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
              AND objsubid OPERATOR(pg_catalog.=) 0);
END $$;

CREATE OR REPLACE FUNCTION privrisk.set_budget(dataset regclass, epsilon double precision, delta double precision) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_set_budget';
