-- privrisk 0.1: hierarchies and the scalar hide/gen disclosure operators.
\echo Use "CREATE EXTENSION privrisk" to load this file. \quit

------------------------------------------------------------------------------
-- Catalog (SPEC §4.1). Both tables are extension configuration tables, so
-- pg_dump dumps their rows; the triggers tell every backend to drop its
-- cached copy of a hierarchy when a row changes, however it changed.
------------------------------------------------------------------------------
CREATE TABLE privrisk.hierarchy (
    name       text PRIMARY KEY CHECK (name <> '' AND octet_length(name) <= 200),
    kind       text NOT NULL CHECK (kind IN ('tree', 'interval', 'prefix', 'date')),
    height     int  NOT NULL CHECK (height >= 1),
    root       text,      -- tree: label of the root column (⊥) in the CSV
    lo         numeric,   -- interval: range and widths
    hi         numeric,
    widths     int8[],
    max_len    int,       -- prefix: longest value
    created_by name NOT NULL DEFAULT current_user,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'tree') = (root IS NOT NULL)),
    CHECK ((kind = 'interval') = (lo IS NOT NULL AND hi IS NOT NULL AND widths IS NOT NULL)),
    CHECK ((kind = 'prefix') = (max_len IS NOT NULL))
);
COMMENT ON TABLE privrisk.hierarchy IS 'Generalization hierarchies: level 0 is the value, level height is ⊥ (NULL)';

CREATE TABLE privrisk.hierarchy_leaf (
    hierarchy text NOT NULL REFERENCES privrisk.hierarchy(name) ON DELETE CASCADE ON UPDATE CASCADE,
    line      int  NOT NULL,   -- line of the CSV it was loaded from, for error messages
    path      text[] NOT NULL, -- the leaf, then its ancestors at levels 1..height-1
    PRIMARY KEY (hierarchy, line)
);
COMMENT ON TABLE privrisk.hierarchy_leaf IS 'Leaves of tree hierarchies with their ancestors, one row per CSV line';

SELECT pg_catalog.pg_extension_config_dump('privrisk.hierarchy', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.hierarchy_leaf', '');
GRANT SELECT ON privrisk.hierarchy, privrisk.hierarchy_leaf TO PUBLIC;

CREATE FUNCTION privrisk.hierarchy_changed() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_hierarchy_changed';
CREATE TRIGGER hierarchy_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON privrisk.hierarchy
    FOR EACH STATEMENT EXECUTE FUNCTION privrisk.hierarchy_changed();
CREATE TRIGGER hierarchy_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON privrisk.hierarchy_leaf
    FOR EACH STATEMENT EXECUTE FUNCTION privrisk.hierarchy_changed();

------------------------------------------------------------------------------
-- Hierarchies (SPEC §4.1). Loaders return the height; they write the catalog
-- in one statement each, so a failed load leaves nothing behind.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.load_hierarchy(name text, csv text, delimiter text DEFAULT ';') RETURNS int
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_load_hierarchy';
CREATE FUNCTION privrisk.interval_hierarchy(name text, lo numeric, hi numeric, widths int[]) RETURNS int
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_interval_hierarchy';
CREATE FUNCTION privrisk.prefix_hierarchy(name text, max_len int) RETURNS int
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_prefix_hierarchy';
CREATE FUNCTION privrisk.date_hierarchy(name text) RETURNS int
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_date_hierarchy';
CREATE FUNCTION privrisk.drop_hierarchy(name text) RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_drop_hierarchy';

-- Readers of the catalog are STABLE: a hierarchy may change between statements.
CREATE FUNCTION privrisk.generalize(hierarchy text, value text, level int) RETURNS text
    LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_generalize';
CREATE FUNCTION privrisk.hierarchy_height(hierarchy text) RETURNS int
    LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hierarchy_height';
-- NULL stands for ⊥, so these are not STRICT: generalizes(h, NULL, x) is true.
CREATE FUNCTION privrisk.generalizes(hierarchy text, general text, specific text) RETURNS boolean
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_generalizes';
CREATE FUNCTION privrisk.consistent(hierarchy text, a text, b text) RETURNS boolean
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_consistent';

CREATE VIEW privrisk.hierarchies AS
    SELECT name, kind, height, created_by, created_at,
           CASE kind WHEN 'tree' THEN (SELECT count(*) FROM privrisk.hierarchy_leaf l WHERE l.hierarchy = h.name) END AS leaves
    FROM privrisk.hierarchy h;
GRANT SELECT ON privrisk.hierarchies TO PUBLIC;

------------------------------------------------------------------------------
-- Scalar disclosure operators (SPEC §4.2). ⊥ is NULL; only a TRUE condition
-- discloses, so an unknown (NULL) condition protects.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.hide(value anyelement, disclose boolean) RETURNS anyelement
    LANGUAGE c IMMUTABLE PARALLEL SAFE LEAKPROOF AS 'MODULE_PATHNAME', 'privrisk_hide';
CREATE FUNCTION privrisk.gen(value anyelement, hierarchy text, level int) RETURNS text
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen';
CREATE FUNCTION privrisk.gen(value anyelement, hierarchy text, level int, disclose boolean) RETURNS text
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen';
-- Text overloads, so that untyped literals such as gen('39', 'age', 1) resolve.
CREATE FUNCTION privrisk.gen(value text, hierarchy text, level int) RETURNS text
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen';
CREATE FUNCTION privrisk.gen(value text, hierarchy text, level int, disclose boolean) RETURNS text
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen';

------------------------------------------------------------------------------
-- Self-test of the C++/PostgreSQL error boundary, used by the integration tests.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.guard_selftest(kind text, depth int) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_guard_selftest';
REVOKE ALL ON FUNCTION privrisk.guard_selftest(text, int) FROM PUBLIC;
