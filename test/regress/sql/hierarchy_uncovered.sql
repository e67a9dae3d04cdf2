-- Values that a hierarchy lacks: audit(), check() and search() fail with one error that
-- counts every uncovered value of the column and its rows, shows the five most frequent and
-- points to hierarchy_coverage (docs/hierarchy.md), not with the first value met.
SELECT privrisk.load_hierarchy('unc_city', E'Lyon;FR;*\nParis;FR;*\nBonn;DE;*\nFR;FR;*') AS height;
CREATE TABLE unc AS
SELECT (ARRAY['Lyon', 'Paris', 'Bonn', 'Rome', 'Milan', 'Oslo', 'Bergen', 'Porto', 'Faro', 'FR'])[1 + i % 10] AS city,
       CASE WHEN i % 3 = 0 THEN 'yes' ELSE 'no' END AS outcome
FROM generate_series(1, 205) AS i;
SECURITY LABEL FOR privrisk ON COLUMN unc.city IS 'quasi_identifier(unc_city)';
SECURITY LABEL FOR privrisk ON COLUMN unc.outcome IS 'sensitive';
-- Six cities are unknown (FR is a leaf too: "FR;FR;*" gives it levels 0 and 1).
SELECT * FROM privrisk.hierarchy_coverage('unc', 'city', 'unc_city');
SELECT privrisk.audit('unc', levels => ARRAY[1]);
SELECT * FROM privrisk.check('unc', 'public_use_file');
SELECT privrisk.search('unc', constraints => '{"k": 2}');
-- Covered: the same calls work.
DELETE FROM unc WHERE city NOT IN ('Lyon', 'Paris', 'Bonn');
SELECT privrisk.audit('unc', levels => ARRAY[1])->'k_anonymity' AS k;
SELECT privrisk.search('unc', constraints => '{"k": 2}')->'found' AS found;
DROP TABLE unc;
SELECT privrisk.drop_hierarchy('unc_city');
