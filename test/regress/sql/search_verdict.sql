-- search(…, profile) judges the node it found from its own read of the source
-- (docs/profiles.md): the verdict audit(…, profile) gives at that node, without
-- reading the source a second time; check() reads it once too.
SELECT privrisk.interval_hierarchy('sv_age', 0, 100, ARRAY[5, 10, 50]) AS height;
SELECT privrisk.prefix_hierarchy('sv_zip', 5) AS height;
SELECT privrisk.load_hierarchy('sv_diag', E'flu;respiratory;*\ncold;respiratory;*\ngastritis;digestive;*\nulcer;digestive;*\ncancer;other;*') AS height;
CREATE TABLE sv AS
SELECT 20 + abs(hashint4(i)) % 60 AS age, (10000 + abs(hashint4(i + 1000)) % 40)::text AS zip,
       CASE WHEN hashint4(i + 2000) % 3 = 0 THEN 'F' ELSE 'M' END AS sex,
       (ARRAY['flu', 'flu', 'cold', 'gastritis', 'ulcer', 'cancer'])[1 + abs(hashint4(i + 3000)) % 6] AS diag,
       abs(hashint4(i + 4000)) % 100 AS income
FROM generate_series(1, 2000) AS i;
SECURITY LABEL FOR privrisk ON COLUMN sv.age IS 'quasi_identifier(sv_age)';
SECURITY LABEL FOR privrisk ON COLUMN sv.zip IS 'quasi_identifier(sv_zip)';
SECURITY LABEL FOR privrisk ON COLUMN sv.sex IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN sv.diag IS 'sensitive';

-- One profile per kind of threshold the search takes, each qualifier set.
CREATE TABLE sv_profiles(name text, sensitive text, thresholds jsonb);
INSERT INTO sv_profiles VALUES
    ('sv_k', NULL, '{"k": 7}'),
    ('sv_risk', NULL, '{"max_risk": 0.1, "average_risk": 0.04}'),
    ('sv_l_distinct', NULL, '{"k": 2, "l": 3}'),
    ('sv_l_entropy', NULL, '{"l": 2.5, "l_kind": "entropy"}'),
    ('sv_l_recursive', NULL, '{"l": 2, "l_kind": "recursive", "l_c": 1.5}'),
    ('sv_t_equal', NULL, '{"t": 0.15}'),
    ('sv_t_hierarchical', NULL, '{"t": 0.1, "t_kind": "hierarchical", "t_hierarchy": "sv_diag"}'),
    ('sv_t_ordered', 'income', '{"t": 0.1, "t_kind": "ordered"}'),
    ('sv_delta', NULL, '{"delta": 1.2}'),
    ('sv_ck', NULL, '{"k": 3, "c": 0.7, "ck_k": 1}'),
    ('sv_all', NULL, '{"k": 4, "l": 2, "t": 0.3, "delta": 2.5, "c": 0.9, "ck_k": 2, "average_risk": 0.2}');
SELECT count(privrisk.create_profile(name, thresholds)) AS profiles FROM sv_profiles;

CREATE TABLE sv_runs AS
SELECT p.name, p.sensitive, privrisk.search('sv', sensitive => p.sensitive, profile => p.name) AS r
FROM sv_profiles AS p;
-- Each verdict is the one audit(…, profile) gives at the node found, key for key.
SELECT s.name, s.r->'found' AS found, s.r->'result'->'node' AS node,
       s.r #> '{result,verdict,publishable}' AS publishable,
       s.r #> '{result,verdict}' = privrisk.audit('sv', sensitive => s.sensitive, levels => n.node,
                                                  profile => s.name)->'verdict' AS same_as_audit
FROM sv_runs AS s,
     LATERAL (SELECT array_agg(l::int ORDER BY i)
              FROM jsonb_array_elements_text(s.r #> '{result,node}') WITH ORDINALITY AS e(l, i)) AS n(node)
ORDER BY s.name;
-- The values it judged, for one profile of every kind.
SELECT c->>'measure' AS measure, round((c->>'value')::numeric, 6) AS value, c->>'comparison' AS comparison,
       c->'threshold' AS threshold, c->'passed' AS passed
FROM sv_runs AS s, jsonb_array_elements(s.r #> '{result,verdict,checks}') AS c
WHERE s.name = 'sv_all';
-- A node that suppresses rows has no verdict (the release would withhold them).
SELECT r->'result'->'rows_suppressed' AS suppressed, r->'result' ? 'verdict' AS has_verdict
FROM privrisk.search('sv', constraints => '{"max_suppression": 0.2}', profile => 'sv_k') AS r;

-- Reads of the source (sequential and index scans), counted in this transaction;
-- serially, so that every read is this backend's.
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION pg_temp.reads(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    before bigint;
    after bigint;
BEGIN
    SELECT seq_scan + coalesce(idx_scan, 0) INTO before FROM pg_stat_xact_user_tables WHERE relid = 'sv'::regclass;
    EXECUTE query;
    SELECT seq_scan + coalesce(idx_scan, 0) INTO after FROM pg_stat_xact_user_tables WHERE relid = 'sv'::regclass;
    RETURN after - before;
END $$;
SELECT pg_temp.reads($$SELECT privrisk.search('sv')$$) AS search,
       pg_temp.reads($$SELECT privrisk.audit('sv')$$) AS audit,
       pg_temp.reads($$SELECT privrisk.search('sv', profile => 'sv_all')$$) AS search_with_profile,
       pg_temp.reads($$SELECT privrisk.audit('sv', profile => 'sv_all')$$) AS audit_with_profile,
       pg_temp.reads($$SELECT * FROM privrisk.check('sv', 'sv_all')$$) AS "check",
       pg_temp.reads($$SELECT * FROM privrisk.check('sv', 'sv_all', levels => ARRAY[1, 2, 0])$$) AS check_at_levels;
RESET max_parallel_workers_per_gather;

-- profile_verdict reads a report as (report #>> path)::float8 would: numbers, their text
-- ("Infinity"), the (c,k) curve at ck_k, JSON null and missing keys each say why.
SELECT c->>'measure' AS measure, c->'value' AS value, c->'passed' AS passed, c->>'note' AS note
FROM jsonb_array_elements(privrisk.profile_verdict('sv_all',
         '{"k_anonymity": "Infinity", "average_risk": null, "t_equal": 0.25, "ck_disclosure_curve": [0.1, 0.2, 0.95],
           "delta_disclosure": "2.4"}', 'sv')->'checks') AS c;
SELECT privrisk.profile_verdict('sv_all', '{"k_anonymity": "many"}', 'sv');
SELECT privrisk.profile_verdict('sv_all', '{"k_anonymity": [4]}', 'sv');
SELECT c->>'measure' AS measure, c->>'note' AS note
FROM jsonb_array_elements(privrisk.profile_verdict('sv_all', '["k_anonymity", 5]', 'sv')->'checks') AS c;

SELECT count(privrisk.drop_profile(name)) AS dropped FROM sv_profiles;
DROP TABLE sv, sv_runs, sv_profiles;
SELECT privrisk.drop_hierarchy(h) FROM unnest(ARRAY['sv_age', 'sv_zip', 'sv_diag']) AS h;
