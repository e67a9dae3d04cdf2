
------------------------------------------------------------------------------
-- Every SQL and PL/pgSQL function of the extension runs under
-- search_path = pg_catalog, pg_temp (pg_temp last), so nothing in the caller's
-- schemas or in pg_temp can stand in for a built-in type, function or operator.
-- Runs last: it covers every function the fragments before it defined.
-- test/regress checks pg_proc.proconfig for all of them.
------------------------------------------------------------------------------
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN
        SELECT p.oid::pg_catalog.regprocedure
          FROM pg_catalog.pg_proc p
          JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
                                     AND d.objid OPERATOR(pg_catalog.=) p.oid
                                     AND d.deptype OPERATOR(pg_catalog.=) 'e'
          JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid
                                        AND e.extname OPERATOR(pg_catalog.=) 'privrisk'
          JOIN pg_catalog.pg_language l ON l.oid OPERATOR(pg_catalog.=) p.prolang
         WHERE l.lanname OPERATOR(pg_catalog.<>) 'c' AND l.lanname OPERATOR(pg_catalog.<>) 'internal'
           AND NOT COALESCE('search_path=pg_catalog, pg_temp' OPERATOR(pg_catalog.=) ANY (p.proconfig), false)
    LOOP
        EXECUTE pg_catalog.format('ALTER ROUTINE %s SET search_path = pg_catalog, pg_temp', f);
    END LOOP;
END $$;
