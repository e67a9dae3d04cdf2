-- generalize in parallel workers: each worker loads the hierarchy into its own
-- cache, and the grouped result equals the serial plan's.
SELECT privrisk.interval_hierarchy('p_age', 0, 100, ARRAY[5, 10, 20]);
SELECT setseed(0.125);
CREATE TABLE p AS SELECT i, floor(random() * 101)::int AS age FROM generate_series(1, 200000) AS i;
ANALYZE p;

SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS groups, sum(n) AS rows, md5(string_agg(g || ':' || n, ',' ORDER BY g)) AS serial_digest
FROM (SELECT privrisk.gen(age, 'p_age', 2) AS g, count(*) AS n FROM p GROUP BY 1) AS c;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT count(*) AS groups, sum(n) AS rows, md5(string_agg(g || ':' || n, ',' ORDER BY g)) AS parallel_digest
FROM (SELECT privrisk.gen(age, 'p_age', 2) AS g, count(*) AS n FROM p GROUP BY 1) AS c;
SELECT count(*) AS groups, sum(n) AS rows, md5(string_agg(g || ':' || n, ',' ORDER BY g)) AS parallel_digest
FROM (SELECT privrisk.gen(age, 'p_age', 2) AS g, count(*) AS n FROM p GROUP BY 1) AS c;
RESET ALL;

DROP TABLE p;
SELECT privrisk.drop_hierarchy('p_age');
