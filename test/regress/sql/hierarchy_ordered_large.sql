-- ordered_hierarchy with large groups (issue #33). A level's groups hold the
-- product of the group sizes so far; 0.13 multiplied them in bigint and failed
-- with "bigint out of range" once that passed 2^63 (a few sizes near 2^31).
-- A group that holds every value holds them all at any larger size, so the
-- builder caps the product at the number of values and builds every level
-- exactly. The groups are cross-checked against an independent computation:
-- position p (from 1) at level j is in group floor((p - 1) / P_j), where P_j,
-- the product of the first j sizes, is computed in numeric (no overflow).
SELECT privrisk.ordered_hierarchy('big_ord', (SELECT array_agg('v' || lpad(i::text, 2, '0') ORDER BY i) FROM generate_series(1, 50) AS i),
                                  ARRAY[3, 4, 2147483647, 2147483647, 2147483647]) AS height;
WITH RECURSIVE sizes(s) AS (SELECT ARRAY[3, 4, 2147483647, 2147483647, 2147483647]::numeric[]),
products(j, product) AS (
    SELECT 1, s[1] FROM sizes
    UNION ALL
    SELECT p.j + 1, p.product * s[p.j + 1] FROM products p, sizes WHERE p.j < 5),
expected AS (
    SELECT p.j, v.i, 'v' || lpad(v.i::text, 2, '0') AS value,
           format('[v%s..v%s]', lpad((floor((v.i - 1) / p.product) * p.product + 1)::text, 2, '0'),
                  lpad(least((floor((v.i - 1) / p.product) + 1) * p.product, 50)::text, 2, '0')) AS grp
    FROM products p, generate_series(1, 50) AS v(i))
SELECT count(*) AS checked,
       count(*) FILTER (WHERE privrisk.generalize('big_ord', value, j) IS DISTINCT FROM grp) AS wrong,
       count(*) FILTER (WHERE j = 5 AND privrisk.generalize('big_ord', value, 6) IS NOT NULL) AS wrong_bottom
FROM expected;
-- Groups of 3, then of 12, then one group of all 50 on each remaining level, then ⊥.
SELECT level, count(*) AS nodes, sum(leaves) AS leaves, min(node) AS first_node
FROM privrisk.hierarchy_tree('big_ord') GROUP BY level ORDER BY level;
SELECT privrisk.generalize('big_ord', 'v49', l) AS v49 FROM generate_series(1, 6) AS l;

-- Sizes whose product passes bigint on the third level: one group of all three values above level 1.
SELECT privrisk.ordered_hierarchy('big_ord2', ARRAY['a', 'b', 'c'], ARRAY[2, 2147483647, 2147483647, 2147483647, 2147483647]) AS height;
SELECT node, level, parent FROM privrisk.hierarchy_tree('big_ord2');

-- Where it cannot work, the error names the argument and its range, and stores nothing:
-- a height is at most 64, so group_sizes lists at most 63 sizes.
SELECT privrisk.ordered_hierarchy('big_ord_bad', ARRAY['a', 'b'], array_fill(2, ARRAY[64]));
SELECT count(*) AS stored FROM privrisk.hierarchy WHERE name = 'big_ord_bad';
SELECT privrisk.ordered_hierarchy('big_ord_63', ARRAY['a', 'b'], array_fill(2, ARRAY[63])) AS height;

SELECT privrisk.drop_hierarchy('big_ord'), privrisk.drop_hierarchy('big_ord2'), privrisk.drop_hierarchy('big_ord_63');
