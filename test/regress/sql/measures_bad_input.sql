-- Bad input to the measures: clear errors, no crash; empty input gives NULL.
CREATE TABLE empty_t (q int, s text);
SELECT privrisk.k_anonymity(h), privrisk.a_know(h), privrisk.l_diversity(h), privrisk.average_risk(h),
       privrisk.records_at_risk(h, 0.5), privrisk.delta_disclosure(h), privrisk.t_closeness(h)
FROM (SELECT privrisk.hist(s) AS h FROM empty_t GROUP BY q) AS c;
SELECT privrisk.audit('empty_t', ARRAY['q'], 's');

-- One row; an all-NULL sensitive column (⊥ is a value of its own).
INSERT INTO empty_t VALUES (1, NULL);
SELECT privrisk.audit('empty_t', ARRAY['q'], 's');
INSERT INTO empty_t VALUES (1, NULL), (2, NULL);
SELECT privrisk.audit('empty_t', ARRAY['q'], 's');

-- Thresholds and parameters out of range.
SELECT privrisk.records_at_risk(h, 1.5) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.records_at_risk(h, -0.1) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.records_at_risk(h, 'NaN') FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.records_at_risk(h, NULL) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.l_diversity(h, 'recursive') FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.l_diversity(h, 'recursive', 0) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.l_diversity(h, 'distinct', 3) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.l_diversity(h, 'fancy') FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.t_closeness(h, 'hierarchical') FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.t_closeness(h, 'earth') FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.t_closeness(h, 'hierarchical', 'nope') FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS c(h);
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', options => '{"risk_threshold": 2}');
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', options => '{"l_c": -1}');
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', options => '{"colour": "blue"}');
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', options => '{"l_c": "three"}');
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', options => '[]');

-- Unknown or bad columns, relations and hierarchies in audit().
SELECT privrisk.audit('empty_t', ARRAY['nope'], 's');
SELECT privrisk.audit('empty_t', ARRAY['q'], 'nope');
SELECT privrisk.audit('empty_t', ARRAY['ctid'], 's');
SELECT privrisk.audit('empty_t', ARRAY[]::text[], 's');
SELECT privrisk.audit('empty_t', ARRAY['q', NULL], 's');
SELECT privrisk.audit('empty_t', ARRAY['q', 'q'], 's');
SELECT privrisk.audit('no_such_table', ARRAY['q'], 's');
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', ARRAY['h1', 'h2']);
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', NULL, ARRAY[2]);
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', ARRAY['nope'], ARRAY[1]);
SELECT privrisk.interval_hierarchy('small', 0, 1, ARRAY[1]);
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', ARRAY['small'], ARRAY[1]);  -- q = 2 is outside [0, 1]
SELECT privrisk.audit('empty_t', ARRAY['q'], 's', ARRAY['small'], ARRAY[7]);
SELECT privrisk.drop_hierarchy('small');
-- A hostile column name is an identifier, quoted, never SQL.
CREATE TABLE "we""ird" ("x"")); DROP TABLE empty_t; --" int, s text);
INSERT INTO "we""ird" VALUES (1, 'a'), (1, 'b');
SELECT privrisk.audit('"we""ird"', ARRAY['x")); DROP TABLE empty_t; --'], 's') -> 'k_anonymity' AS k;
SELECT count(*) AS empty_t_still_there FROM empty_t;

-- Hostile hist literals and binary values are refused.
SELECT '['::privrisk.hist;
SELECT '[]'::privrisk.hist;
SELECT '[["a", 0]]'::privrisk.hist;
SELECT '[["a", -1]]'::privrisk.hist;
SELECT '[["a", 1], ["a", 2]]'::privrisk.hist;
SELECT '[["a", 4611686018427387904]]'::privrisk.hist;
SELECT '[["a", 4611686018427387903], [null, 1]]'::privrisk.hist;
SELECT '[["\u0000", 1]]'::privrisk.hist;
SELECT '[["\ud800", 1]]'::privrisk.hist;
SELECT '{"a": 1}'::privrisk.hist;
SELECT '[["a", 1]] trailing'::privrisk.hist;
-- (binary input through hist_recv is fuzzed by the integration tests)
-- Sums that would overflow are refused, not wrapped.
SELECT privrisk.average_risk(h) FROM (VALUES ('[["a", 4611686018427387903]]'::privrisk.hist),
                                             ('[["a", 4611686018427387903]]'), ('[["a", 4611686018427387903]]')) AS c(h);
SELECT privrisk.a_know(h) FROM (VALUES ('[["a", 4611686018427387903]]'::privrisk.hist),
                                       ('[["b", 4611686018427387903]]'), ('[["a", 4611686018427387903]]')) AS c(h);

DROP TABLE empty_t, "we""ird";
-- An unpopulated materialized view is the error it is through SQL, not an empty report.
CREATE MATERIALIZED VIEW unpopulated AS SELECT 1 AS a, 'x'::text AS s WITH NO DATA;
SELECT privrisk.audit('unpopulated', ARRAY['a'], 's');
DROP MATERIALIZED VIEW unpopulated;
