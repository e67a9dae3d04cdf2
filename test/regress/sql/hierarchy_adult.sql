-- Hierarchy functions on ARX's Adult hierarchies (../shared/data/adult), read in place.
\i test/regress/adult_hierarchies.psql

-- load_hierarchy returns the height (columns - 1; the last column is ⊥).
SELECT privrisk.load_hierarchy('age', :'age') AS age,
       privrisk.load_hierarchy('marital-status', :'marital') AS marital,
       privrisk.load_hierarchy('education', :'education') AS education,
       privrisk.load_hierarchy('native-country', :'country') AS country,
       privrisk.load_hierarchy('race', :'race') AS race,
       privrisk.load_hierarchy('sex', :'sex') AS sex,
       privrisk.load_hierarchy('workclass', :'workclass') AS workclass,
       privrisk.load_hierarchy('occupation', :'occupation') AS occupation,
       privrisk.load_hierarchy('salary-class', :'salary') AS salary;

SELECT name, kind, height, leaves FROM privrisk.hierarchies ORDER BY name;

-- The level-0..4 ancestors of age 39: 39, 35-39, 30-39, 20-39, ⊥.
SELECT level, privrisk.generalize('age', '39', level) AS ancestor,
       privrisk.generalize('age', '39', level) IS NULL AS is_bottom
FROM generate_series(0, 4) AS level;

-- ARX's file puts 20 under 15-19 and 100 under 95-99: loaded as given.
SELECT privrisk.generalize('age', '20', 1) AS age20, privrisk.generalize('age', '100', 1) AS age100;

-- Every marital status at every level.
SELECT path[1] AS status, privrisk.generalize('marital-status', path[1], 0) AS l0,
       privrisk.generalize('marital-status', path[1], 1) AS l1,
       privrisk.generalize('marital-status', path[1], 2) AS l2
FROM privrisk.hierarchy_leaf WHERE hierarchy = 'marital-status' ORDER BY line;

-- Inner nodes generalize further; the same call through gen() on any type.
SELECT privrisk.generalize('age', '35-39', 3) AS inner_node,
       privrisk.gen(39, 'age', 2) AS gen_int,
       privrisk.gen('Doctorate', 'education', 1) AS gen_text,
       privrisk.gen('Doctorate'::varchar, 'education', 2) AS gen_varchar;

-- Heights.
SELECT name, privrisk.hierarchy_height(name) FROM privrisk.hierarchy ORDER BY name;

-- generalizes(h, general, specific): ancestor-or-self; NULL (⊥) generalizes everything.
SELECT g, s, privrisk.generalizes('education', g, s) AS generalizes, privrisk.consistent('education', g, s) AS consistent
FROM (VALUES ('Undergraduate', 'Bachelors'), ('Higher education', 'Bachelors'), ('Bachelors', 'Undergraduate'),
             ('Bachelors', 'Bachelors'), ('Graduate', 'Bachelors'), ('Secondary education', 'Higher education'),
             (NULL, 'Bachelors'), ('Bachelors', NULL), (NULL, NULL)) AS t(g, s);

-- Strictness: a NULL value or level gives NULL (⊥ stays ⊥).
SELECT privrisk.generalize('age', NULL, 1) IS NULL AS null_value,
       privrisk.generalize('age', '39', NULL) IS NULL AS null_level,
       privrisk.gen(NULL::int, 'age', 1) IS NULL AS gen_null,
       privrisk.generalizes(NULL, 'a', 'b') IS NULL AS null_hierarchy;

-- Level 0 of every leaf is the leaf, and the top level is ⊥, for every loaded hierarchy.
SELECT l.hierarchy, bool_and(privrisk.generalize(l.hierarchy, l.path[1], 0) = l.path[1]) AS level0_is_leaf,
       bool_and(privrisk.generalize(l.hierarchy, l.path[1], h.height) IS NULL) AS top_is_bottom,
       bool_and(privrisk.generalize(l.hierarchy, l.path[1], h.height - 1) = l.path[h.height]) AS below_top_matches_csv
FROM privrisk.hierarchy_leaf l JOIN privrisk.hierarchy h ON h.name = l.hierarchy
GROUP BY l.hierarchy ORDER BY 1;

-- Dropping removes the leaves too.
SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy ORDER BY name;
SELECT count(*) AS hierarchies, (SELECT count(*) FROM privrisk.hierarchy_leaf) AS leaves FROM privrisk.hierarchy;
