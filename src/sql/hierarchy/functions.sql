CREATE OR REPLACE FUNCTION privrisk.alter_hierarchy_owner(name text, new_owner regrole) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_alter_hierarchy_owner';

CREATE OR REPLACE FUNCTION privrisk.consistent(hierarchy text, a text, b text) RETURNS boolean LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_consistent';

CREATE OR REPLACE FUNCTION privrisk.date_hierarchy(name text, replace boolean DEFAULT false) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_date_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.drop_hierarchy(name text) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_drop_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.generalize(hierarchy text, value text, level integer) RETURNS text LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_generalize';

CREATE OR REPLACE FUNCTION privrisk.generalizes(hierarchy text, general text, specific text) RETURNS boolean LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_generalizes';

CREATE OR REPLACE FUNCTION privrisk.hierarchy_changed() RETURNS trigger
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_hierarchy_changed';

CREATE OR REPLACE FUNCTION privrisk.hierarchy_height(hierarchy text) RETURNS integer LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hierarchy_height';

CREATE OR REPLACE FUNCTION privrisk.interval_hierarchy(name text, lo numeric, hi numeric, widths integer[], replace boolean DEFAULT false) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_interval_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.load_hierarchy(name text, csv text, delimiter text DEFAULT ';'::text, replace boolean DEFAULT false) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_load_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.prefix_hierarchy(name text, max_len integer, replace boolean DEFAULT false) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_prefix_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.pin_hierarchy(hierarchy text) RETURNS privrisk.pinned_hierarchy LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pin_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.hierarchy_coverage(source regclass, "column" text, hierarchy text) RETURNS TABLE(value text, rows bigint, reason text)
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_hierarchy_coverage';

CREATE OR REPLACE FUNCTION privrisk.require_tree_hierarchy(hierarchy text, purpose text, otherwise text) RETURNS void
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    kind_of text;
BEGIN
    SELECT h.kind INTO kind_of FROM privrisk.hierarchy h WHERE h.name OPERATOR(pg_catalog.=) require_tree_hierarchy.hierarchy;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'hierarchy "%" does not exist', hierarchy USING ERRCODE = 'undefined_object';
    END IF;
    IF kind_of OPERATOR(pg_catalog.<>) 'tree' THEN
        RAISE EXCEPTION '%; "%" is of kind % (%)', purpose, hierarchy, kind_of, otherwise
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
END $$;

CREATE OR REPLACE FUNCTION privrisk.hierarchy_tree(hierarchy text) RETURNS TABLE(node text, level integer, depth integer, parent text, leaves bigint, preview text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    PERFORM privrisk.require_tree_hierarchy(hierarchy, 'hierarchy_tree previews a tree hierarchy',
                                            'its levels are computed: try generalize');
    -- Each node once, ⊥ (the root) first, then in preorder: each node followed by its whole
    -- subtree, siblings in the order of their first line in the file. A node's sort key lists
    -- the first lines of its ancestors from the top down, then its own: a prefix sorts before
    -- its extensions, so a group precedes its members even when the file interleaves groups.
    RETURN QUERY
        WITH h AS (
            SELECT h.root, h.height FROM privrisk.hierarchy h WHERE h.name OPERATOR(pg_catalog.=) hierarchy_tree.hierarchy),
        nodes AS (
            SELECT l.path[i] AS node, (i OPERATOR(pg_catalog.-) 1) AS level,
                   COALESCE(l.path[i OPERATOR(pg_catalog.+) 1], h.root) AS parent, l.line, l.path
            FROM h, privrisk.hierarchy_leaf l, pg_catalog.generate_subscripts(l.path, 1) AS i
            WHERE l.hierarchy OPERATOR(pg_catalog.=) hierarchy_tree.hierarchy),
        firsts AS (
            SELECT n.node, n.level, n.parent, pg_catalog.min(n.line) AS first, pg_catalog.count(*) AS leaves
            FROM nodes n GROUP BY n.node, n.level, n.parent),
        keyed AS (
            -- Levels nest (load_hierarchy checks it), so any line under a node gives its ancestors:
            -- its first line's path does.
            SELECT f.node, f.level, f.parent, f.leaves,
                   ARRAY(SELECT a.first FROM pg_catalog.generate_series(h.height, f.level OPERATOR(pg_catalog.+) 1, -1) AS j
                         JOIN firsts a ON a.node OPERATOR(pg_catalog.=) l.path[j]
                                      AND a.level OPERATOR(pg_catalog.=) (j OPERATOR(pg_catalog.-) 1)
                         ORDER BY j DESC) AS key
            FROM h, firsts f JOIN privrisk.hierarchy_leaf l
                 ON l.hierarchy OPERATOR(pg_catalog.=) hierarchy_tree.hierarchy AND l.line OPERATOR(pg_catalog.=) f.first
            UNION ALL
            SELECT h.root, h.height, NULL, (SELECT pg_catalog.count(*) FROM privrisk.hierarchy_leaf l
                                             WHERE l.hierarchy OPERATOR(pg_catalog.=) hierarchy_tree.hierarchy),
                   '{}'::pg_catalog.int4[]
            FROM h)
        SELECT k.node, k.level, d.height OPERATOR(pg_catalog.-) k.level, k.parent, k.leaves,
               pg_catalog.repeat('  ', d.height OPERATOR(pg_catalog.-) k.level) OPERATOR(pg_catalog.||) k.node
        FROM keyed k, h AS d
        ORDER BY k.key;
END $$;

CREATE OR REPLACE FUNCTION privrisk.ordered_hierarchy(name text, "values" text[], group_sizes integer[], replace boolean DEFAULT false) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    n integer := pg_catalog.cardinality("values");
    span bigint := 1;   -- leaves per group at the level being built, at most n
    i integer;
    j integer;
    lines text[];
    label text;
BEGIN
    IF "values" IS NULL OR n OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'ordered_hierarchy: values must list at least one value, in order' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF pg_catalog.array_ndims("values") OPERATOR(pg_catalog.<>) 1 OR pg_catalog.array_position("values", NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'ordered_hierarchy: values must be a one-dimensional array without NULL' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (SELECT pg_catalog.count(DISTINCT v) FROM pg_catalog.unnest("values") AS v) OPERATOR(pg_catalog.<>) n THEN
        RAISE EXCEPTION 'ordered_hierarchy: value "%" is listed twice',
            (SELECT v FROM pg_catalog.unnest("values") AS v GROUP BY v HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 ORDER BY v LIMIT 1)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF group_sizes IS NULL OR pg_catalog.array_ndims(group_sizes) OPERATOR(pg_catalog.<>) 1 THEN
        RAISE EXCEPTION 'ordered_hierarchy: group_sizes must list one size per level (an empty array: only ⊥ above the values)'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The height is one level per group size, then ⊥; it is at most 64 (kMaxHeight in hierarchy.hpp).
    IF COALESCE(pg_catalog.array_length(group_sizes, 1), 0) OPERATOR(pg_catalog.>) 63 THEN
        RAISE EXCEPTION 'ordered_hierarchy: group_sizes lists % sizes; it may list 0 to 63 (a hierarchy has at most 64 levels above its values, ⊥ included)',
            pg_catalog.array_length(group_sizes, 1) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR j IN 1 .. COALESCE(pg_catalog.array_length(group_sizes, 1), 0) LOOP
        IF group_sizes[j] IS NULL OR group_sizes[j] OPERATOR(pg_catalog.<) 2 THEN
            RAISE EXCEPTION 'ordered_hierarchy: group size % (level %) must be at least 2, got %', j, j,
                COALESCE(group_sizes[j]::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END LOOP;
    -- One CSV line per value: the value, its group at each level ([first..last] of the values it
    -- holds, in the given order), then ⊥. Fields quoted (RFC 4180), so any value is safe.
    lines := ARRAY(SELECT pg_catalog.format('"%s"', pg_catalog.replace(v, '"', '""')) FROM pg_catalog.unnest("values") AS v);
    FOR j IN 1 .. COALESCE(pg_catalog.array_length(group_sizes, 1), 0) LOOP
        -- A group of n leaves holds every value, and so does any larger one: capping at n keeps the
        -- product of the sizes (2^31 per level) within bigint and changes no group.
        span := LEAST(span OPERATOR(pg_catalog.*) group_sizes[j], n);
        FOR i IN 1 .. n LOOP
            label := pg_catalog.format('[%s..%s]',
                "values"[((i OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) span) OPERATOR(pg_catalog.*) span OPERATOR(pg_catalog.+) 1],
                "values"[LEAST(((i OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) span OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.*) span, n)]);
            lines[i] := lines[i] OPERATOR(pg_catalog.||) ';' OPERATOR(pg_catalog.||) pg_catalog.format('"%s"', pg_catalog.replace(label, '"', '""'));
        END LOOP;
    END LOOP;
    RETURN privrisk.load_hierarchy(name, pg_catalog.array_to_string(
        ARRAY(SELECT l OPERATOR(pg_catalog.||) ';"*"' FROM pg_catalog.unnest(lines) AS l), E'\n'), ';', replace);
END $$;

CREATE OR REPLACE FUNCTION privrisk.load_hierarchy_from(name text, "rows" regclass, replace boolean DEFAULT false) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    kind "char";
    columns text;
    width integer;
    lines text[];
BEGIN
    -- A table that a client filled from its own file (psql's \copy, COPY FROM STDIN): its columns
    -- in order are the CSV's (leaf first, ⊥ last), its rows in the order they were loaded are the
    -- lines. Read as the caller, who must be able to SELECT it.
    IF "rows" IS NULL THEN
        RAISE EXCEPTION 'load_hierarchy_from: rows must name a table' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT c.relkind INTO kind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) "rows";
    IF kind IS DISTINCT FROM 'r' THEN
        RAISE EXCEPTION 'load_hierarchy_from: % is not a plain table (its rows are read in the order they were loaded)', "rows"
            USING ERRCODE = 'wrong_object_type';
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.format('%I::pg_catalog.text', a.attname), ', ' ORDER BY a.attnum), pg_catalog.count(*)
      INTO columns, width
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid OPERATOR(pg_catalog.=) "rows" AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped;
    IF width IS NULL OR width OPERATOR(pg_catalog.<) 2 THEN
        RAISE EXCEPTION 'load_hierarchy_from: % has % columns; a hierarchy needs at least two, the value and the root ⊥ (e.g. "a;*")',
            "rows", COALESCE(width, 0) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- Each row as one CSV line, every field quoted (RFC 4180), so any value is safe; a NULL field
    -- (an empty field in the file) is refused with its line.
    EXECUTE pg_catalog.format(
        'SELECT pg_catalog.array_agg(CASE WHEN pg_catalog.array_position(f, NULL) IS NULL'
        ' THEN (SELECT pg_catalog.string_agg(pg_catalog.format(''"%%s"'', pg_catalog.replace(u.v, ''"'', ''""'')), '';'' ORDER BY u.n)'
        '       FROM pg_catalog.unnest(f) WITH ORDINALITY AS u(v, n)) END ORDER BY r.ctid)'
        ' FROM (SELECT t.ctid, ARRAY[%s] AS f FROM %s AS t) AS r', columns, "rows") INTO lines;
    IF pg_catalog.array_position(lines, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'load_hierarchy_from: line % of % has an empty field', pg_catalog.array_position(lines, NULL), "rows"
            USING ERRCODE = 'bad_copy_file_format';
    END IF;
    RETURN privrisk.load_hierarchy(name, COALESCE(pg_catalog.array_to_string(lines, E'\n'), ''), ';', replace);
END $$;
