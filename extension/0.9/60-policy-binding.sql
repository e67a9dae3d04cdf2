
------------------------------------------------------------------------------
-- Rule conditions are bound once, by the policy's owner: add_rule stores the
-- analyzed expression (built-in operators, functions and types by OID, columns
-- by number, like a view's query) and a release runs that tree, never the text
-- parsed again under the reader's search_path.
------------------------------------------------------------------------------
ALTER TABLE privrisk.policy_rule
    ADD COLUMN condition_tree text,
    ADD COLUMN condition_columns name[],
    ADD COLUMN hierarchy_version bigint;
COMMENT ON COLUMN privrisk.policy_rule.condition_tree IS
    'The condition as bound by add_rule or refresh_policy (an analyzed expression tree); what a release runs';
COMMENT ON COLUMN privrisk.policy_rule.hierarchy_version IS
    'gen rules: the version of the hierarchy the policy''s owner approved; a release refuses another version';
COMMENT ON COLUMN privrisk.policy_rule.condition_columns IS
    'The source columns the bound condition reads, by ascending column number (detects moved columns)';

CREATE FUNCTION privrisk.refresh_policy(policy text) RETURNS int
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_refresh_policy';
COMMENT ON FUNCTION privrisk.refresh_policy(text) IS
    'Binds every rule condition of a policy again from its text and approves the current hierarchies; source owner only; returns the number of rules';

-- Catalog rows naming a temporary relation, or one that no longer exists,
-- could pass to an unrelated relation that later gets the same OID (no event
-- fires when a session's temporary tables go). Policies and release views are
-- permanent from now on; such rows from earlier versions are removed.
DELETE FROM privrisk.release_view v
 WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c
                    WHERE c.oid OPERATOR(pg_catalog.=) v.view::pg_catalog.oid
                      AND c.relpersistence OPERATOR(pg_catalog.<>) 't');
DELETE FROM privrisk.policy p
 WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c
                    WHERE c.oid OPERATOR(pg_catalog.=) p.source::pg_catalog.oid
                      AND c.relpersistence OPERATOR(pg_catalog.<>) 't');

-- Existing conditions are bound now, as the installing role; one that no
-- longer binds is left unbound and its release refused until the owner runs
-- refresh_policy.
DO $$
DECLARE
    p text;
BEGIN
    FOR p IN SELECT name FROM privrisk.policy ORDER BY name LOOP
        BEGIN
            PERFORM privrisk.refresh_policy(p);
        EXCEPTION WHEN OTHERS THEN
            RAISE WARNING 'privrisk: the conditions of policy % could not be bound: %', p, SQLERRM
                USING HINT = 'Its owner runs privrisk.refresh_policy(' || pg_catalog.quote_literal(p) || ') after fixing the cause.';
        END;
    END LOOP;
END $$;
