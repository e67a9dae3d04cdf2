-- Loading a hierarchy file that is on the client (docs/hierarchy.md): psql's \copy reads the file
-- on the client's side into a table, and load_hierarchy_from loads the table. No superuser, no
-- server-side file, no shell; the regress suite's psql runs from the repository root, as a
-- steward's psql runs where the file is.
CREATE TEMP TABLE country_file (value text, region text, top text);
\copy country_file FROM '../shared/data/adult/adult_hierarchy_native-country.csv' WITH (FORMAT csv, DELIMITER ';')
SELECT privrisk.load_hierarchy_from('cf_country', 'country_file') AS height;
-- The same hierarchy as load_hierarchy of the file's text: every leaf's path, line by line.
\set country `cat ../shared/data/adult/adult_hierarchy_native-country.csv`
SELECT privrisk.load_hierarchy('cf_country_text', :'country') AS height;
SELECT (SELECT array_agg(path ORDER BY line) FROM privrisk.hierarchy_leaf WHERE hierarchy = 'cf_country')
     = (SELECT array_agg(path ORDER BY line) FROM privrisk.hierarchy_leaf WHERE hierarchy = 'cf_country_text') AS same,
       (SELECT count(*) FROM privrisk.hierarchy_leaf WHERE hierarchy = 'cf_country') AS leaves;
SELECT privrisk.generalize('cf_country', 'Puerto-Rico', 1) AS puerto_rico, privrisk.generalize('cf_country', 'Hong', 1) AS hong;

-- Values with quotes and delimiters stay whole; a wrong file is refused with its line.
CREATE TEMP TABLE odd_file (value text, parent text, top text);
INSERT INTO odd_file VALUES ('a;b', 'say "hi"', '*'), ('c', 'say "hi"', '*');
SELECT privrisk.load_hierarchy_from('cf_odd', 'odd_file') AS height;
SELECT privrisk.generalize('cf_odd', 'a;b', 1) AS parent;
INSERT INTO odd_file VALUES ('c', 'other', '*');
SELECT privrisk.load_hierarchy_from('cf_odd2', 'odd_file');
UPDATE odd_file SET parent = NULL WHERE value = 'c';
SELECT privrisk.load_hierarchy_from('cf_odd2', 'odd_file');
CREATE TEMP TABLE one_column (value text);
SELECT privrisk.load_hierarchy_from('cf_odd2', 'one_column');
CREATE TEMP VIEW odd_view AS SELECT * FROM odd_file;
SELECT privrisk.load_hierarchy_from('cf_odd2', 'odd_view');
-- Read as the caller: a role that may not read the table cannot load it.
CREATE ROLE cf_stranger;
CREATE TABLE cf_private (value text, top text);
INSERT INTO cf_private VALUES ('secret', '*');
SET ROLE cf_stranger;
SELECT privrisk.load_hierarchy_from('cf_private_h', 'cf_private');
RESET ROLE;
SELECT count(*) AS loaded FROM privrisk.hierarchy WHERE name LIKE 'cf_odd2%' OR name = 'cf_private_h';
DROP TABLE cf_private;
DROP ROLE cf_stranger;
SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name LIKE 'cf\_%' ORDER BY name;
