-- privrisk.memory_limit (docs/memory.md): the entropy aggregates hold one entry
-- per distinct value (or pair); past the limit they stop with an error that
-- says so, instead of growing until the server kills the backend.
SET max_parallel_workers_per_gather = 0;  -- one state, one backend: its peak is measured below
SELECT current_setting('privrisk.memory_limit') AS default_limit;
SET privrisk.memory_limit = '16MB';
SELECT privrisk.entropy(i) FROM generate_series(1, 2000000) AS i;
SELECT privrisk.conditional_entropy(i, i % 7) FROM generate_series(1, 2000000) AS i;
-- Within the limit, the same value as the closed form: H = ln(n) for n distinct values.
SELECT abs(privrisk.entropy(i) - ln(300000)) < 1e-12 AS exact FROM generate_series(1, 300000) AS i;
-- Peak resident memory of this backend, measured from a reset (Linux: 5 in clear_refs resets VmHWM):
-- bounded, the state stops within a few times the limit (its table doubles past it, and the old one is
-- freed after the copy: measured 43 MB for 16 MB); unbounded, the same query grows far past that (348 MB).
CREATE FUNCTION pg_temp.peak_growth_kb(limit_text text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    before bigint;
BEGIN
    EXECUTE format('COPY (SELECT 5) TO %L', '/proc/' || pg_backend_pid() || '/clear_refs');
    before := (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\s+(\d+) kB'))[1]::bigint;
    PERFORM set_config('privrisk.memory_limit', limit_text, true);
    BEGIN
        PERFORM privrisk.entropy(i) FROM generate_series(1, 4000000) AS i;
    EXCEPTION WHEN program_limit_exceeded THEN NULL;
    END;
    RETURN (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\s+(\d+) kB'))[1]::bigint - before;
END $$;
-- (Under AddressSanitizer, whose quarantine keeps freed memory, the peak says nothing: not measured;
-- memory_limits_1.out is that run's expected output.)
SELECT pg_read_file('/proc/' || pg_backend_pid() || '/maps') ~ 'libasan' AS asan \gset
SELECT pg_temp.peak_growth_kb('16MB') < 4 * 16 * 1024 AS bounded_within_four_limits,
       pg_temp.peak_growth_kb('1GB') > 8 * 16 * 1024 AS unbounded_grows_far_past_them
WHERE NOT :'asan'::boolean;
RESET privrisk.memory_limit;
