-- Aggregate support functions accept hand-made states and are for the
-- aggregates only (PostgreSQL checks them against the aggregate's owner, so the
-- aggregates still work for everyone); the event trigger functions and the
-- guard self-test are not for callers either. Revoked by rule, so that a new
-- support function cannot be forgotten; replayed by every upgrade.
DO $$
DECLARE
    f pg_catalog.regprocedure;
BEGIN
    FOR f IN
        SELECT DISTINCT s.fn::pg_catalog.regprocedure
          FROM pg_catalog.pg_aggregate a
          JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) a.aggfnoid,
               LATERAL pg_catalog.unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn,
                                               a.aggdeserialfn]::pg_catalog.oid[]) AS s(fn)
          JOIN pg_catalog.pg_proc sp ON sp.oid OPERATOR(pg_catalog.=) s.fn
         WHERE p.pronamespace OPERATOR(pg_catalog.=) 'privrisk'::pg_catalog.regnamespace
           AND sp.pronamespace OPERATOR(pg_catalog.=) 'privrisk'::pg_catalog.regnamespace
        UNION
        SELECT p.oid::pg_catalog.regprocedure FROM pg_catalog.pg_proc p
         WHERE p.pronamespace OPERATOR(pg_catalog.=) 'privrisk'::pg_catalog.regnamespace
           AND p.proname OPERATOR(pg_catalog.=) ANY (ARRAY['guard_selftest', 'forget_dropped_budgets',
                                                           'forget_dropped_relations',
                                                           'load_label_provider']::pg_catalog.name[])
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END $$;

-- A risk profile is what verdicts cite: naming one is a right a steward is
-- granted (GRANT EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text,
-- boolean), privrisk.drop_profile(text) TO steward), not every role's.
REVOKE ALL ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION privrisk.drop_profile(text) FROM PUBLIC;
