
------------------------------------------------------------------------------
-- Hierarchies get owners and versions (docs/hierarchies-security.md). Only the
-- owner (or a member of the owning role, or a superuser) may replace, drop or
-- give away a hierarchy; the functions check that and then write the catalog as
-- its owner, so no one else needs, or keeps, write access to the tables.
------------------------------------------------------------------------------

-- One sequence for all hierarchies: a version number is never reused, not even
-- when a name is dropped and created again. Dumped with the catalog rows.
CREATE SEQUENCE privrisk.hierarchy_version_seq AS bigint MINVALUE 1 START 1 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('privrisk.hierarchy_version_seq', '');

-- Existing hierarchies are owned by whoever owns the catalog (the installer).
ALTER TABLE privrisk.hierarchy
    ADD COLUMN owner pg_catalog.regrole,
    ADD COLUMN version bigint;
UPDATE privrisk.hierarchy SET
    owner = (SELECT c.relowner FROM pg_catalog.pg_class c
             WHERE c.oid OPERATOR(pg_catalog.=) 'privrisk.hierarchy'::pg_catalog.regclass)::pg_catalog.regrole,
    version = pg_catalog.nextval('privrisk.hierarchy_version_seq'::pg_catalog.regclass);
ALTER TABLE privrisk.hierarchy
    ALTER COLUMN owner SET NOT NULL,
    ALTER COLUMN owner SET DEFAULT pg_catalog.quote_ident(CURRENT_USER)::pg_catalog.regrole,
    ALTER COLUMN version SET NOT NULL,
    ALTER COLUMN version SET DEFAULT pg_catalog.nextval('privrisk.hierarchy_version_seq'::pg_catalog.regclass),
    ADD CHECK (version OPERATOR(pg_catalog.>=) 1);
COMMENT ON COLUMN privrisk.hierarchy.owner IS 'Role that may replace, drop or give away the hierarchy';
COMMENT ON COLUMN privrisk.hierarchy.version IS 'Changes on every replace; never reused, even for a re-created name';

-- Writes go through the functions only: take back every write grant, including
-- the ones the README used to advise for stewards, and column grants (a
-- table-level REVOKE takes those too, but only from grantees it is run for).
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT DISTINCT c.oid::pg_catalog.regclass AS rel, a.grantee
        FROM pg_catalog.pg_class c,
             LATERAL (SELECT c.relacl AS acl
                      UNION ALL
                      SELECT att.attacl FROM pg_catalog.pg_attribute att
                      WHERE att.attrelid OPERATOR(pg_catalog.=) c.oid AND att.attacl IS NOT NULL) AS acls,
             pg_catalog.aclexplode(acls.acl) AS a
        WHERE c.oid OPERATOR(pg_catalog.=) ANY (ARRAY['privrisk.hierarchy'::pg_catalog.regclass,
                                                      'privrisk.hierarchy_leaf'::pg_catalog.regclass,
                                                      'privrisk.hierarchy_version_seq'::pg_catalog.regclass]::pg_catalog.oid[])
          AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
          AND a.privilege_type OPERATOR(pg_catalog.<>) 'SELECT'
    LOOP
        EXECUTE pg_catalog.format(
            CASE WHEN r.rel::pg_catalog.oid OPERATOR(pg_catalog.=) 'privrisk.hierarchy_version_seq'::pg_catalog.regclass::pg_catalog.oid
                 THEN 'REVOKE ALL ON SEQUENCE %s FROM %s'
                 ELSE 'REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON %s FROM %s' END,
            r.rel, CASE WHEN r.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                        ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(r.grantee)) END);
    END LOOP;
END
$$;
REVOKE ALL ON privrisk.hierarchy, privrisk.hierarchy_leaf FROM PUBLIC;
REVOKE ALL ON SEQUENCE privrisk.hierarchy_version_seq FROM PUBLIC;
GRANT SELECT ON privrisk.hierarchy, privrisk.hierarchy_leaf TO PUBLIC;

-- Builders take `replace`: on an existing name, false keeps the old refusal,
-- true replaces the hierarchy in place (its owner only) under a new version.
DROP FUNCTION privrisk.load_hierarchy(text, text, text);
DROP FUNCTION privrisk.interval_hierarchy(text, numeric, numeric, int[]);
DROP FUNCTION privrisk.prefix_hierarchy(text, int);
DROP FUNCTION privrisk.date_hierarchy(text);
CREATE FUNCTION privrisk.load_hierarchy(name text, csv text, delimiter text DEFAULT ';', replace boolean DEFAULT false)
    RETURNS int LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_load_hierarchy';
CREATE FUNCTION privrisk.interval_hierarchy(name text, lo numeric, hi numeric, widths int[], replace boolean DEFAULT false)
    RETURNS int LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_interval_hierarchy';
CREATE FUNCTION privrisk.prefix_hierarchy(name text, max_len int, replace boolean DEFAULT false)
    RETURNS int LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_prefix_hierarchy';
CREATE FUNCTION privrisk.date_hierarchy(name text, replace boolean DEFAULT false)
    RETURNS int LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_date_hierarchy';
CREATE FUNCTION privrisk.alter_hierarchy_owner(name text, new_owner pg_catalog.regrole) RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_alter_hierarchy_owner';

-- Columns may only be appended to a view: owner and version come last.
CREATE OR REPLACE VIEW privrisk.hierarchies AS
    SELECT h.name, h.kind, h.height, h.created_by, h.created_at,
           CASE h.kind WHEN 'tree' THEN (SELECT pg_catalog.count(*) FROM privrisk.hierarchy_leaf l
                                         WHERE l.hierarchy OPERATOR(pg_catalog.=) h.name) END AS leaves,
           h.owner, h.version
    FROM privrisk.hierarchy h;
