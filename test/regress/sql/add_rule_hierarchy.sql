-- add_rule checks a gen rule's hierarchy against the column (docs/hierarchy.md): the hierarchy
-- exists, the level is within its height, and every value the column holds now is a leaf of it.
-- A hierarchy that does not fit is refused with the values it lacks, and no rule is added.
SELECT privrisk.load_hierarchy('arh_city', E'Lyon;FR;*\nParis;FR;*\nBonn;DE;*') AS city,
       privrisk.interval_hierarchy('arh_age', 0, 100, ARRAY[10, 50]) AS age;
CREATE TABLE arh AS
SELECT (ARRAY['Lyon', 'Paris', 'Bonn', 'Rome', 'Oslo'])[1 + i % 5] AS city, 15 + i % 40 AS age, i % 2 AS outcome
FROM generate_series(1, 100) AS i;
SELECT privrisk.create_policy('arh_policy', 'arh');
-- The wrong hierarchy for the column (ages through a city hierarchy), and one that lacks two cities.
SELECT privrisk.add_rule('arh_policy', 'age', 'gen', 'false', 'arh_city', 1);
SELECT privrisk.add_rule('arh_policy', 'city', 'gen', 'false', 'arh_city', 1);
-- No such hierarchy; a level beyond its height.
SELECT privrisk.add_rule('arh_policy', 'age', 'gen', 'false', 'arh_none', 1);
SELECT privrisk.add_rule('arh_policy', 'age', 'gen', 'false', 'arh_age', 4);
SELECT count(*) AS rules FROM privrisk.policy_rule WHERE policy = 'public.arh_policy';
-- A hierarchy that fits: added.
SELECT privrisk.add_rule('arh_policy', 'age', 'gen', 'false', 'arh_age', 1) AS rule;
DELETE FROM arh WHERE city IN ('Rome', 'Oslo');
SELECT privrisk.add_rule('arh_policy', 'city', 'gen', 'false', 'arh_city', 1) AS rule;
SELECT privrisk.drop_policy('arh_policy');
DROP TABLE arh;
SELECT privrisk.drop_hierarchy('arh_city'), privrisk.drop_hierarchy('arh_age');
