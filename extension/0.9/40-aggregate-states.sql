-- Aggregate support functions are for aggregates only. Called directly, or put
-- into an aggregate of one's own (CREATE AGGREGATE checks EXECUTE on each of
-- them for its creator), they would receive hand-made states: a bigint[] or
-- bytea made up by the caller, or one aggregate's internal state read as
-- another's. The privrisk aggregates keep working for every role: when an
-- aggregate runs, PostgreSQL checks EXECUTE on its support functions for the
-- aggregate's owner, not for the caller. The functions also check what they
-- receive; this takes away the direct route for everyone but their owner.
DO $$
DECLARE
    f pg_catalog.regprocedure;
BEGIN
    FOR f IN
        SELECT DISTINCT p.oid::pg_catalog.regprocedure
        FROM pg_catalog.pg_aggregate a
        JOIN pg_catalog.pg_proc ag ON ag.oid = a.aggfnoid
        CROSS JOIN LATERAL (VALUES (a.aggtransfn), (a.aggfinalfn), (a.aggcombinefn), (a.aggserialfn), (a.aggdeserialfn),
                                   (a.aggmtransfn), (a.aggminvtransfn), (a.aggmfinalfn)) AS support(fn)
        JOIN pg_catalog.pg_proc p ON p.oid = support.fn
        WHERE ag.pronamespace = 'privrisk'::pg_catalog.regnamespace
          AND p.pronamespace = 'privrisk'::pg_catalog.regnamespace
    LOOP
        EXECUTE pg_catalog.format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;
