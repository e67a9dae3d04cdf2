-- privrisk 0.4: disclosure policies (the paper's relation-level hide/gen
-- operators) executed by a custom scan, and release views (SPEC §4.2).
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.4'" to load this file. \quit

------------------------------------------------------------------------------
-- Catalog. Only the extension's functions write it, after checking that the
-- caller owns the source; they and the release scan read it as its owner, so
-- a role that may read a release need not (and cannot) read the rules. The
-- owner of a source may read its own policies. Dumped by pg_dump.
------------------------------------------------------------------------------
CREATE TABLE privrisk.policy (
    name       text PRIMARY KEY CHECK (name <> '' AND octet_length(name) <= 200),
    source     regclass NOT NULL,
    created_by name NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE privrisk.policy IS 'Disclosure policies: a source table and the rules that release it';

CREATE TABLE privrisk.policy_rule (
    policy     text NOT NULL REFERENCES privrisk.policy(name) ON DELETE CASCADE ON UPDATE CASCADE,
    rule       int  NOT NULL CHECK (rule >= 1),
    column_name name NOT NULL,
    operator   text NOT NULL CHECK (operator IN ('hide', 'gen')),
    condition  text NOT NULL,  -- SQL boolean expression over the source's columns; TRUE discloses
    hierarchy  text,           -- gen only
    level      int,            -- gen only
    PRIMARY KEY (policy, rule),
    CHECK ((operator = 'gen') = (hierarchy IS NOT NULL AND level IS NOT NULL))
);
COMMENT ON TABLE privrisk.policy_rule IS 'Disclosure rules: rows where the condition is not TRUE get ⊥ (hide) or the level-`level` ancestor (gen)';

CREATE TABLE privrisk.release_view (
    view       regclass PRIMARY KEY,
    policy     text NOT NULL REFERENCES privrisk.policy(name) ON DELETE CASCADE ON UPDATE CASCADE
);
COMMENT ON TABLE privrisk.release_view IS 'Views made by create_release_view; SELECT on one lets a role read its policy''s release';

SELECT pg_catalog.pg_extension_config_dump('privrisk.policy', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.policy_rule', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.release_view', '');

ALTER TABLE privrisk.policy ENABLE ROW LEVEL SECURITY;
ALTER TABLE privrisk.policy_rule ENABLE ROW LEVEL SECURITY;
ALTER TABLE privrisk.release_view ENABLE ROW LEVEL SECURITY;
CREATE FUNCTION privrisk.owns_source(source regclass) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    RETURN pg_has_role((SELECT relowner FROM pg_class WHERE oid = source), 'USAGE');
CREATE POLICY source_owner ON privrisk.policy FOR SELECT USING (privrisk.owns_source(source));
CREATE POLICY source_owner ON privrisk.policy_rule FOR SELECT
    USING (privrisk.owns_source((SELECT p.source FROM privrisk.policy p WHERE p.name = policy)));
CREATE POLICY source_owner ON privrisk.release_view FOR SELECT
    USING (privrisk.owns_source((SELECT p.source FROM privrisk.policy p WHERE p.name = policy)));
GRANT SELECT ON privrisk.policy, privrisk.policy_rule, privrisk.release_view TO PUBLIC;

------------------------------------------------------------------------------
-- Policies (SPEC §4.2). Each function checks ownership of the source itself.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.create_policy(name text, source regclass) RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_create_policy';
CREATE FUNCTION privrisk.add_rule(policy text, "column" text, op text, condition text DEFAULT 'false',
                                  hierarchy text DEFAULT NULL, level int DEFAULT NULL) RETURNS int
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_add_rule';
CREATE FUNCTION privrisk.drop_policy(name text) RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_drop_policy';

-- release(policy) in FROM is planned as Custom Scan (PrivriskRelease); the
-- support function answers the planner's row estimate, and loading it installs
-- the planner hook before the scan's paths are made. Called any other way, the
-- function itself refuses. Its result columns come from a column definition
-- list naming released columns (create_release_view writes one).
CREATE FUNCTION privrisk.release_support(internal) RETURNS internal
    LANGUAGE c STABLE PARALLEL SAFE STRICT AS 'MODULE_PATHNAME', 'privrisk_release_support';
CREATE FUNCTION privrisk.release(policy text) RETURNS SETOF record
    LANGUAGE c STABLE PARALLEL SAFE STRICT SUPPORT privrisk.release_support
    AS 'MODULE_PATHNAME', 'privrisk_release';
CREATE FUNCTION privrisk.create_release_view(policy text, view_name text) RETURNS regclass
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_create_release_view';

-- A dropped source takes its policy along, and a dropped view its registration:
-- an OID the catalog still held could otherwise name a new, unrelated relation
-- (a stranger's table passing as a release view, or as a policy's source).
CREATE FUNCTION privrisk.forget_dropped_relations() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM privrisk.release_view WHERE view::oid IN
        (SELECT objid FROM pg_event_trigger_dropped_objects() WHERE classid = 'pg_class'::regclass AND objsubid = 0);
    DELETE FROM privrisk.policy WHERE source::oid IN
        (SELECT objid FROM pg_event_trigger_dropped_objects() WHERE classid = 'pg_class'::regclass AND objsubid = 0);
END $$;
REVOKE ALL ON FUNCTION privrisk.forget_dropped_relations() FROM PUBLIC;
CREATE EVENT TRIGGER privrisk_forget_dropped_relations ON sql_drop
    EXECUTE FUNCTION privrisk.forget_dropped_relations();

-- The policies a role may read (its own sources'), with their rules and views.
-- security_invoker: the catalog's row-level security applies to the reader.
CREATE VIEW privrisk.policies WITH (security_invoker = true) AS
SELECT p.name, p.source, p.created_by, p.created_at,
       (SELECT count(*) FROM privrisk.policy_rule r WHERE r.policy = p.name) AS rules,
       (SELECT array_agg(v.view ORDER BY v.view::text) FROM privrisk.release_view v WHERE v.policy = p.name) AS views
FROM privrisk.policy p;
GRANT SELECT ON privrisk.policies TO PUBLIC;
