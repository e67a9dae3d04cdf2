-- The demo's decision-theoretic risk (docs/dtrisk.md): an attacker's dictionary of
-- named people — a voter list holding a fifth of the census with age, sex and
-- place — how many released rows it narrows down at a few generalization
-- levels, the risk of each release (the mean loss Φ/|ρ|), and the disclosure of
-- least risk for one person.
\pset footer off
\echo
\echo '== An attacker''s dictionary: a voter list with a fifth of the people (name, age, sex, place)'
SET client_min_messages = warning;
DROP TABLE IF EXISTS voter_list;
RESET client_min_messages;
CREATE TABLE voter_list AS SELECT 'voter ' || id AS name, age, sex, :place AS place FROM census WHERE id % 5 = 0;
SELECT count(*) AS entries, count(DISTINCT (age, sex, place)) AS distinct_entries FROM voter_list;
SELECT jsonb_build_array(jsonb_build_object('released', 'age', 'hierarchy', 'age'),
                         jsonb_build_object('released', 'sex', 'hierarchy', 'sex'),
                         jsonb_build_object('released', :'place_name', 'dictionary', 'place', 'hierarchy', :'place_name'))
       AS mapping \gset

\echo
\echo '== Identification of the census released at a few levels of (age, sex, place)'
\echo '   unique = rows the list narrows to one entry; 2-5 = to a handful; missed = rows no entry is consistent with;'
\echo '   risk = the mean loss Phi/|rho| over all rows (Phi multiplicative, leaf weights 0.3, 0.2, 0.5, harmonic up'
\echo '   the hierarchies), max_loss = the worst row''s'
SELECT array_to_string(l.levels, ',') AS levels, c.unique_rows, c.rows_2_to_5, c.missed,
       round((r->>'risk')::numeric, 5) AS risk, round((r->>'max_loss')::numeric, 4) AS max_loss
FROM (VALUES (1, ARRAY[0, 0, 0]), (2, ARRAY[1, 0, 1]), (3, ARRAY[2, 0, 2]), (4, ARRAY[3, 1, 2])) AS l(n, levels),
     LATERAL (SELECT coalesce(sum(m.rows) FILTER (WHERE m.matches = 1), 0) AS unique_rows,
                     coalesce(sum(m.rows) FILTER (WHERE m.matches BETWEEN 2 AND 5), 0) AS rows_2_to_5,
                     coalesce(sum(m.rows) FILTER (WHERE m.matches = 0), 0) AS missed
              FROM privrisk.match_counts('census', 'voter_list', :'mapping', levels => l.levels) AS m) AS c,
     LATERAL privrisk.dictionary_risk('census', 'voter_list', :'mapping', ARRAY[0.3, 0.2, 0.5], l.levels) AS r
ORDER BY l.n;

\echo
\echo '== The disclosure of least risk for one person, keeping utility at least 2 (ARUBA; exhaustive agrees)'
SELECT m.method, o->'released' AS released, o->'levels' AS levels, round((o->>'risk')::numeric, 6) AS risk,
       o->'utility' AS utility, o->'visited' AS nodes_visited
FROM census c, unnest(ARRAY['aruba', 'exhaustive']) AS m(method),
     LATERAL privrisk.optimal_disclosure(ARRAY[c.age::text, c.sex, c.:place], 'voter_list', :'mapping',
                                         ARRAY[0.3, 0.2, 0.5], bound => 2, method => m.method) AS o
WHERE c.id = 10;
