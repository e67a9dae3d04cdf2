-- Generalization search (docs/search.md): the paper's lattices, ARX's Adult lattice,
-- each result checked by an independent evaluation of the node's classes.
SET extra_float_digits = 0;
-- Progress notices depend on the machine's speed: off, so the output is the same under load.
SET privrisk.search_progress_interval = 0;

-- [MKMGH07]: the Figure 1 table; minimal (c,k)-safe nodes (age: exact, decade, ⊥: 18 nodes).
CREATE TABLE fig1 (name text, zip text, age int, sex text, disease text);
INSERT INTO fig1 VALUES ('Bob', '14850', 23, 'M', 'Flu'), ('Charlie', '14850', 24, 'M', 'Flu'),
    ('Dave', '14850', 25, 'M', 'Lung Cancer'), ('Ed', '14850', 27, 'M', 'Lung Cancer'), ('Frank', '14853', 29, 'M', 'Mumps'),
    ('Gloria', '14850', 21, 'F', 'Flu'), ('Hannah', '14850', 22, 'F', 'Flu'), ('Irma', '14853', 24, 'F', 'Breast Cancer'),
    ('Jessica', '14853', 26, 'F', 'Ovarian Cancer'), ('Karen', '14853', 28, 'F', 'Heart Disease');
SELECT privrisk.load_hierarchy('f1zip', E'14850;1485*;*\n14853;1485*;*');
SELECT privrisk.interval_hierarchy('f1age', 0, 100, ARRAY[10]);
SELECT privrisk.load_hierarchy('f1sex', E'M;*\nF;*');
-- The curve MD_0..MD_3 of every node (2/5, 6/11, 12/17, 28/33 at the top).
SELECT node, qualifies, round((measures->>'ck_max_disclosure')::numeric, 6) AS md_1, measures->'classes' AS classes
FROM privrisk.lattice('fig1', ARRAY['zip', 'age', 'sex'], ARRAY['f1zip', 'f1age', 'f1sex'], 'disease',
                      '{"c": 0.7, "ck_k": 1}', 'height')
ORDER BY node;
-- Minimal qualifying nodes for the paper's (c, k): {(0,1,1), (1,1,0)}, {(1,1,0)}, {(1,1,0)}, {(1,1,0)}, {(1,1,1)}.
CREATE FUNCTION minimal_nodes(source regclass, qi text[], hierarchies text[], sensitive text, constraints jsonb)
RETURNS int[] LANGUAGE sql AS $$
    WITH l AS (SELECT * FROM privrisk.lattice(source, qi, hierarchies, sensitive, constraints, 'height'))
    SELECT array_agg(a.node ORDER BY a.node) FROM l a
    WHERE a.qualifies AND NOT EXISTS (
        SELECT 1 FROM l b WHERE b.qualifies AND b.node <> a.node
          AND NOT EXISTS (SELECT 1 FROM generate_subscripts(a.node, 1) i WHERE b.node[i] > a.node[i]))
$$;
SELECT c, k, minimal_nodes('fig1', ARRAY['zip', 'age', 'sex'], ARRAY['f1zip', 'f1age', 'f1sex'], 'disease',
                           jsonb_build_object('c', c, 'ck_k', k)) AS minimal
FROM (VALUES (1.0, 0), (0.5, 0), (1.0, 1), (0.7, 1), (1.0, 2)) AS q(c, k) ORDER BY k, c DESC;
-- search() returns the lowest of them: (1,1,0), MD_1 = 2/3, two classes of five.
SELECT s->'found' AS found, s->'result'->'node' AS node, round((s->'result'->'measures'->>'ck_max_disclosure')::numeric, 6) AS md_1,
       s->'result'->'measures'->'classes' AS classes, s->'result'->'measures'->'k_anonymity' AS k
FROM (SELECT privrisk.search('fig1', ARRAY['zip', 'age', 'sex'], ARRAY['f1zip', 'f1age', 'f1sex'], 'disease',
                             '{"c": 0.7, "ck_k": 1}', 'height') AS s) AS r;

-- Published through the release scan: the release's classes are the node's.
SELECT privrisk.apply_generalization('fig1_safe', privrisk.search('fig1', ARRAY['zip', 'age', 'sex'],
    ARRAY['f1zip', 'f1age', 'f1sex'], 'disease', '{"c": 0.7, "ck_k": 1}', 'height')) AS rules;
SELECT zip, age, sex, count(*), string_agg(disease, ', ' ORDER BY disease) AS diseases
FROM privrisk.release('fig1_safe') AS r(name text, zip text, age text, sex text, disease text)
GROUP BY zip, age, sex ORDER BY sex;
SELECT privrisk.drop_policy('fig1_safe');

-- [MKMGH07] on UCI Adult (45,222 rows): Age 6 levels (exact; intervals of 5, 10, 20, 40; ⊥),
-- Marital Status 3 (ARX's hierarchy), Race 2, Gender 2: 72 nodes; Occupation sensitive.
\i scripts/adult-uci.sql
SELECT privrisk.interval_hierarchy('age6', 0, 160, ARRAY[5, 10, 20, 40]);
\i test/regress/adult_hierarchies.psql
SELECT privrisk.load_hierarchy('marital3', :'marital');
SELECT privrisk.load_hierarchy('race2', string_agg(race || ';*', E'\n' ORDER BY race)) FROM (SELECT DISTINCT race FROM adult) r;
SELECT privrisk.load_hierarchy('sex2', string_agg(sex || ';*', E'\n' ORDER BY sex)) FROM (SELECT DISTINCT sex FROM adult) s;
CREATE TABLE minimal AS
SELECT c, k, unnest(minimal_nodes('adult', ARRAY['age', 'marital_status', 'race', 'sex'],
                                  ARRAY['age6', 'marital3', 'race2', 'sex2'], 'occupation',
                                  jsonb_build_object('c', c, 'ck_k', k))) AS node
FROM (VALUES (0.3, 1), (0.5, 1), (0.5, 3), (0.7, 5), (0.9, 7)) AS q(c, k);
-- unnest flattens the int[][]: regroup by four.
CREATE TABLE minimal_nodes AS
SELECT c, k, array_agg(node ORDER BY i) AS node
FROM (SELECT c, k, node, row_number() OVER (PARTITION BY c, k) - 1 AS i FROM minimal) m
GROUP BY c, k, i / 4;
SELECT c, k, node FROM minimal_nodes ORDER BY k, c, node;
-- Each minimal node is (c,k)-safe on its own classes, and none of its direct specializations is.
CREATE FUNCTION node_safe(node int[], c float8, k int) RETURNS boolean LANGUAGE sql AS $$
    SELECT privrisk.ck_safe(h, c, k) FROM (
        SELECT privrisk.hist(occupation) AS h FROM adult
        GROUP BY privrisk.gen(age, 'age6', node[1]), privrisk.gen(marital_status, 'marital3', node[2]),
                 privrisk.gen(race, 'race2', node[3]), privrisk.gen(sex, 'sex2', node[4])) AS b
$$;
SELECT c, k, count(*) AS nodes, bool_and(node_safe(node, c, k)) AS all_safe,
       bool_and(NOT EXISTS (SELECT 1 FROM generate_series(1, 4) i
                            WHERE node[i] > 0 AND node_safe(node[:i - 1] || (node[i] - 1) || node[i + 1:], c, k)))
           AS specializations_unsafe
FROM minimal_nodes GROUP BY c, k ORDER BY k, c;

-- ARX's Adult extract (30,162 rows) with its 9 hierarchies (read above): 12,960 nodes; k = 5 with 0 % and 1 % suppression.
SELECT privrisk.load_hierarchy('age', :'age') + privrisk.load_hierarchy('education', :'education')
     + privrisk.load_hierarchy('native-country', :'country') + privrisk.load_hierarchy('race', :'race')
     + privrisk.load_hierarchy('sex', :'sex') + privrisk.load_hierarchy('workclass', :'workclass')
     + privrisk.load_hierarchy('occupation', :'occupation') + privrisk.load_hierarchy('salary-class', :'salary') AS heights;
CREATE TABLE arx (sex text, age int, race text, marital_status text, education text, native_country text,
                  workclass text, occupation text, salary_class text);
\copy arx FROM '../shared/data/adult/adult.csv' WITH (FORMAT csv, DELIMITER ';', HEADER true)
CREATE TABLE arx_search AS
SELECT s, privrisk.search('arx', ARRAY['sex', 'age', 'race', 'marital_status', 'education', 'native_country', 'workclass',
                                       'occupation', 'salary_class'],
                          ARRAY['sex', 'age', 'race', 'marital3', 'education', 'native-country', 'workclass',
                                'occupation', 'salary-class'], NULL, jsonb_build_object('k', 5, 'max_suppression', s)) AS r
FROM (VALUES (0.0), (0.01)) AS v(s);
SELECT s, r->'found' AS found, r->'result'->'node' AS node, round((r->'result'->>'utility')::numeric, 6) AS loss,
       r->'result'->'rows_suppressed' AS suppressed, r->'result'->'measures'->'classes' AS classes,
       r->'result'->'measures'->'k_anonymity' AS k, r->'search'->'nodes' AS nodes,
       (r->'search'->>'evaluated')::int < 2000 AS pruned
FROM arx_search ORDER BY s;
-- Independent evaluation of each optimum's classes with GROUP BY and gen():
-- the rows of classes under 5 are exactly the suppressed ones, within the allowed share.
CREATE TABLE arx_node_classes AS
SELECT s, count(*) AS size FROM arx_search, arx,
     LATERAL (SELECT ARRAY(SELECT jsonb_array_elements_text(r->'result'->'node')::int) AS n) AS node
GROUP BY s, privrisk.gen(sex, 'sex', n[1]), privrisk.gen(age, 'age', n[2]), privrisk.gen(race, 'race', n[3]),
         privrisk.gen(marital_status, 'marital3', n[4]), privrisk.gen(education, 'education', n[5]),
         privrisk.gen(native_country, 'native-country', n[6]), privrisk.gen(workclass, 'workclass', n[7]),
         privrisk.gen(occupation, 'occupation', n[8]), privrisk.gen(salary_class, 'salary-class', n[9]);
SELECT s, coalesce(sum(size) FILTER (WHERE size < 5), 0) AS suppressed, min(size) FILTER (WHERE size >= 5) AS k,
       count(*) FILTER (WHERE size >= 5) AS classes,
       coalesce(sum(size) FILTER (WHERE size < 5), 0) = (SELECT (r->'result'->>'rows_suppressed')::int FROM arx_search a WHERE a.s = c.s) AS same_suppressed,
       coalesce(sum(size) FILTER (WHERE size < 5), 0) <= s * 30162 AS within_share
FROM arx_node_classes c GROUP BY s ORDER BY s;
-- Exhaustive evaluation of all 12,960 nodes: no qualifying node has a better loss.
SELECT s, count(*) AS nodes, count(*) FILTER (WHERE qualifies) AS qualifying,
       min(l.utility) FILTER (WHERE qualifies) = (SELECT (r->'result'->>'utility')::float8 FROM arx_search a WHERE a.s = v.s) AS search_is_optimal
FROM (VALUES (0.0), (0.01)) AS v(s),
     privrisk.lattice('arx', ARRAY['sex', 'age', 'race', 'marital_status', 'education', 'native_country', 'workclass',
                                   'occupation', 'salary_class'],
                      ARRAY['sex', 'age', 'race', 'marital3', 'education', 'native-country', 'workclass', 'occupation',
                            'salary-class'], NULL, jsonb_build_object('k', 5, 'max_suppression', s)) AS l
GROUP BY s ORDER BY s;

-- Each utility metric and constraint kind on a small table, with the search's own statistics.
SELECT u, r->'result'->'node' AS node, round((r->'result'->>'utility')::numeric, 6) AS utility
FROM unnest(ARRAY['height', 'loss', 'discernibility', 'entropy', 'levels_kept']) AS u,
     LATERAL (SELECT privrisk.search('adult', ARRAY['age', 'marital_status', 'race', 'sex'],
                                     ARRAY['age6', 'marital3', 'race2', 'sex2'], 'occupation',
                                     '{"k": 10, "l": 3, "l_kind": "entropy", "t": 0.3, "delta": 3, "max_suppression": 0.02}', u) AS r) AS s
ORDER BY u;
-- Not monotone with suppression: the result says pruning used only the utility bound.
SELECT r->'search'->'pruning' AS pruning
FROM (SELECT privrisk.search('adult', ARRAY['age', 'sex'], ARRAY['age6', 'sex2'], 'occupation',
                             '{"l": 2, "l_kind": "entropy", "max_suppression": 0.1}') AS r) AS s;

-- Bad input: each a clear error, or a result that says no node qualifies.
SELECT privrisk.search('adult', ARRAY['age', 'nope'], ARRAY['age6', 'sex2']);
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['no such hierarchy']);
SELECT privrisk.search('adult', ARRAY['age', 'sex'], ARRAY['age6']);
SELECT privrisk.search('adult', ARRAY['marital_status'], ARRAY['sex2']);
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], NULL, '{"l": 2}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"k": 0}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"k": 2.5}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"k": "5"}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"kk": 5}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"c": 0.5}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"c": 1.5, "ck_k": 1}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"max_suppression": -0.1}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"dt_risk": 0.1}');
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{}', 'precision');
SELECT privrisk.search('adult', ARRAY['age', 'age'], ARRAY['age6', 'age6']);
SELECT privrisk.search('adult', ARRAY['age'], ARRAY['age6'], 'occupation', '{"t": 0.2, "t_kind": "hierarchical"}');
-- Contradictory: more rows per class than the table has; no suppression can help.
SELECT r->'found' AS found, r->'result' AS result, r->'search'->'nodes' AS nodes
FROM (SELECT privrisk.search('fig1', ARRAY['zip', 'sex'], ARRAY['f1zip', 'f1sex'], NULL, '{"k": 11}') AS r) AS s;
-- A value the hierarchy does not cover is named.
INSERT INTO fig1 VALUES ('Zed', '99999', 30, 'M', 'Flu');
SELECT privrisk.search('fig1', ARRAY['zip', 'sex'], ARRAY['f1zip', 'f1sex']);
DELETE FROM fig1 WHERE name = 'Zed';
-- NULL quasi-identifiers are ⊥ already: a class of their own until the top.
CREATE TABLE few (zip text, sex text);
INSERT INTO few VALUES ('14850', 'M'), ('14850', NULL), (NULL, 'F'), ('14853', 'F');
SELECT node, qualifies, measures->'classes' AS classes, measures->'k_anonymity' AS k
FROM privrisk.lattice('few', ARRAY['zip', 'sex'], ARRAY['f1zip', 'f1sex'], NULL, '{"k": 2}') ORDER BY node;
-- Empty and one-row tables.
TRUNCATE few;
SELECT r->'found' AS found, r->'result'->'node' AS node, r->'result'->'rows' AS rows
FROM (SELECT privrisk.search('few', ARRAY['zip', 'sex'], ARRAY['f1zip', 'f1sex'], NULL, '{"k": 2}') AS r) AS s;
INSERT INTO few VALUES ('14850', 'M');
SELECT r->'found' AS found, r->'result'->'node' AS node, r->'result'->'measures'->'k_anonymity' AS k
FROM (SELECT privrisk.search('few', ARRAY['zip', 'sex'], ARRAY['f1zip', 'f1sex'], NULL, '{"k": 1}') AS r) AS s;
-- lattice() lists at most 1,000,000 nodes; search() goes further (8 columns x 6 levels: 1,679,616 nodes).
SELECT privrisk.prefix_hierarchy('p5', 5);
CREATE TABLE wide AS SELECT '12345'::text AS a, '12345'::text AS b, '12345'::text AS c, '12345'::text AS d,
                            '12345'::text AS e, '12345'::text AS f, '12345'::text AS g, '12345'::text AS h;
SELECT count(*) FROM privrisk.lattice('wide', ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
                                      array_fill('p5'::text, ARRAY[8]));
SELECT r->'result'->'node' AS node, r->'search'->'nodes' AS nodes
FROM (SELECT privrisk.search('wide', ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], array_fill('p5'::text, ARRAY[8]),
                             NULL, '{"k": 1}') AS r) AS s;
DROP TABLE wide;
-- A hostile column name is a name, not SQL.
SELECT privrisk.search('few', ARRAY['zip"; DROP TABLE few; --'], ARRAY['f1zip']);
SELECT count(*) AS few_still_there FROM few;
-- The search reads with the caller's rights: no SELECT on the table, no search.
CREATE ROLE privrisk_search_stranger;
SET ROLE privrisk_search_stranger;
SELECT privrisk.search('few', ARRAY['zip'], ARRAY['f1zip']);
RESET ROLE;
DROP ROLE privrisk_search_stranger;
-- A cancelled search raises the cancel and leaves nothing behind (terse: where the 20 ms end, in the
-- search or while it loads a hierarchy, depends on the machine's speed).
\set VERBOSITY terse
SET statement_timeout = '20ms';
SELECT privrisk.lattice('arx', ARRAY['sex', 'age', 'race', 'marital_status', 'education', 'native_country', 'workclass',
                                     'occupation', 'salary_class'],
                        ARRAY['sex', 'age', 'race', 'marital3', 'education', 'native-country', 'workclass', 'occupation',
                              'salary-class'], NULL, '{"k": 5}');
RESET statement_timeout;
\set VERBOSITY default
-- apply_generalization publishes a result that suppresses rows, with its suppression rule (release_suppression.sql).
SELECT privrisk.apply_generalization('arx_1pct', (SELECT r FROM arx_search WHERE s = 0.01));
SELECT count(*) AS policies FROM privrisk.policy;

DROP TABLE fig1, few, adult, minimal, minimal_nodes, arx, arx_search, arx_node_classes;
DROP FUNCTION minimal_nodes(regclass, text[], text[], text, jsonb);
DROP FUNCTION node_safe(int[], float8, int);
SELECT count(*) AS hierarchies_dropped FROM (SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy) AS d;
