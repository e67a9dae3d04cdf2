-- Hierarchy authoring aids (docs/hierarchy.md): the values a hierarchy lacks,
-- a tree's preview, and the order-based builder.

-- ordered_hierarchy: level j groups consecutive values (sizes 2 then 3 groups), labelled [first..last].
SELECT privrisk.ordered_hierarchy('aid_edu', ARRAY['Preschool', '1st-4th', '5th-6th', '7th-8th', '9th', '10th',
                                                   '11th', '12th', 'HS-grad', 'Some-college'], ARRAY[2, 3]) AS height;
SELECT preview, level, depth, parent, leaves FROM privrisk.hierarchy_tree('aid_edu');
-- Every value's ancestors are its groups, by position (p counted from 1): cross-checked for all values.
WITH v(vals) AS (SELECT ARRAY['Preschool', '1st-4th', '5th-6th', '7th-8th', '9th', '10th', '11th', '12th', 'HS-grad',
                              'Some-college'])
SELECT bool_and(privrisk.generalize('aid_edu', vals[p], 1) =
                format('[%s..%s]', vals[(p - 1) / 2 * 2 + 1], vals[least(((p - 1) / 2 + 1) * 2, 10)])
            AND privrisk.generalize('aid_edu', vals[p], 2) =
                format('[%s..%s]', vals[(p - 1) / 6 * 6 + 1], vals[least(((p - 1) / 6 + 1) * 6, 10)])
            AND privrisk.generalize('aid_edu', vals[p], 3) IS NULL) AS groups_by_position
FROM v, generate_series(1, 10) AS p;
-- The tree lists each node once; its leaves add up level by level.
SELECT level, count(*) AS nodes, sum(leaves) AS leaves FROM privrisk.hierarchy_tree('aid_edu') GROUP BY level ORDER BY level;
-- No groups: only ⊥ above the values. Quotes and delimiters in values are safe.
SELECT privrisk.ordered_hierarchy('aid_flat', ARRAY['a;b', 'say "hi"'], '{}');
SELECT node, level, parent FROM privrisk.hierarchy_tree('aid_flat');
-- Bad input names the problem, and nothing is stored.
SELECT privrisk.ordered_hierarchy('aid_bad', ARRAY['a', 'b', 'a'], ARRAY[2]);
SELECT privrisk.ordered_hierarchy('aid_bad', ARRAY['a', 'b'], ARRAY[1]);
SELECT privrisk.ordered_hierarchy('aid_bad', ARRAY['a', NULL], ARRAY[2]);
SELECT privrisk.ordered_hierarchy('aid_bad', '{}', ARRAY[2]);
SELECT privrisk.ordered_hierarchy('aid_edu', ARRAY['a', 'b'], ARRAY[2]);
SELECT count(*) AS stored FROM privrisk.hierarchy WHERE name = 'aid_bad';
SELECT privrisk.hierarchy_tree('aid_missing');
SELECT privrisk.prefix_hierarchy('aid_zip', 5);
SELECT privrisk.hierarchy_tree('aid_zip');

-- hierarchy_coverage: the values a hierarchy lacks, with their rows, against a plain count.
CREATE TABLE aid_people AS
SELECT i AS id, (ARRAY['Preschool', '9th', 'HS-grad', 'Masters', 'Doctorate'])[1 + i % 5] AS education,
       lpad((i % 1000)::text, 5, '0') AS zip
FROM generate_series(1, 997) AS i;
SELECT * FROM privrisk.hierarchy_coverage('aid_people', 'education', 'aid_edu');
SELECT education, count(*) FROM aid_people WHERE education IN ('Masters', 'Doctorate') GROUP BY 1 ORDER BY 2 DESC, 1;
SELECT count(*) AS missing FROM privrisk.hierarchy_coverage('aid_people', 'zip', 'aid_zip');
-- An inner node in the data is not a leaf.
INSERT INTO aid_people VALUES (998, '[9th..10th]', '00001');
SELECT * FROM privrisk.hierarchy_coverage('aid_people', 'education', 'aid_edu') WHERE value LIKE '[%';
-- As the caller: a role without SELECT on the column reads nothing.
CREATE ROLE aid_reader;
GRANT SELECT (id) ON aid_people TO aid_reader;
SET ROLE aid_reader;
SELECT * FROM privrisk.hierarchy_coverage('aid_people', 'education', 'aid_edu');
RESET ROLE;
SELECT privrisk.hierarchy_coverage('aid_people', 'nope', 'aid_edu');

DROP TABLE aid_people;
DROP ROLE aid_reader;
SELECT privrisk.drop_hierarchy(h) FROM unnest(ARRAY['aid_edu', 'aid_flat', 'aid_zip']) AS h;
