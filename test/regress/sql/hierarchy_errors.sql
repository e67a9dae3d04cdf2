-- Bad input: every error names the problem and its line, and nothing is half-loaded.
SELECT privrisk.load_hierarchy('ok', E'a;x;*\nb;x;*\nc;y;*');

-- ragged rows
SELECT privrisk.load_hierarchy('bad', E'a;x;*\nb;x\nc;y;*');
-- unequal depth
SELECT privrisk.load_hierarchy('bad', E'a;x;*\nb;x;y;*\n');
-- a value with two parents (a leaf, then a label used at two levels)
SELECT privrisk.load_hierarchy('bad', E'a;x;*\na;y;*\n');
SELECT privrisk.load_hierarchy('bad', E'a;b;*\nb;c;*\n');
-- a non-nested level: group x lies under p and under q
SELECT privrisk.load_hierarchy('bad', E'a;x;p;*\nb;x;q;*\n');
-- duplicate leaves
SELECT privrisk.load_hierarchy('bad', E'a;x;*\nb;x;*\na;x;*\n');
-- empty input, blank lines only, one column, empty field, wrong root
SELECT privrisk.load_hierarchy('bad', '');
SELECT privrisk.load_hierarchy('bad', E'\n\r\n\n');
SELECT privrisk.load_hierarchy('bad', E'a\nb\n');
SELECT privrisk.load_hierarchy('bad', E'a;x;*\nb;;*\n');
SELECT privrisk.load_hierarchy('bad', E'a;x;*\nb;x;ALL\n');
SELECT privrisk.load_hierarchy('bad', E'a;*;*\n');
-- a 10 MB line
SELECT privrisk.load_hierarchy('bad', E'a;*\n' || repeat('x', 10 * 1024 * 1024) || ';*');
-- quoting: an unterminated quote, and a stray quote
SELECT privrisk.load_hierarchy('bad', E'a;*\n"b;*\n');
SELECT privrisk.load_hierarchy('bad', E'a;*\nb"c;*\n');
-- invalid UTF-8 cannot even reach the function in a UTF8 database
SELECT privrisk.load_hierarchy('bad', convert_from('\x613b2a0aff3b2a'::bytea, 'UTF8'));
-- bad delimiters and NULL arguments
SELECT privrisk.load_hierarchy('bad', 'a;*', ';;');
SELECT privrisk.load_hierarchy('bad', 'a;*', '"');
SELECT privrisk.load_hierarchy('bad', NULL);
SELECT privrisk.load_hierarchy(NULL, 'a;*');
-- names: empty, control characters, too long, already taken
SELECT privrisk.load_hierarchy('', 'a;*');
SELECT privrisk.load_hierarchy(E'tab\there', 'a;*');
SELECT privrisk.load_hierarchy(repeat('n', 201), 'a;*');
SELECT privrisk.load_hierarchy('ok', 'a;*');

-- Nothing of the failed loads is stored.
SELECT count(*) AS hierarchies, (SELECT count(*) FROM privrisk.hierarchy_leaf) AS leaves FROM privrisk.hierarchy;

-- A different delimiter and quoted fields holding it.
SELECT privrisk.load_hierarchy('commas', E'"a,1",x,*\n"b ""q""",x,*', ',');
SELECT path FROM privrisk.hierarchy_leaf WHERE hierarchy = 'commas' ORDER BY line;

-- A hostile name is data, never SQL.
SELECT privrisk.load_hierarchy($$x'); DROP TABLE privrisk.hierarchy; --$$, 'a;*');
SELECT name FROM privrisk.hierarchy ORDER BY name;
SELECT privrisk.generalize($$x'); DROP TABLE privrisk.hierarchy; --$$, 'a', 0);

-- Lookups: unknown hierarchy, unknown value, level out of range, a node above the level.
SELECT privrisk.generalize('nope', 'a', 1);
SELECT privrisk.hierarchy_height('nope');
SELECT privrisk.drop_hierarchy('nope');
SELECT privrisk.generalize('ok', 'zz', 1);
SELECT privrisk.generalize('ok', 'a', 3);
SELECT privrisk.generalize('ok', 'a', -1);
SELECT privrisk.generalize('ok', 'x', 0);
SELECT privrisk.gen(1, 'ok', 1);
SELECT privrisk.gen('a', 'ok', NULL);
SELECT privrisk.gen('a', NULL, 1);
SELECT privrisk.generalizes('ok', 'a', 'zz');
SELECT privrisk.consistent('ok', NULL, 'zz');
-- Errors stop the statement at the first bad row.
SELECT privrisk.generalize('ok', v, 1) FROM (VALUES ('a'), ('b'), ('oops'), ('c')) AS t(v);

-- A failed load inside a transaction leaves the earlier ones intact and adds nothing.
BEGIN;
SELECT privrisk.load_hierarchy('tx', 'a;*');
SELECT privrisk.load_hierarchy('tx2', E'a;*\na;*');
ROLLBACK;
SELECT count(*) AS after_rollback FROM privrisk.hierarchy WHERE name IN ('tx', 'tx2');

-- Hand edits of the catalog are re-validated when the hierarchy is next used.
INSERT INTO privrisk.hierarchy_leaf(hierarchy, line, path) VALUES ('ok', 4, ARRAY['d', 'z', 'extra']);
SELECT privrisk.generalize('ok', 'a', 1);
DELETE FROM privrisk.hierarchy_leaf WHERE hierarchy = 'ok' AND line = 4;
SELECT privrisk.generalize('ok', 'a', 1);

SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy ORDER BY name;
