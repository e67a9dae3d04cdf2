
------------------------------------------------------------------------------
-- Privacy budgets belong to one relation for its lifetime. A budget row, and
-- the ledger rows of its spends, name the relation by OID; left behind by a
-- dropped relation they would pass to a later relation that gets the same
-- OID. So they are removed with the relation (the ledger is the history of a
-- relation that no longer exists: its rows go too, rather than be shown as a
-- stranger's). set_budget refuses temporary tables, whose end fires no event,
-- and relations dp_release does not read.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.forget_dropped_budgets() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
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
REVOKE ALL ON FUNCTION privrisk.forget_dropped_budgets() FROM PUBLIC;
-- Every DROP of a relation looks its OID up in the ledger.
CREATE INDEX budget_ledger_relation ON privrisk.budget_ledger (relation);
CREATE EVENT TRIGGER privrisk_forget_dropped_budgets ON sql_drop
    EXECUTE FUNCTION privrisk.forget_dropped_budgets();

-- Rows an earlier version left behind: relations that are gone, temporary, or
-- of a kind dp_release does not read.
DELETE FROM privrisk.budget_ledger l
 WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c
                    WHERE c.oid OPERATOR(pg_catalog.=) l.relation::pg_catalog.oid
                      AND c.relpersistence OPERATOR(pg_catalog.<>) 't'
                      AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p,m}'::pg_catalog."char"[]));
DELETE FROM privrisk.budget b
 WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c
                    WHERE c.oid OPERATOR(pg_catalog.=) b.relation::pg_catalog.oid
                      AND c.relpersistence OPERATOR(pg_catalog.<>) 't'
                      AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p,m}'::pg_catalog."char"[]));

COMMENT ON FUNCTION privrisk.set_budget(regclass, float8, float8) IS
    'sets the privacy budget of a table, partitioned table or materialized view (its owner only; never below what was spent; not temporary tables)';
COMMENT ON FUNCTION privrisk.dp_release(regclass, text[], text[], float8, float8, text, int[], int8, text,
                                        float8, float8, float8, int, text, text, float8[]) IS
    'differentially private release under a budget, spent and committed in a transaction of its own before any row is read: safepub (sampling, generalization, suppression under k) or fouad (per-record exponential mechanism)';

-- A budget that is not a number is met by nothing (NaN compares above every
-- number in SQL, so "sum <= NaN" was true); an infinite one is no budget.
CREATE OR REPLACE FUNCTION privrisk.check_weight_budget(weights float8[], budget float8, mode text DEFAULT 'at_most')
    RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    total float8;
BEGIN
    IF weights IS NULL OR budget IS NULL OR mode IS NULL THEN
        RAISE EXCEPTION 'weights, budget and mode must not be NULL' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF mode NOT IN ('exactly', 'at_most') THEN
        RAISE EXCEPTION 'mode must be exactly or at_most, got "%"', mode USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(weights) w WHERE w IS NULL OR w < 0 OR w = 'NaN') THEN
        RAISE EXCEPTION 'weights must be non-negative numbers' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF budget = 'NaN' OR budget IN ('Infinity', '-Infinity') THEN
        RAISE EXCEPTION 'budget must be a finite number, got %', budget USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT coalesce(sum(w), 0) INTO total FROM unnest(weights) w;
    RETURN CASE mode WHEN 'exactly' THEN abs(total - budget) <= 1e-9 * greatest(1, abs(budget))
                     ELSE total <= budget + 1e-9 * greatest(1, abs(budget)) END;
END $$;
