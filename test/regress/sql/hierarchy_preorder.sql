-- hierarchy_tree lists a tree in preorder (docs/hierarchy.md): each node followed by its whole
-- subtree, siblings in the order of their first line. ARX's native-country and education files
-- interleave their groups (North America, Asia, Europe, North America, …), so an order by
-- first line alone would put later North American countries under Europe.
\i test/regress/adult_hierarchies.psql
SELECT privrisk.load_hierarchy('native-country', :'country') AS country,
       privrisk.load_hierarchy('education', :'education') AS education;

-- The expected preorder, built here from the file's text alone (not from the catalog): a
-- depth-first walk from the root, children ranked by the line on which they first appear.
CREATE FUNCTION file_preorder(csv text) RETURNS TABLE(node text, depth int, ord bigint[]) LANGUAGE sql AS $$
    WITH RECURSIVE lines AS (
        SELECT x.n AS line, string_to_array(x.t, ';') AS f
        FROM regexp_split_to_table(csv, E'\n') WITH ORDINALITY AS x(t, n) WHERE x.t <> ''),
    width AS (SELECT max(cardinality(f)) AS w FROM lines),
    edges AS (  -- child in column c, its parent in column c + 1, its depth below the root
        SELECT f[c] AS child, f[c + 1] AS parent, w - c AS depth, min(line) AS first
        FROM lines, width, generate_series(1, w - 1) AS c GROUP BY 1, 2, 3),
    ranked AS (
        SELECT e.*, row_number() OVER (PARTITION BY parent, depth ORDER BY first) AS rank FROM edges e),
    walk AS (
        SELECT (SELECT f[cardinality(f)] FROM lines ORDER BY line LIMIT 1) AS node, 0 AS depth, '{}'::bigint[] AS ord
        UNION ALL
        SELECT r.child, r.depth, w.ord || r.rank FROM walk w JOIN ranked r ON r.parent = w.node AND r.depth = w.depth + 1)
    SELECT node, depth, ord FROM walk
$$;

SELECT name, (SELECT array_agg(f.node || ' @' || f.depth ORDER BY f.ord) FROM file_preorder(csv) AS f)
           = (SELECT array_agg(t.node || ' @' || t.depth ORDER BY t.n) FROM privrisk.hierarchy_tree(name) WITH ORDINALITY AS t(node, level, depth, parent, leaves, preview, n))
           AS same_preorder,
       (SELECT count(*) FROM file_preorder(csv)) AS nodes
FROM (VALUES ('native-country', :'country'), ('education', :'education')) AS h(name, csv);

-- Every country lies under its own region in the preview: the rows of a region's subtree come
-- right after it (Puerto-Rico, Canada and Cuba under North America, not under Europe).
SELECT preview, parent, leaves FROM privrisk.hierarchy_tree('native-country') WITH ORDINALITY AS t(node, level, depth, parent, leaves, preview, n)
WHERE n <= 8 OR node IN ('Europe', 'England', 'Germany') ORDER BY n;
SELECT preview, parent, leaves FROM privrisk.hierarchy_tree('education');

DROP FUNCTION file_preorder(text);
SELECT privrisk.drop_hierarchy('native-country'), privrisk.drop_hierarchy('education');
