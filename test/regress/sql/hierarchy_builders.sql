-- Interval, prefix and date builders (docs/glossary.md).
SELECT privrisk.interval_hierarchy('age5', 0, 120, ARRAY[5, 10, 20]) AS interval_height,
       privrisk.prefix_hierarchy('zip', 5) AS prefix_height,
       privrisk.date_hierarchy('birth') AS date_height;

SELECT level, privrisk.generalize('age5', '39', level) AS age39,
       privrisk.generalize('age5', '0', level) AS age0,
       privrisk.generalize('age5', '120', level) AS age120,
       privrisk.generalize('zip', '47677', level) AS zip
FROM generate_series(0, 4) AS level;
SELECT privrisk.generalize('zip', '47677', 5) IS NULL AS zip_top_is_bottom;

-- Fractional values, numeric inputs, and interval labels as inner nodes.
SELECT privrisk.gen(39.5, 'age5', 1) AS numeric_value, privrisk.gen(39.5::float8, 'age5', 1) AS float_value,
       privrisk.generalize('age5', '[35, 40)', 3) AS from_label,
       privrisk.generalizes('age5', '[30, 40)', '31') AS contains_31,
       privrisk.generalizes('age5', '[30, 40)', '40') AS contains_40,
       privrisk.consistent('age5', '[20, 40)', '[35, 40)') AS nested_labels;

-- Dates: day -> month -> year -> ⊥, whatever the DateStyle.
SET datestyle = 'SQL, DMY';
SELECT level, privrisk.gen('1975-05-10'::date, 'birth', level) AS birth
FROM generate_series(0, 3) AS level;
RESET datestyle;
SELECT privrisk.generalizes('birth', '1975', '1975-05-10') AS year_covers_day,
       privrisk.generalizes('birth', '1975-06', '1975-05-10') AS other_month,
       privrisk.consistent('birth', '1975-05', NULL) AS bottom_consistent;

-- Prefix masking counts characters, not bytes.
SELECT privrisk.prefix_hierarchy('city', 6);
SELECT privrisk.generalize('city', 'Zürich', 2) AS city2, privrisk.generalize('city', 'Zürich', 5) AS city5;

SELECT name, kind, height FROM privrisk.hierarchies ORDER BY name;

-- Builders validate their parameters; nothing is stored on failure.
SELECT privrisk.interval_hierarchy('bad', 0, 100, ARRAY[5, 7]);
SELECT privrisk.interval_hierarchy('bad', 0, 100, ARRAY[10, 5]);
SELECT privrisk.interval_hierarchy('bad', 0, 100, ARRAY[0]);
SELECT privrisk.interval_hierarchy('bad', 0, 100, ARRAY[]::int[]);
SELECT privrisk.interval_hierarchy('bad', 0, 100, ARRAY[5, NULL]);
SELECT privrisk.interval_hierarchy('bad', 100, 0, ARRAY[5]);
SELECT privrisk.interval_hierarchy('bad', 0, 1e400, ARRAY[5]);
SELECT privrisk.prefix_hierarchy('bad', 0);
SELECT privrisk.prefix_hierarchy('bad', NULL);
SELECT count(*) AS nothing_stored FROM privrisk.hierarchy WHERE name = 'bad';

-- Values outside a builder's domain.
SELECT privrisk.generalize('age5', '121', 1);
SELECT privrisk.generalize('age5', 'forty', 1);
SELECT privrisk.generalize('age5', 'NaN', 1);
SELECT privrisk.generalize('age5', '[31, 36)', 2);
SELECT privrisk.generalize('zip', '476771', 1);
SELECT privrisk.generalize('birth', '1975-02-30', 1);
SELECT privrisk.gen('infinity'::date, 'birth', 1);

SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy ORDER BY name;
