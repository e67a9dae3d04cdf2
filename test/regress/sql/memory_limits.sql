-- privrisk.memory_limit (docs/memory.md): what grows with the data (the entropy
-- aggregates' distinct values, identification's distinct tuples, the search's
-- classes and lattice()'s reports) stops with an error that says so past the
-- limit, and the release scan's value cache stops growing, instead of growing
-- until the server kills the backend.
SET max_parallel_workers_per_gather = 0;  -- one state, one backend: its peak is measured below
SELECT privrisk.entropy(1);  -- loads the module, which defines the setting
SELECT current_setting('privrisk.memory_limit') AS default_limit;
SET privrisk.memory_limit = '16MB';
SELECT privrisk.entropy(i) FROM generate_series(1, 2000000) AS i;
SELECT privrisk.conditional_entropy(i, i % 7) FROM generate_series(1, 2000000) AS i;
-- Within the limit, the same value as the closed form: H = ln(n) for n distinct values.
SELECT abs(privrisk.entropy(i) - ln(150000)) < 1e-12 AS exact FROM generate_series(1, 150000) AS i;
RESET privrisk.memory_limit;

-- Peak private memory of a fresh backend (each measurement follows \c and a warm-up: memory an earlier
-- query freed would be reused unseen, and first calls load code and caches) while `query` runs under
-- `limit_text`: the growth of the peak resident size (VmHWM, reset by writing 5 to clear_refs), less the
-- growth of the shared buffers and mapped files it touched (RssShmem, RssFile: they stay resident), so
-- what remains is the process's own heap. A refusal at the limit ends the query as documented.
CREATE FUNCTION mem_status_kb(field text) RETURNS bigint LANGUAGE sql AS $$
    SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), field || ':\s+(\d+) kB'))[1]::bigint
$$;
CREATE FUNCTION mem_peak_growth_kb(limit_text text, query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    peak bigint;
    shared bigint;
BEGIN
    PERFORM set_config('max_parallel_workers_per_gather', '0', true);  -- one state, in this backend
    PERFORM set_config('privrisk.search_progress_interval', '0', true);
    PERFORM mem_warm_up();
    EXECUTE format('COPY (SELECT 5) TO %L', '/proc/' || pg_backend_pid() || '/clear_refs');
    peak := mem_status_kb('VmHWM');
    shared := mem_status_kb('RssShmem') + mem_status_kb('RssFile');
    PERFORM set_config('privrisk.memory_limit', limit_text, true);
    BEGIN
        EXECUTE query;
    EXCEPTION WHEN program_limit_exceeded THEN NULL;
    END;
    PERFORM set_config('privrisk.memory_limit', '1GB', true);
    RETURN (mem_status_kb('VmHWM') - peak) - (mem_status_kb('RssShmem') + mem_status_kb('RssFile') - shared);
END $$;
-- The error a query stops with at the limit (the size it reached varies with the build: masked).
CREATE FUNCTION mem_limit_error(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN program_limit_exceeded THEN
    RETURN regexp_replace(SQLERRM, 'need \d+ kB', 'need … kB');
END $$;
-- (Under AddressSanitizer, whose quarantine keeps freed memory, or valgrind, which keeps its own
-- heap, the peak says nothing: not measured; memory_limits_1.out is that run's expected output.)
SELECT pg_read_file('/proc/' || pg_backend_pid() || '/maps') ~ 'libasan|vgpreload' AS foreign_heap \gset


-- Identification (match_counts, dictionary_risk, optimal_disclosures): each table is read as its
-- distinct tuples by the tuple_tally aggregate, whose state is bounded in every process.
CREATE TABLE mem_released AS SELECT i AS zip, i % 90 AS age FROM generate_series(1, 300000) AS i;
CREATE TABLE mem_dictionary AS SELECT i AS zip, i % 90 AS age FROM generate_series(1, 1000) AS i;
\set mapping '[{"released": "zip"}, {"released": "age"}]'
SELECT count(*) AS tuples, sum(matches) AS matching FROM privrisk.match_counts('mem_released', 'mem_dictionary', :'mapping');
SET privrisk.memory_limit = '4MB';
SELECT mem_limit_error(format('SELECT count(*) FROM privrisk.match_counts(%L, %L, %L)',
                                  'mem_released', 'mem_dictionary', :'mapping'));
RESET privrisk.memory_limit;

-- Each tally's bound is its own: many groups' states, and other aggregates beside it, do not count;
-- rows wait to be counted in a buffer of at most a quarter of the bound.
SET privrisk.memory_limit = '1MB';
SELECT count(*) AS groups, sum(length(t)) > 0 AS tallied
FROM (SELECT g % 1000 AS k, privrisk.tuple_tally(g) AS t FROM generate_series(1, 200000) AS g GROUP BY 1) AS s;
SET privrisk.memory_limit = '16MB';
SELECT length(privrisk.tuple_tally(i % 2)) > 0 AS tallied, array_length(array_agg(i), 1) AS beside
FROM generate_series(1, 3000000) AS i;
-- A state keeps the bound it was made with, and says which.
SELECT mem_limit_error($$SELECT length(privrisk.tuple_tally(i)) FROM (SELECT i, CASE WHEN i = 1000 THEN
    set_config('privrisk.memory_limit', '1GB', false) END AS c FROM generate_series(1, 2000000) AS i) AS s$$);
RESET privrisk.memory_limit;
-- The bound is the administrator's: a role changes it only when granted SET on it.
CREATE ROLE regress_memory_user;
SET ROLE regress_memory_user;
SET privrisk.memory_limit = '2GB';
-- privrisk.audit_memory_limit too (issue #33: any role could raise it), from every entry point.
SET privrisk.audit_memory_limit = '2GB';
SELECT set_config('privrisk.audit_memory_limit', '2GB', true);
CREATE FUNCTION pg_temp.raised() RETURNS text LANGUAGE sql SET privrisk.audit_memory_limit = '2GB'
AS $$ SELECT current_setting('privrisk.audit_memory_limit') $$;
ALTER ROLE regress_memory_user SET privrisk.audit_memory_limit = '2GB';
SHOW privrisk.audit_memory_limit;
RESET ROLE;
GRANT SET ON PARAMETER privrisk.memory_limit TO regress_memory_user;
SET ROLE regress_memory_user;
SET privrisk.memory_limit = '2GB';
SHOW privrisk.memory_limit;
RESET privrisk.memory_limit;
RESET ROLE;
REVOKE SET ON PARAMETER privrisk.memory_limit FROM regress_memory_user;
DROP ROLE regress_memory_user;

-- hist(): each class's histogram is bounded (issue #33: 3M distinct values grew a backend by 232 MB),
-- its encoding to come counted in; many groups' small histograms are each within it.
SET max_parallel_workers_per_gather = 0;
SET privrisk.memory_limit = '1MB';
SELECT length(privrisk.hist(i)::text) FROM generate_series(1, 300000) AS i;
SELECT length(privrisk.hist(i)::text) FROM generate_series(1, 10000) AS i;
SELECT count(*) AS classes, sum(length(h::text)) AS text_length
FROM (SELECT i % 50000 AS k, privrisk.hist(i) AS h FROM generate_series(1, 300000) AS i GROUP BY 1) AS s;
-- audit(): its own aggregation at most privrisk.memory_limit whatever privrisk.audit_memory_limit says,
-- then the spilling GROUP BY, whose distinct histograms are bounded too.
CREATE TABLE mem_audit AS SELECT i AS k, i % 3 AS s, i AS u FROM generate_series(1, 20000) AS i;
SHOW privrisk.audit_memory_limit;
SELECT privrisk.audit('mem_audit', ARRAY['k'], 's') -> 'classes' AS classes;
SELECT privrisk.audit('mem_audit', ARRAY['k'], 'u') -> 'classes' AS classes;
RESET privrisk.memory_limit;
SELECT privrisk.audit('mem_audit', ARRAY['k'], 'u') -> 'classes' AS classes;
DROP TABLE mem_audit;
RESET max_parallel_workers_per_gather;

-- search() and lattice(): the level-0 classes and distinct values while the source is read, then the
-- per-node bounds, the reports and one node's classes; the cache of rolled-up classes takes what is left.
SET privrisk.search_progress_interval = 0;
CREATE TABLE mem_people AS SELECT i AS id, i % 90 AS age, (i * 7919) % 100000 AS zip, i % 2 AS sex,
                                  (i % 13)::text AS diagnosis
FROM generate_series(1, 200000) AS i;
SELECT privrisk.interval_hierarchy('mem_age', 0, 120, ARRAY[5, 10, 20, 40]),
       privrisk.interval_hierarchy('mem_zip', 0, 100000, ARRAY[10, 100, 1000, 10000]),
       privrisk.interval_hierarchy('mem_sex', 0, 2, ARRAY[1]);
\set search 'SELECT privrisk.search(''mem_people'', ARRAY[''age'', ''zip'', ''sex''], ARRAY[''mem_age'', ''mem_zip'', ''mem_sex''], ''diagnosis'', ''{"k": 10, "l": 3}'')'
CREATE TABLE mem_found AS SELECT (:search) -> 'result' AS result;
SELECT result -> 'node' AS node, result -> 'measures' -> 'k_anonymity' AS k FROM mem_found;
SET privrisk.memory_limit = '4MB';
SELECT mem_limit_error(:'search');
-- Within a limit the base fits in, the same node and measures (the cache only shrinks).
SET privrisk.memory_limit = '64MB';
SELECT (:search) -> 'result' = result AS same_result FROM mem_found;
-- lattice() holds every node's report (and its jsonb): refused before any is made.
CREATE TABLE mem_small AS SELECT i % 6 AS a, i % 7 AS b, i % 8 AS c, i % 9 AS d, i % 10 AS e
FROM generate_series(1, 1000) AS i;
SELECT privrisk.interval_hierarchy('mem_small', 0, 64, ARRAY[2, 4, 8, 16, 32]);
\set lattice 'SELECT count(*) FROM privrisk.lattice(''mem_small'', ARRAY[''a'', ''b'', ''c'', ''d'', ''e''], ARRAY[''mem_small'', ''mem_small'', ''mem_small'', ''mem_small'', ''mem_small''], NULL, ''{"k": 5}'')'
SET privrisk.memory_limit = '4MB';
SELECT mem_limit_error(:'lattice');
RESET privrisk.memory_limit;
SELECT (:lattice) = 7 ^ 5 AS every_node_listed;
RESET privrisk.search_progress_interval;

-- The release scan's value cache: past the limit it stops growing and generalizes each new value
-- again when it comes back; the rows are the same.
CREATE TABLE mem_wide AS SELECT i AS v FROM generate_series(1, 300000) AS i;
SELECT privrisk.interval_hierarchy('mem_v', 0, 400000, ARRAY[10]);
SELECT privrisk.create_policy('mem_release', 'mem_wide');
SELECT privrisk.add_rule('mem_release', 'v', 'gen', 'false', 'mem_v', 1);
\set released 'SELECT md5(string_agg(v, '','' ORDER BY v)) FROM privrisk.release(''mem_release'') AS r(v text)'
CREATE TABLE mem_digest AS SELECT (:released) AS digest;
CREATE FUNCTION pg_temp.cache(limit_text text) RETURNS TABLE(entries bigint, kb bigint, uncached bigint) LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    PERFORM set_config('privrisk.memory_limit', limit_text, true);
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) SELECT * FROM privrisk.release(''mem_release'') AS r(v text)' INTO plan;
    PERFORM set_config('privrisk.memory_limit', '1GB', true);
    RETURN QUERY SELECT (plan->0->'Plan'->>'Value Cache Entries')::bigint, (plan->0->'Plan'->>'Value Cache Memory')::bigint,
                        (plan->0->'Plan'->>'Value Cache Misses Uncached')::bigint;
END $$;
SELECT entries = 300000 AS all_cached, uncached FROM pg_temp.cache('1GB');
SELECT entries < 300000 AS some_cached, kb <= 2 * 1024 AS within_twice_the_limit, entries + uncached = 300000 AS every_value_seen
FROM pg_temp.cache('1MB');
SET privrisk.memory_limit = '1MB';
SELECT (:released) = digest AS same_rows FROM mem_digest;
RESET privrisk.memory_limit;

-- Peak resident memory, each in a fresh backend, bounded and not (docs/memory.md has the numbers).
\if :foreign_heap
\else
\set entropy 'SELECT privrisk.entropy(i) FROM generate_series(1, 4000000) AS i'
-- First calls load code and catalogs, outside what is measured.
CREATE FUNCTION mem_warm_up() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('privrisk.search_progress_interval', '0', true);
    PERFORM privrisk.entropy(i) FROM generate_series(1, 10) AS i;
    PERFORM length(privrisk.tuple_tally(i, i % 7)) FROM generate_series(1, 10) AS i;
    PERFORM privrisk.search('mem_small', ARRAY['a'], ARRAY['mem_small'], NULL, '{"k": 5}');
    PERFORM count(*) FROM privrisk.lattice('mem_small', ARRAY['a'], ARRAY['mem_small'], NULL, '{"k": 5}');
    PERFORM count(*) FROM privrisk.match_counts('mem_dictionary', 'mem_dictionary', '[{"released": "zip"}, {"released": "age"}]');
    PERFORM count(*) FROM (SELECT * FROM privrisk.release('mem_release') AS r(v text) LIMIT 10) AS r;
END $$;
\set tally 'SELECT length(privrisk.tuple_tally(i, i % 7)) FROM generate_series(1, 2000000) AS i'
\c
SELECT mem_peak_growth_kb('16MB', :'entropy') AS entropy_bounded \gset
\c
SELECT mem_peak_growth_kb('1GB', :'entropy') AS entropy_free \gset
\c
SELECT mem_peak_growth_kb('16MB', :'tally') AS tally_bounded \gset
\c
SELECT mem_peak_growth_kb('1GB', :'tally') AS tally_free \gset
\c
SELECT mem_peak_growth_kb('4MB', :'search') AS search_refused \gset
\c
SELECT mem_peak_growth_kb('64MB', :'search') AS search_bounded \gset
\c
SELECT mem_peak_growth_kb('4MB', :'lattice') AS lattice_refused \gset
\c
SELECT mem_peak_growth_kb('1GB', :'lattice') AS lattice_free \gset
\c
SELECT mem_peak_growth_kb('1MB', :'released') AS release_bounded \gset
\c
SELECT mem_peak_growth_kb('1GB', :'released') AS release_free \gset
-- Entropy: refused before its table doubles past the limit (the old table and the new one together).
SELECT :entropy_bounded < 3 * 16 * 1024 / 2 AS within_one_and_a_half_limits, :entropy_free > 8 * 16 * 1024 AS free_grows_past_them;
-- Identification's tally: the same doubling.
SELECT :tally_bounded < 4 * 16 * 1024 AS within_four_limits, :tally_free > 8 * 16 * 1024 AS free_grows_past_them;
-- The search: refused at 4 MB within 4 limits; at 64 MB within the limit.
SELECT :search_refused < 4 * 4 * 1024 AS refused_within_four_limits, :search_bounded < 64 * 1024 AS within_the_limit;
-- lattice(): refused before it holds anything; when it runs, within its own estimate of what it needs
-- (16,807 nodes, each report held twice and its jsonb: 2 · 320 + 6000 + 400 · 5 bytes).
SELECT :lattice_refused < 1024 AS refused_before_holding_anything,
       :lattice_free < 16807 * (2 * 320 + 6000 + 400 * 5) / 1024 AS within_its_estimate;
-- The release: the cache stops at 1 MB (the rest is the query's sort and string_agg); without the
-- limit it holds every value, 50 MB more.
SELECT :release_bounded < 16 * 1024 AS bounded, :release_free > :release_bounded + 32 * 1024 AS free_grows_past_it;
DROP FUNCTION mem_warm_up();
\endif
SELECT privrisk.drop_policy('mem_release');
DROP FUNCTION mem_peak_growth_kb(text, text);
DROP FUNCTION mem_limit_error(text);
DROP FUNCTION mem_status_kb(text);
DROP TABLE mem_released, mem_dictionary, mem_people, mem_found, mem_small, mem_wide, mem_digest;
SELECT count(*) AS hierarchies_dropped FROM (SELECT privrisk.drop_hierarchy(h) FROM unnest(ARRAY['mem_age', 'mem_zip', 'mem_sex', 'mem_small', 'mem_v']) AS h) AS d;
